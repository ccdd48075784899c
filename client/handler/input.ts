/**
 * What a modern result says of input: {@linkcode acceptResult} and the `input_required`
 * error it throws for the MRTR driver (`mrtr.ts`). The answers to input requests themselves
 * (`answer.ts`) load with the first input request a server sends.
 *
 * {@linkcode acceptResult} reads a modern result's `resultType`. An `input_required` result
 * reaches the MRTR driver as an `McpError` of reason `input_required` whose `data` is the
 * result (see {@linkcode inputRequiredOf}); a caller without the driver (`request()`) sees
 * that error.
 *
 * @module
 */

import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { allowsInputRequired } from "../../protocol/mrtr.ts";
import { META_CLIENT_CAPABILITIES, TASKS_EXTENSION } from "../../protocol/meta.ts";
import { isObject } from "../../protocol/json.ts";

/**
 * The `input_required` result carried by an error from {@linkcode acceptResult}, if it is one.
 *
 * @param error Anything a request rejected with.
 * @returns The result, or `undefined`.
 */
export function inputRequiredOf(error: unknown): JsonObject | undefined {
  if (!isMcpError(error) || error.kind !== "protocol" || error.reason !== "input_required") {
    return undefined;
  }
  const data = error.data;
  return isObject(data) && data.resultType === "input_required" ? data : undefined;
}

/**
 * Whether a request's own `_meta` declares the tasks extension in its client capabilities (a
 * modern server may then answer with a task).
 *
 * @param params The request's params as the caller gave them.
 * @returns `true` when `io.modelcontextprotocol/tasks` is declared.
 */
export function declaresTasks(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  const declared = isObject(meta) ? meta[META_CLIENT_CAPABILITIES] : undefined;
  const extensions = isObject(declared) ? declared.extensions : undefined;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/**
 * Checks a modern result's `resultType` and returns the final result: `"complete"` or absent
 * is final; `"input_required"` is thrown for the MRTR driver (on `tools/call`, `prompts/get`
 * and `resources/read`; on any other method it is invalid); `"task"` is final on a request
 * that declared the tasks extension (see {@linkcode declaresTasks}), else unexpected; anything
 * else is invalid.
 *
 * @param method The request's method.
 * @param result The result object.
 * @param task Whether the request declared the tasks extension (a task result is then final).
 * @returns The result.
 * @throws {McpError} Kind `protocol`: reason `input_required` (the result is the error's
 * `data`), `unexpected_input_required`, `unexpected_task` or `invalid_result_type`.
 */
export function acceptResult(method: string, result: JsonObject, task = false): JsonObject {
  const type = result.resultType;
  if (type === undefined || type === "complete") return result;
  if (type === "input_required") {
    if (!allowsInputRequired(method)) {
      throw new McpError(
        `The server answered ${method} with input_required, which only tools/call, ` +
          "prompts/get and resources/read may return",
        { kind: "protocol", reason: "unexpected_input_required", data: result },
      );
    }
    throw new McpError(
      `The server needs input to answer ${method} (input_required); callTool, getPrompt and ` +
        "readResource answer it with the client's handler",
      { kind: "protocol", reason: "input_required", data: result },
    );
  }
  if (type === "task") {
    if (task && method === "tools/call") return result;
    throw new McpError(`The server answered ${method} with a task the client did not ask for`, {
      kind: "protocol",
      reason: "unexpected_task",
      data: result,
    });
  }
  throw new McpError(`The server answered ${method} with an invalid resultType`, {
    kind: "protocol",
    reason: "invalid_result_type",
    data: { resultType: type },
  });
}

/**
 * What the server asks of the client. Two seams, kept here so the input-handling issue
 * (MRTR and the legacy sampling, elicitation and roots requests) changes one file:
 *
 * - {@linkcode answerServerRequest}: a legacy server's JSON-RPC request to the client. For
 *   now `ping` is answered with `{}` and everything else with `-32601`.
 * - {@linkcode acceptResult}: a modern result's `resultType`. For now only final results are
 *   accepted; `input_required` fails with kind `protocol` until the MRTR driver exists.
 *
 * @module
 */

import type { ClientHandler } from "../protocol/capabilities.ts";
import { McpError } from "../protocol/errors.ts";
import type { JsonObject, JsonRpcRequest, JsonRpcResponse } from "../protocol/jsonrpc.ts";

/**
 * The answer to a request the server sent.
 *
 * @param request The server's request.
 * @param _handler The client's handler (unused until the input issue lands).
 * @returns The JSON-RPC response to send back.
 */
export function answerServerRequest(
  request: JsonRpcRequest,
  _handler?: ClientHandler,
): Promise<JsonRpcResponse> {
  if (request.method === "ping") {
    return Promise.resolve({ jsonrpc: "2.0", id: request.id, result: {} });
  }
  return Promise.resolve({
    jsonrpc: "2.0",
    id: request.id,
    error: { code: -32601, message: `Method not found: ${request.method}` },
  });
}

/**
 * Checks a modern result's `resultType` and returns the final result: `"complete"` or absent
 * is final; `"input_required"` and `"task"` are not supported yet; anything else is invalid.
 *
 * @param method The request's method (for the message).
 * @param result The result object.
 * @returns The result.
 * @throws {McpError} Kind `protocol` for a result this client cannot use.
 */
export function acceptResult(method: string, result: JsonObject): JsonObject {
  const type = result.resultType;
  if (type === undefined || type === "complete") return result;
  if (type === "input_required") {
    throw new McpError(
      `The server needs input to answer ${method} (input_required); this client cannot provide it yet`,
      { kind: "protocol", reason: "input_required", data: result },
    );
  }
  if (type === "task") {
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

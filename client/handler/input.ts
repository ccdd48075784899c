/**
 * What the server asks of the client, in both eras: whether the client can answer an input
 * request (sampling, elicitation, roots) with what it declared, and the answer its handler
 * gives, checked and completed. Used by the legacy server-request inbox
 * (`server_requests.ts`) and the modern MRTR driver (`mrtr.ts`).
 *
 * {@linkcode acceptResult} reads a modern result's `resultType`. An `input_required` result
 * reaches the MRTR driver as an `McpError` of reason `input_required` whose `data` is the
 * result (see {@linkcode inputRequiredOf}); a caller without the driver (`request()`) sees
 * that error.
 *
 * @module
 */

import type { ClientHandler, HandlerContext } from "../../protocol/capabilities.ts";
import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { allowsInputRequired } from "../../protocol/mrtr.ts";
import { META_CLIENT_CAPABILITIES } from "../../protocol/meta.ts";
import { TASKS_EXTENSION } from "../../protocol/tasks.ts";
import { isObject } from "../_json.ts";

/** Why the client cannot answer an input request: the JSON-RPC error a legacy server gets. */
export interface InputProblem {
  /** `-32601` (capability not declared, unknown method) or `-32602` (a mode or option not declared, bad params). */
  code: number;
  /** What is missing, for people. */
  message: string;
}

/** The outcome of asking the handler. */
export type InputOutcome =
  | { ok: true; result: JsonObject }
  | { ok: false; failure: "handler"; error: unknown; message: string }
  | { ok: false; failure: "invalid"; message: string };

/** What each input method is called in messages. */
export function inputKind(method: string): string {
  switch (method) {
    case "sampling/createMessage":
      return "sampling";
    case "elicitation/create":
      return "elicitation";
    case "roots/list":
      return "roots";
  }
  return method;
}

/**
 * Whether the client can answer an input request with the capabilities it declared (which
 * were built from its handler): `undefined` when it can, else the problem.
 *
 * @param method The input request's method.
 * @param params Its params.
 * @param declared The client capabilities declared for the era and version.
 * @returns The problem, or `undefined`.
 */
export function inputProblem(
  method: string,
  params: JsonObject,
  declared: JsonObject,
): InputProblem | undefined {
  switch (method) {
    case "sampling/createMessage": {
      const cap = declared.sampling;
      if (!isObject(cap)) {
        return { code: -32601, message: "The client does not support sampling" };
      }
      if ((params.tools !== undefined || params.toolChoice !== undefined) && !isObject(cap.tools)) {
        return {
          code: -32602,
          message: "Sampling with tools needs the sampling.tools capability, which the client " +
            "did not declare",
        };
      }
      if (!Array.isArray(params.messages)) {
        return { code: -32602, message: "Sampling params need a messages array" };
      }
      return undefined;
    }
    case "elicitation/create": {
      const cap = declared.elicitation;
      if (!isObject(cap)) {
        return { code: -32601, message: "The client does not support elicitation" };
      }
      const mode = params.mode ?? "form";
      if (mode === "form") {
        if (Object.keys(cap).length > 0 && !isObject(cap.form)) {
          return { code: -32602, message: "The client does not support form elicitation" };
        }
        if (!isObject(params.requestedSchema)) {
          return { code: -32602, message: "A form elicitation needs a requestedSchema object" };
        }
        return undefined;
      }
      if (mode === "url") {
        if (!isObject(cap.url)) {
          return { code: -32602, message: "The client does not support URL elicitation" };
        }
        if (typeof params.url !== "string") {
          return { code: -32602, message: "A URL elicitation needs a url" };
        }
        return undefined;
      }
      return { code: -32602, message: `Unknown elicitation mode ${JSON.stringify(mode)}` };
    }
    case "roots/list":
      if (!isObject(declared.roots)) {
        return { code: -32601, message: "The client does not support roots" };
      }
      return undefined;
  }
  return { code: -32601, message: `Method not found: ${method}` };
}

function checkSampling(value: unknown): JsonObject | string {
  if (!isObject(value)) return "it is not an object";
  if (value.role !== "assistant" && value.role !== "user") return "role is not assistant or user";
  if (!isObject(value.content) && !Array.isArray(value.content)) return "content is missing";
  if (typeof value.model !== "string") return "model is not a string";
  const { resultType: _, ...bare } = value;
  return bare;
}

async function checkElicitation(params: JsonObject, value: unknown): Promise<JsonObject | string> {
  if (!isObject(value)) return "it is not an object";
  if (!["accept", "decline", "cancel"].includes(value.action as string)) {
    return "action is not accept, decline or cancel";
  }
  if (value.content !== undefined && !isObject(value.content)) return "content is not an object";
  // The schema's defaults (SEP-1034) load with the first form a server asks for.
  const { withElicitationDefaults } = await import("./elicitation_defaults.ts");
  return withElicitationDefaults(params, value as never) as unknown as JsonObject;
}

function checkRoots(value: unknown): JsonObject | string {
  if (!Array.isArray(value)) return "it is not an array of roots";
  const roots: JsonObject[] = [];
  for (const root of value) {
    if (!isObject(root) || typeof root.uri !== "string" || !root.uri.startsWith("file://")) {
      return "every root needs a file:// uri";
    }
    roots.push({ ...root });
  }
  return { roots };
}

/**
 * Asks the handler for the answer to an input request the client can answer (check with
 * {@linkcode inputProblem} first), then checks the answer and completes it: `resultType` is
 * dropped from a sampling result, an accepted form gets its schema's defaults (SEP-1034),
 * and roots are wrapped as `{ roots }`.
 *
 * @param method The input request's method.
 * @param params Its params.
 * @param handler The client's handler.
 * @param ctx The handler's context.
 * @returns The bare result, or why there is none (never rejects).
 */
export async function answerInput(
  method: string,
  params: JsonObject,
  handler: ClientHandler | undefined,
  ctx: HandlerContext,
): Promise<InputOutcome> {
  const kind = inputKind(method);
  let raw: unknown;
  try {
    if (method === "sampling/createMessage" && handler?.sampling) {
      raw = await handler.sampling(params, ctx);
    } else if (method === "elicitation/create" && handler?.elicitation) {
      raw = await handler.elicitation(params, ctx);
    } else if (method === "roots/list" && handler?.listRoots) {
      raw = await handler.listRoots(ctx);
    } else {
      return { ok: false, failure: "invalid", message: `The client has no ${kind} handler` };
    }
  } catch (error) {
    return { ok: false, failure: "handler", error, message: `The client's ${kind} handler failed` };
  }
  const checked = method === "sampling/createMessage"
    ? checkSampling(raw)
    : method === "elicitation/create"
    ? await checkElicitation(params, raw)
    : checkRoots(raw);
  if (typeof checked === "string") {
    return {
      ok: false,
      failure: "invalid",
      message: `The client's ${kind} handler gave an invalid answer: ${checked}`,
    };
  }
  return { ok: true, result: checked };
}

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

/**
 * The request methods of the client: argument checks and conversion on the way out, result
 * shapes on the way back. Each takes the connection's `request` function.
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { isLogLevel, type LogLevel } from "../../protocol/meta.ts";
import {
  checkCallOptions,
  checkOptions,
  checkToolCall,
  invalid,
  nonEmpty,
  requestOptions,
} from "./_checks.ts";
import { isObject, put } from "../../protocol/json.ts";
import { requestWithInput } from "./mrtr.ts";
import { contentProblem } from "../content.ts";
import type { InputCallOptions, Requester } from "./_requester.ts";
import type {
  CallOptions,
  GetPromptResult,
  ReadResourceResult,
  RequestOptions,
  ToolResult,
} from "../types.ts";

export { checkCallOptions, checkOptions, invalid, requestOptions } from "./_checks.ts";
export type { InputContext, Requester, RequestFn } from "./_requester.ts";

/** The options the MRTR driver takes, out of a call's options. */
function inputOptions(options: CallOptions): InputCallOptions {
  const { assigns, principal } = options;
  return { ...requestOptions(options), assigns, principal };
}

/** Whether `object` has an enumerable key (without listing them). */
function hasKeys(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

/** What a call without options runs with (never handed out to change). */
const NO_INPUT_OPTIONS: InputCallOptions = Object.freeze({});

/**
 * Calls a tool (answering `input_required` rounds with the client's handler).
 *
 * @param requester The connection.
 * @param name The tool.
 * @param args Its arguments, sent as given.
 * @param options Request options, `assigns` and `principal`.
 */
export function callTool(
  requester: Requester,
  name: string,
  args?: Record<string, unknown>,
  options?: CallOptions,
): Promise<ToolResult> {
  let opts: CallOptions;
  try {
    checkToolCall(name, args);
    opts = checkCallOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  return sendToolCall(requester, name, args, opts);
}

/**
 * {@linkcode callTool} with its name, arguments and options already checked.
 *
 * @param requester The connection.
 * @param name The tool.
 * @param args Its arguments, sent as given.
 * @param options Checked request options, `assigns` and `principal`.
 * @param onError What a failed call turns into (it rethrows by default).
 */
export function sendToolCall(
  requester: Requester,
  name: string,
  args: Record<string, unknown> | undefined,
  options: CallOptions,
  onError?: (error: unknown) => Promise<never>,
): Promise<ToolResult> {
  return requestWithInput(
    requester,
    "tools/call",
    { name, arguments: args ?? {} },
    hasKeys(options) ? inputOptions(options) : NO_INPUT_OPTIONS,
  ).then(toolResult, onError);
}

/**
 * A `tools/call` result (or a task's) as a {@linkcode ToolResult}.
 *
 * @param result The result object.
 * @returns The tool result.
 */
export function toolResult(result: JsonObject): ToolResult {
  const content = result.content ?? [];
  if (!Array.isArray(content)) throw invalid("tools/call", "content is not an array");
  const problem = contentProblem(content);
  if (problem !== undefined) throw invalid("tools/call", problem);
  const toolResult: ToolResult = {
    content: content as ToolResult["content"],
    isError: result.isError === true,
  };
  if (result.structuredContent !== undefined) {
    toolResult.structuredContent = result.structuredContent;
  }
  if (isObject(result._meta)) toolResult._meta = result._meta;
  return toolResult;
}

/**
 * Converts prompt arguments to strings: numbers, booleans and bigints with `String`, other
 * non-strings as JSON; `null` and `undefined` are dropped.
 *
 * @param args The caller's arguments.
 * @returns String-valued arguments.
 */
export function promptArguments(args: Record<string, unknown> | undefined): Record<string, string> {
  if (args === undefined) return {};
  if (!isObject(args)) throw new TypeError("args must be an object");
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === null || value === undefined) continue;
    if (typeof value === "function") throw new TypeError(`prompt argument "${key}" is a function`);
    // `put`: an argument named `__proto__` is an argument, not the object's prototype.
    put(out, key, text(value));
  }
  return out;
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value);
  }
  if (typeof value === "symbol") return value.description ?? "";
  return JSON.stringify(value);
}

/**
 * Gets a prompt (answering `input_required` rounds with the client's handler).
 *
 * @param requester The connection.
 * @param name The prompt.
 * @param args Its arguments (converted with {@linkcode promptArguments}).
 * @param options Request options, `assigns` and `principal`.
 */
export async function getPrompt(
  requester: Requester,
  name: string,
  args?: Record<string, unknown>,
  options?: CallOptions,
): Promise<GetPromptResult> {
  nonEmpty("name", name);
  const opts = checkCallOptions(options);
  const params = { name, arguments: promptArguments(args) };
  const result = await requestWithInput(requester, "prompts/get", params, inputOptions(opts));
  if (!Array.isArray(result.messages)) throw invalid("prompts/get", "messages is not an array");
  return result as GetPromptResult;
}

/**
 * Reads a resource (answering `input_required` rounds with the client's handler).
 *
 * @param requester The connection.
 * @param uri The resource's URI.
 * @param options Request options, `assigns` and `principal`.
 */
export async function readResource(
  requester: Requester,
  uri: string,
  options?: CallOptions,
): Promise<ReadResourceResult> {
  nonEmpty("uri", uri);
  const opts = checkCallOptions(options);
  const result = await requestWithInput(requester, "resources/read", { uri }, inputOptions(opts));
  if (!Array.isArray(result.contents)) throw invalid("resources/read", "contents is not an array");
  return result as ReadResourceResult;
}

/**
 * Checks that the server answers: a legacy `ping`, or `server/discover` for a modern server.
 *
 * @param requester The connection.
 * @param options Request options.
 */
export async function ping(requester: Requester, options?: RequestOptions): Promise<void> {
  const opts = checkOptions(options);
  await requester.ready(opts.timeout);
  const method = requester.era() === "modern" ? "server/discover" : "ping";
  await requester.request(method, undefined, { ...requestOptions(opts), progress: false });
}

/**
 * Sets the server's log level: legacy `logging/setLevel`; modern, the level rides in the
 * `_meta` of later requests.
 *
 * @param requester The connection.
 * @param level The level.
 * @param options Request options.
 */
export async function setLogLevel(
  requester: Requester,
  level: LogLevel,
  options?: RequestOptions,
): Promise<void> {
  if (!isLogLevel(level)) throw new TypeError(`"${String(level)}" is not a log level`);
  const opts = checkOptions(options);
  await requester.ready(opts.timeout);
  if (requester.era() === "legacy") {
    await requester.request("logging/setLevel", { level }, {
      ...requestOptions(opts),
      progress: false,
    });
  }
  requester.setLogLevel(level);
}

/**
 * Private: the errors made from what failed outside the client. The stable `reason` of an
 * `McpError` for a JSON-RPC error the server returned, derived from its code (protocol.md
 * §1.6); the one error for an answer that is not a JSON-RPC message, whatever carried it (an
 * HTTP body or event, a stdio line, an in-process message); and the error of a package the
 * client loads on first use (`eventsource-parser`, the OAuth libraries) that does not load,
 * for example when the program's `package.json` or import map does not provide it (no retry
 * can fix that, so it has its own reason). Pure.
 *
 * @module
 */

import { McpError } from "./errors.ts";
import type { DecodeFailure } from "./jsonrpc.ts";

/** The codes that mean something, and their reasons. */
const REASONS: ReadonlyMap<number, string> = new Map([
  [-32700, "parse_error"],
  [-32600, "invalid_request"],
  [-32601, "method_not_found"],
  [-32602, "invalid_params"],
  [-32603, "internal_error"],
  // -32000..-32019 are implementation codes with no meaning, except this one from
  // earlier servers.
  [-32002, "resource_not_found"],
  [-32020, "header_mismatch"],
  [-32021, "missing_required_client_capability"],
  [-32022, "unsupported_protocol_version"],
  // 2025-11-25 only.
  [-32042, "url_elicitation_required"],
]);

/**
 * The reason for a server's JSON-RPC error code: its snake_case name for a code the
 * protocol defines, else `server_error`.
 *
 * @param code The error's `code` (anything: servers send what they like).
 * @returns A stable snake_case reason.
 *
 * @example
 * ```ts
 * import { serverErrorReason } from "./failures.ts";
 *
 * if (serverErrorReason(-32601) !== "method_not_found") throw new Error();
 * if (serverErrorReason(-32001) !== "server_error") throw new Error();
 * ```
 */
export function serverErrorReason(code: unknown): string {
  return (typeof code === "number" ? REASONS.get(code) : undefined) ?? "server_error";
}

/**
 * A server error's message with its code after it, unless the message already names the
 * code (servers built on the official SDKs write `MCP error -32602: …`): the code is said
 * once.
 *
 * @param text The error's `message`.
 * @param code The error's `code`, when it has one.
 * @returns The text for the client's error message.
 *
 * @example
 * ```ts
 * import { withErrorCode } from "./failures.ts";
 *
 * if (withErrorCode("Invalid arguments", -32602) !== "Invalid arguments (-32602)") throw new Error();
 * if (withErrorCode("MCP error -32602: Invalid arguments", -32602) !== "MCP error -32602: Invalid arguments") {
 *   throw new Error();
 * }
 * ```
 */
export function withErrorCode(text: string, code: unknown): string {
  if (code === undefined || code === null) return text;
  const named = String(code);
  const at = text.indexOf(named);
  // The code as a number of its own in the text (not a part of a longer one).
  const alone = at >= 0 && !/\d/.test(text[at + named.length] ?? "") &&
    !/[\d-]/.test(text[at - 1] ?? "");
  return alone ? text : `${text} (${named})`;
}

/** Why an answer was refused: the decoder's reason and description (and a size limit). */
export interface AnswerFailure {
  /** The decoder's reason, or `too_large` for an answer over the transport's limit. */
  reason: DecodeFailure;
  /** What was wrong, for the message. */
  detail: string;
  /** For `too_large`: the limit, in bytes. */
  limit?: number;
}

/**
 * The error of a request whose answer is not a JSON-RPC message: kind `protocol`, reason
 * `malformed_body`, `data.reason` the decoder's reason. An answer over the transport's size
 * limit (`too_large`) is reason `response_too_large` with `data.limit`, as over HTTP.
 *
 * @param what The request, e.g. `the "tools/call" request`.
 * @param failure Why the answer was refused.
 * @param text The answer's text, when known (the message shows its first 60 characters).
 * @returns The error.
 */
export function malformedAnswer(what: string, failure: AnswerFailure, text?: string): McpError {
  if (failure.reason === "too_large") {
    return new McpError(`The server's answer to ${what} is too large (${failure.detail})`, {
      kind: "protocol",
      reason: "response_too_large",
      data: failure.limit === undefined ? {} : { limit: failure.limit },
    });
  }
  const preview = text === undefined
    ? ""
    : `: ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}`;
  return new McpError(
    `The server's answer to ${what} is not a JSON-RPC message (${failure.detail})${preview}`,
    { kind: "protocol", reason: "malformed_body", data: { reason: failure.reason } },
  );
}

/**
 * The error of a lazy import that failed: kind `transport`, reason `dependency_missing`,
 * with the first line of the runtime's words in the message.
 *
 * @param what What failed to load and what for, e.g. `the "eventsource-parser" package`.
 * @param needed What it is needed for, e.g. `to read the server's event stream`.
 * @param error What the import threw.
 * @returns The error.
 */
export function dependencyMissing(what: string, needed: string, error: unknown): McpError {
  const words = String((error as { message?: unknown } | null)?.message ?? "").split("\n")[0]
    .trim();
  return new McpError(
    `Cannot ${needed}: ${what} failed to load${words === "" ? "" : ` (${words})`}`,
    { kind: "transport", reason: "dependency_missing", cause: error },
  );
}

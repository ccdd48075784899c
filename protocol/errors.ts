/**
 * The one error class of the library, {@linkcode McpError}, and its guard; and, private to
 * the package (the entries name only the class, its guard and its kinds), the errors made
 * from what failed outside the client: the stable `reason` of a JSON-RPC error the server
 * returned, derived from its code (protocol.md §1.6), the one error for an answer that is
 * not a JSON-RPC message whatever carried it, the error of a package loaded on first use
 * (the OAuth libraries, the schema validator) that does not load, the error of what the
 * caller's signal cancelled, and any other failure made an `McpError`. (Every layer raises
 * these in the same words; the layers loaded on first use share this module with the start.)
 *
 * @module
 */

import type { DecodeFailure } from "./jsonrpc.ts";

/**
 * What went wrong, as a discriminant to `switch` on.
 *
 * - `protocol`: the peer broke the protocol (bad message, invalid result, unusable era).
 * - `timeout`: a request or wait ran out of time.
 * - `closed`: the client was closed, or gave up reconnecting.
 * - `transport`: the connection failed (process exit, network error).
 * - `auth`: the server wants credentials the client does not have or cannot refresh.
 * - `not_found`: a tool, prompt or cached item is not there.
 * - `denied`: a policy, approver or hook refused the call.
 * - `hook`: a pre-hook failed.
 * - `unavailable`: the client is not ready to answer this.
 * - `pagination_cycle`: a listing went over a pagination cap.
 * - `server`: the server answered with a JSON-RPC error (see `code` and `data`).
 * - `validation`: arguments fail the tool's input schema.
 * - `cancelled`: the caller's signal aborted the request.
 * - `config`: a configuration file cannot be read or is not valid (`data` names the file,
 *   the entry and the key).
 */
export type McpErrorKind =
  | "protocol"
  | "timeout"
  | "closed"
  | "transport"
  | "auth"
  | "not_found"
  | "denied"
  | "hook"
  | "unavailable"
  | "pagination_cycle"
  | "server"
  | "validation"
  | "cancelled"
  | "config";

/** Every {@linkcode McpErrorKind}, for guards and tests. */
export const MCP_ERROR_KINDS: readonly McpErrorKind[] = Object.freeze([
  "protocol",
  "timeout",
  "closed",
  "transport",
  "auth",
  "not_found",
  "denied",
  "hook",
  "unavailable",
  "pagination_cycle",
  "server",
  "validation",
  "cancelled",
  "config",
]);

/** The fields an {@linkcode McpError} is built from. */
export interface McpErrorInit {
  /** What went wrong. */
  kind: McpErrorKind;
  /** A stable snake_case reason, e.g. `no_common_version`. */
  reason?: string;
  /** The JSON-RPC error code, when the server returned one. */
  code?: number;
  /** The JSON-RPC error data, when the server returned some. */
  data?: unknown;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The error every failing client operation rejects with. Misuse of the API (a bad option,
 * a wrong argument type) throws `TypeError` or `RangeError` instead.
 *
 * Messages never carry tokens, secrets or full headers.
 *
 * @example Switch on the kind
 * ```ts
 * import { McpError } from "./errors.ts";
 *
 * const error = new McpError("Cannot reach the server", { kind: "transport", reason: "exited" });
 * if (error.kind !== "transport" || error.reason !== "exited") throw new Error("unexpected");
 * ```
 */
export class McpError extends Error {
  /** What went wrong. */
  readonly kind: McpErrorKind;
  /** A stable snake_case reason. */
  readonly reason: string | undefined;
  /** The JSON-RPC error code, when the server returned one. */
  readonly code: number | undefined;
  /** The JSON-RPC error data, when the server returned some. */
  readonly data: unknown;

  /**
   * Builds an error.
   *
   * @param message A sentence for people, without secrets.
   * @param init The kind, reason, code, data and cause.
   */
  constructor(message: string, init: McpErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "McpError";
    this.kind = init.kind;
    this.reason = init.reason;
    this.code = init.code;
    this.data = init.data;
  }
}

/**
 * Whether `value` is an {@linkcode McpError}, also when it comes from another copy of
 * the package.
 *
 * @param value Anything.
 * @returns `true` for an `McpError`.
 *
 * @example
 * ```ts
 * import { isMcpError, McpError } from "./errors.ts";
 *
 * if (!isMcpError(new McpError("Closed", { kind: "closed" }))) throw new Error("expected true");
 * if (isMcpError(new Error("plain"))) throw new Error("expected false");
 * ```
 */
export function isMcpError(value: unknown): value is McpError {
  if (value instanceof McpError) return true;
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { name?: unknown; kind?: unknown };
  return value instanceof Error && candidate.name === "McpError" &&
    (MCP_ERROR_KINDS as readonly unknown[]).includes(candidate.kind);
}

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
 * import { serverErrorReason } from "./errors.ts";
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
 * import { withErrorCode } from "./errors.ts";
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
 * @param what What failed to load, e.g. `the OAuth libraries`.
 * @param needed What it is needed for, e.g. `authorize with the server`.
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

/**
 * The error of something the caller's signal cancelled: kind `cancelled`, reason `aborted`,
 * with the signal's reason as the cause.
 *
 * @param what What was cancelled (a method, or a client method's name).
 * @param signal The signal that aborted.
 * @returns The error.
 */
export function cancelledError(what: string, signal: AbortSignal | undefined): McpError {
  return new McpError(`${what} was cancelled`, {
    kind: "cancelled",
    reason: "aborted",
    cause: signal?.reason,
  });
}

/**
 * `error` itself when it is an `McpError`, else a kind `transport` error with `message` and
 * `reason` that has `error` as its cause.
 *
 * @param error What was thrown.
 * @param message The message of a new error.
 * @param reason The reason of a new error.
 * @returns An `McpError`.
 */
export function asMcpError(error: unknown, message: string, reason: string): McpError {
  if (isMcpError(error)) return error;
  return new McpError(message, { kind: "transport", reason, cause: error });
}

/**
 * The one error class of the library, {@linkcode McpError}, and its guard.
 *
 * @module
 */

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

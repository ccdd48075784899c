/**
 * Errors across the kept sessions' socket: what a session sends for a failure (name,
 * message, and an `McpError`'s kind, reason, code and data), and the error a command
 * rebuilds from it, so it is described and exits as it would have without the session.
 *
 * @module
 */

import { isMcpError, McpError, type McpErrorKind } from "../mod.ts";

/** A failure as it crosses the socket. */
export interface WireError {
  /** `McpError`, `TypeError`, `AbortError` or another name. */
  name: string;
  /** The message. */
  message: string;
  /** An `McpError`'s kind. */
  kind?: string;
  /** Its reason. */
  reason?: string;
  /** Its JSON-RPC code. */
  code?: number;
  /** Its data. */
  data?: unknown;
}

/** `error` for the socket. */
export function toWire(error: unknown): WireError {
  if (isMcpError(error)) {
    const wire: WireError = { name: "McpError", message: error.message, kind: error.kind };
    if (error.reason !== undefined) wire.reason = error.reason;
    if (error.code !== undefined) wire.code = error.code;
    if (error.data !== undefined) wire.data = error.data;
    return wire;
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}

/**
 * The error a command throws for a failure from its session.
 *
 * @example
 * ```ts
 * import { fromWire, toWire } from "./_keep_errors.ts";
 * import { isMcpError, McpError } from "../mod.ts";
 *
 * const back = fromWire(toWire(new McpError("gone", { kind: "closed", reason: "x" })));
 * if (!isMcpError(back) || back.kind !== "closed" || back.reason !== "x") throw new Error();
 * if (!(fromWire(toWire(new TypeError("bad"))) instanceof TypeError)) throw new Error();
 * ```
 */
export function fromWire(wire: unknown): Error {
  const w = (typeof wire === "object" && wire !== null ? wire : {}) as Partial<WireError>;
  const message = typeof w.message === "string" ? w.message : "the kept session failed";
  if (w.name === "McpError" && typeof w.kind === "string") {
    return new McpError(message, {
      kind: w.kind as McpErrorKind,
      ...(typeof w.reason === "string" ? { reason: w.reason } : {}),
      ...(typeof w.code === "number" ? { code: w.code } : {}),
      ...(w.data !== undefined ? { data: w.data } : {}),
    });
  }
  if (w.name === "TypeError") return new TypeError(message);
  if (w.name === "AbortError") return new DOMException(message, "AbortError");
  return new Error(message);
}

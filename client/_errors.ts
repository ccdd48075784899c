/**
 * Private: the errors several of the client's modules raise in the same words.
 *
 * @module
 */

import { isMcpError, McpError } from "../protocol/errors.ts";
import type { ClientState } from "./types.ts";

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

/**
 * The error of a call that needs a ready connection: kind `unavailable`, reason `not_ready`.
 *
 * @param state The connection's state.
 * @returns The error.
 */
export function notReadyError(state: ClientState): McpError {
  return new McpError(`The client is not ready (${state})`, {
    kind: "unavailable",
    reason: "not_ready",
  });
}

/**
 * Private: which connection failures are worth another attempt. The connect loop asks
 * {@linkcode retryable} after every failed attempt; a failure no attempt can fix (a command
 * that does not exist, a permission the runtime refuses, an endpoint that is not there, a
 * TLS failure, a package that does not load, a required sandbox that no sandbox on this
 * machine can give) ends connecting at once, whatever the `reconnect` settings. When a
 * request answered with an HTTP status is sent again is `_status_retry.ts`' (it loads with
 * the first such answer).
 *
 * @module
 */

import { isMcpError, type McpError } from "../../protocol/errors.ts";

/** The reasons of failures that no later attempt can fix. */
export const FATAL_REASONS: ReadonlySet<string> = new Set([
  "command_not_found",
  "permission_denied",
  "endpoint_not_found",
  "tls",
  "dependency_missing",
  "sandbox_unavailable",
]);

/**
 * Whether `error` is a failure no later attempt can fix.
 *
 * @param error What an attempt failed with.
 * @returns `true` for an `McpError` whose reason is in {@linkcode FATAL_REASONS}.
 */
export function isFatal(error: unknown): boolean {
  return isMcpError(error) && error.reason !== undefined && FATAL_REASONS.has(error.reason);
}

/**
 * Whether the connect loop tries again after an attempt failed with `error`: transport
 * failures and timeouts (unless fatal), and a refused downgrade (the server may come back
 * as the modern server it was).
 *
 * @param error What the attempt failed with.
 * @returns Whether to try again.
 */
export function retryable(error: McpError): boolean {
  if (isFatal(error)) return false;
  return error.kind === "transport" || error.kind === "timeout" ||
    error.reason === "downgrade_refused";
}

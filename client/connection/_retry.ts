/**
 * What is worth another try. A request answered with an HTTP status, and after how long: the
 * policy behind the `retry` option (see `RetryOptions`). And a failed connection: the connect
 * loop asks {@linkcode retryable} after every failed attempt; a failure no attempt can fix (a
 * command that does not exist, a permission the runtime refuses, an endpoint that is not
 * there, a TLS failure, a package that does not load, a required sandbox that no sandbox on
 * this machine can give) ends connecting at once, whatever the `reconnect` settings.
 *
 * @module
 */

import { isMcpError, type McpError } from "../../protocol/errors.ts";
import { backoffDelay } from "../_async.ts";
import type { ResolvedRetry } from "../_resolve_options.ts";

/** Requests that are harmless to send twice: retried on 408, 429 and every 5xx. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  "ping",
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait before sending a request again after `error`, or `undefined` when it must not be
 * retried: the error is not an HTTP status the policy retries for this method, the retries
 * are used up, or the server asks for a longer wait than `maxRetryAfter`.
 *
 * Idempotent methods ({@linkcode IDEMPOTENT_METHODS}) are retried on 408, 429 and 5xx;
 * others (`tools/call` above all) only on 429, and on 503 with `Retry-After`.
 *
 * @param method The request's method.
 * @param error What the request failed with.
 * @param retries How many retries were made already.
 * @param policy The retry settings, or `false`.
 * @param random A source of numbers in [0, 1) for the jitter.
 * @returns Milliseconds to wait, or `undefined`.
 */
export function retryDelay(
  method: string,
  error: unknown,
  retries: number,
  policy: ResolvedRetry | false,
  random: () => number = Math.random,
): number | undefined {
  if (policy === false || retries >= policy.attempts) return undefined;
  if (!isMcpError(error) || error.kind !== "transport" || error.reason !== "http_status") {
    return undefined;
  }
  const data = (error.data ?? {}) as { status?: unknown; retryAfterMs?: unknown };
  const status = typeof data.status === "number" ? data.status : 0;
  const retryAfter = typeof data.retryAfterMs === "number" && data.retryAfterMs >= 0
    ? data.retryAfterMs
    : undefined;
  if (!isRetryableStatus(status)) return undefined;
  if (!IDEMPOTENT_METHODS.has(method)) {
    const notProcessed = status === 429 || (status === 503 && retryAfter !== undefined);
    if (!notProcessed) return undefined;
  }
  if (retryAfter !== undefined && retryAfter > policy.maxRetryAfter) return undefined;
  return Math.max(backoffDelay(retries + 1, policy, random), retryAfter ?? 0);
}

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

/**
 * Private: when a request answered with an HTTP status is worth sending again, and after how
 * long: the policy behind the `retry` option (see `RetryOptions`). It loads with the first
 * such answer; a request that succeeds, or fails otherwise, never needs it.
 *
 * @module
 */

import { isMcpError } from "../../protocol/errors.ts";
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
 * @param backoff The backoff before retry number `attempt` (1 for the first), as the policy
 *   says (`backoffDelay` in `client/_async.ts`, with its jitter: handed in by the dispatcher).
 * @returns Milliseconds to wait, or `undefined`.
 */
export function retryDelay(
  method: string,
  error: unknown,
  retries: number,
  policy: ResolvedRetry | false,
  backoff: (attempt: number) => number,
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
  return Math.max(backoff(retries + 1), retryAfter ?? 0);
}

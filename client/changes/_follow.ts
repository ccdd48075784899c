/**
 * What the change layers share, apart from the start's modules: a caller's own wait for
 * shared work (the client's cache follows a refresh other callers share with it, its
 * subscriptions a listen), and the error of a server without resource subscriptions (the
 * subscriptions' and the listens'). It loads with them.
 *
 * @module
 */

import { cancelledError, McpError } from "../../protocol/errors.ts";
import { startTimer, type Timer } from "../../clock/timer.ts";
import type { Era } from "../../protocol/versions.ts";

/**
 * Waits for `shared` (work that goes on whatever this caller does, such as a refresh other
 * callers share) until `signal` aborts (kind `cancelled`) or `timeout` passes (kind
 * `timeout`), whichever comes first.
 *
 * @param shared The shared work.
 * @param what What the caller called, for the errors.
 * @param signal Stops this caller's wait.
 * @param timeout The longest wait in milliseconds (default: until the work ends).
 * @returns What `shared` resolves with.
 */
export function follow<T>(
  shared: Promise<T>,
  what: string,
  signal: AbortSignal | undefined,
  timeout?: number,
): Promise<T> {
  const timed = timeout !== undefined && Number.isFinite(timeout);
  if (signal === undefined && !timed) return shared;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: Timer | undefined;
    const finish = () => {
      settled = true;
      timer?.clear();
      signal?.removeEventListener("abort", onAbort);
    };
    function onAbort() {
      if (settled) return;
      finish();
      reject(cancelledError(what, signal));
    }
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    shared.then(
      (value) => {
        if (settled) return;
        finish();
        resolve(value);
      },
      (error) => {
        if (settled) return;
        finish();
        reject(error);
      },
    );
    if (!timed) return;
    // Arming a timer may run pending microtasks (Deno's test harness does): re-check.
    const armed = startTimer(() => {
      if (settled) return;
      finish();
      reject(
        new McpError(`${what} gave up waiting after ${timeout} ms (the refresh goes on)`, {
          kind: "timeout",
          reason: "request_timeout",
        }),
      );
    }, timeout);
    if (settled) armed.clear();
    else timer = armed;
  });
}

/**
 * The error of a server without resource subscriptions.
 *
 * @param era The era it speaks.
 * @param cause Why the client knows.
 * @returns Kind `protocol`, reason `subscriptions_not_supported`.
 */
export function subscriptionsNotSupported(era: Era, cause?: unknown): McpError {
  return new McpError(
    era === "legacy"
      ? "The server does not support resource subscriptions (no resources.subscribe capability)"
      : "The server does not support resource subscriptions on subscriptions/listen",
    { kind: "protocol", reason: "subscriptions_not_supported", cause },
  );
}

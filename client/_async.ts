/**
 * Small async helpers (the `@std/async` pieces the client needs): a delay that a signal can
 * cut short, and exponential backoff with jitter. The wait for shared work that a caller can
 * stop without stopping the work is `changes/_follow.ts`, with the layers that share work.
 *
 * @module
 */

import { startTimer, type Timer } from "../clock/timer.ts";

/**
 * Waits `ms` milliseconds; rejects with the signal's reason when it aborts first.
 *
 * @param ms How long to wait.
 * @param signal Stops the wait early.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let timer: Timer | undefined;
    let done = false;
    const onAbort = () => {
      done = true;
      timer?.clear();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    // Arming a timer may run pending microtasks (Deno's test harness does): re-check after.
    const armed = startTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (done) armed.clear();
    else timer = armed;
  });
}

/** Exponential backoff settings. */
export interface Backoff {
  /** The first delay, in milliseconds. */
  initialDelay: number;
  /** The longest delay, in milliseconds. */
  maxDelay: number;
  /** The growth factor per attempt. */
  factor: number;
  /** The fraction of each delay drawn at random (0 = none, 1 = "full jitter"). */
  jitter: number;
}

/**
 * The delay before retry number `attempt` (1 for the first retry): the exponential delay
 * capped at `maxDelay`, of which a `jitter` share is random.
 *
 * @param attempt The retry number, from 1.
 * @param backoff The settings.
 * @param random A source of numbers in [0, 1) (injectable for tests).
 * @returns Milliseconds.
 */
export function backoffDelay(
  attempt: number,
  backoff: Backoff,
  random: () => number = Math.random,
): number {
  const exponential = backoff.initialDelay * backoff.factor ** Math.max(0, attempt - 1);
  const capped = Math.min(backoff.maxDelay, exponential);
  const jitter = Math.min(1, Math.max(0, backoff.jitter));
  return Math.round(capped * (1 - jitter) + capped * jitter * random());
}

/**
 * The timing loops: sequential latencies, concurrent throughput, and a sleep.
 *
 * @module
 */

import { quantile } from "./_stats.ts";

/** Latencies of `n` calls made one after the other, in milliseconds. */
export async function sequential(
  call: () => Promise<unknown>,
  n: number,
): Promise<{ p50: number; p99: number; mean: number }> {
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call();
    times[i] = performance.now() - start;
  }
  times.sort();
  let sum = 0;
  for (const t of times) sum += t;
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), mean: sum / n };
}

/** Calls per second for `n` calls with `inFlight` outstanding at any time. */
export async function concurrent(
  call: () => Promise<unknown>,
  n: number,
  inFlight: number,
): Promise<{ callsPerSec: number; elapsedMs: number }> {
  let started = 0;
  const lane = async () => {
    while (started < n) {
      started++;
      await call();
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const elapsedMs = performance.now() - start;
  return { callsPerSec: n / (elapsedMs / 1000), elapsedMs };
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

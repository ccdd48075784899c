/**
 * The worker protocol: a worker prints one result line, the driver runs the worker process
 * and reads it (or its error).
 *
 * @module
 */

import { readText, spawn } from "./_process.ts";

const RESULT_PREFIX = "BENCH_RESULT ";

/** A worker's result: metric name → value (numbers; NaN when not measured). */
export type Metrics = Record<string, number>;

/** Prints a worker's result line for the driver. */
export function emitResult(result: Record<string, unknown>): void {
  console.log(RESULT_PREFIX + JSON.stringify(result));
}

/**
 * Runs one worker process and returns its result, or `{ error }` when it failed (with the
 * tail of its stderr) or exceeded `timeoutMs`.
 */
export async function runWorker(
  argv: string[],
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const child = spawn(argv, { stderr: "pipe" });
  child.endInput();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  const [out, err, code] = await Promise.all([
    readText(child.stdout),
    readText(child.stderr!),
    child.exited,
  ]);
  clearTimeout(timer);
  const line = out.split("\n").find((l) => l.startsWith(RESULT_PREFIX));
  if (line !== undefined && code === 0) return JSON.parse(line.slice(RESULT_PREFIX.length));
  const why = timedOut ? `timed out after ${timeoutMs} ms` : `exit code ${code}`;
  return { error: `${why}: ${err.trim().split("\n").slice(-6).join(" | ").slice(0, 600)}` };
}

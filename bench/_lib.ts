/**
 * The benchmarks' shared pieces, each in its own file: the runtime (`_runtime.ts`), child
 * processes (`_process.ts`), flags (`_flags.ts`), statistics (`_stats.ts`), timing loops
 * (`_timing.ts`), the worker protocol (`_worker.ts`) and the report (`_report.ts`). This
 * file re-exports them all, for benchmarks that want one import.
 *
 * @module
 */

export { numberFlag, parseFlags } from "./_flags.ts";
export { type Child, readLines, readText, spawn, type SpawnOptions } from "./_process.ts";
export { contextLine, fmt, goalLine, printTable } from "./_report.ts";
export {
  DENO_FLAGS,
  execPath,
  exit,
  gc,
  loadAverage,
  rss,
  type Runtime,
  runtime,
  runtimeArgv,
  scriptArgs,
} from "./_runtime.ts";
export { median, pick, quantile, ratio, type Row } from "./_stats.ts";
export { concurrent, sequential, sleep } from "./_timing.ts";
export { emitResult, type Metrics, runWorker } from "./_worker.ts";

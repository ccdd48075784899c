/**
 * Shared pieces of the benchmarks: which runtime runs them, processes, timing loops,
 * statistics and the table printer. Benchmarks are not part of the published package, so
 * this file may talk to `Deno` and `Bun` directly (through local structural types).
 *
 * @module
 */

export type Runtime = "deno" | "bun";

interface DenoChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number }>;
  kill(signal?: string): void;
}
interface DenoLike {
  args: string[];
  execPath(): string;
  memoryUsage(): { rss: number };
  env: { toObject(): Record<string, string> };
  Command: new (command: string, options: {
    args: string[];
    stdin: "piped" | "null";
    stdout: "piped" | "null" | "inherit";
    stderr: "piped" | "null" | "inherit";
    env?: Record<string, string>;
  }) => { spawn(): DenoChild };
  exit(code: number): never;
  loadavg(): number[];
}
interface BunSink {
  write(chunk: string | Uint8Array): number;
  flush(): unknown;
  end(): unknown;
}
interface BunChild {
  readonly pid: number;
  readonly stdin: BunSink;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exited: Promise<number>;
  kill(signal?: string): void;
}
interface BunLike {
  argv: string[];
  spawn(command: string[], options: {
    stdin: "pipe" | "ignore";
    stdout: "pipe" | "ignore" | "inherit";
    stderr: "pipe" | "ignore" | "inherit";
    env?: Record<string, string | undefined>;
  }): BunChild;
  gc(force: boolean): void;
  env: Record<string, string | undefined>;
  file(path: string): { text(): Promise<string> };
}
interface ProcessLike {
  execPath: string;
  memoryUsage(): { rss: number };
  exit(code: number): never;
}

const g = globalThis as unknown as {
  Deno?: DenoLike;
  Bun?: BunLike;
  process?: ProcessLike;
  gc?: () => void;
};

/** The runtime running this file. */
export const runtime: Runtime = g.Bun !== undefined ? "bun" : "deno";

/** Permissions every benchmark process gets under Deno: no network but 127.0.0.1. */
export const DENO_FLAGS: readonly string[] = [
  "--no-lock",
  "-q",
  "--allow-read",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
  "--allow-net=127.0.0.1",
];

/** The command line arguments after the script. */
export function scriptArgs(): string[] {
  return runtime === "bun" ? g.Bun!.argv.slice(2) : g.Deno!.args;
}

/** The resident set size of this process, in bytes. */
export function rss(): number {
  return runtime === "bun" ? g.process!.memoryUsage().rss : g.Deno!.memoryUsage().rss;
}

/** Forces a full garbage collection when the runtime allows it; says whether it did. */
export function gc(): boolean {
  if (runtime === "bun") {
    g.Bun!.gc(true);
    return true;
  }
  if (typeof g.gc === "function") {
    g.gc();
    return true;
  }
  return false;
}

/** Exits the process. */
export function exit(code: number): never {
  return runtime === "bun" ? g.process!.exit(code) : g.Deno!.exit(code);
}

/** The path of this runtime's executable. */
export function execPath(): string {
  return runtime === "bun" ? g.process!.execPath : g.Deno!.execPath();
}

/** The argv that runs `script` under this runtime (`extraDeno` goes to `deno run` only). */
export function runtimeArgv(
  script: string,
  args: readonly string[] = [],
  extraDeno: readonly string[] = [],
): string[] {
  return runtime === "bun"
    ? [execPath(), script, ...args]
    : [execPath(), "run", ...DENO_FLAGS, ...extraDeno, script, ...args];
}

/** A child process with piped stdio, the same shape under both runtimes. */
export interface Child {
  readonly pid: number;
  write(bytes: Uint8Array): void;
  endInput(): void;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array> | null;
  readonly exited: Promise<number>;
  kill(signal?: string): void;
}

/** How to spawn: which outputs to pipe (default stdout only) and extra variables. */
export interface SpawnOptions {
  stdout?: "pipe" | "ignore";
  stderr?: "pipe" | "ignore";
  env?: Record<string, string>;
}

/** Spawns `argv` with piped stdin (and stdout, and stderr when asked). */
export function spawn(argv: string[], options: SpawnOptions = {}): Child {
  const stderr = options.stderr ?? "ignore";
  const stdout = options.stdout ?? "pipe";
  if (runtime === "bun") {
    const child = g.Bun!.spawn(argv, {
      stdin: "pipe",
      stdout,
      stderr,
      env: { ...g.Bun!.env, ...options.env },
    });
    return {
      pid: child.pid,
      write(bytes) {
        child.stdin.write(bytes);
        child.stdin.flush();
      },
      endInput() {
        child.stdin.end();
      },
      stdout: stdout === "pipe" ? child.stdout : new ReadableStream(),
      stderr: stderr === "pipe" ? child.stderr : null,
      exited: child.exited,
      kill: (signal) => child.kill(signal),
    };
  }
  const deno = g.Deno!;
  const child = new deno.Command(argv[0], {
    args: argv.slice(1),
    stdin: "piped",
    stdout: stdout === "pipe" ? "piped" : "null",
    stderr: stderr === "pipe" ? "piped" : "null",
    env: options.env,
  }).spawn();
  const writer = child.stdin.getWriter();
  return {
    pid: child.pid,
    write(bytes) {
      writer.write(bytes).catch(() => {});
    },
    endInput() {
      writer.close().catch(() => {});
    },
    stdout: stdout === "pipe" ? child.stdout : new ReadableStream(),
    stderr: stderr === "pipe" ? child.stderr : null,
    exited: child.status.then((s) => s.code),
    kill(signal) {
      try {
        child.kill(signal ?? "SIGTERM");
      } catch {
        // already gone
      }
    },
  };
}

/** Calls `onLine` with each line of `stream` until it ends. */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const end = rest.indexOf("\n", start);
      if (end < 0) break;
      onLine(rest.slice(start, end));
      start = end + 1;
    }
    if (start > 0) rest = rest.slice(start);
  }
  if (rest !== "") onLine(rest);
}

/** Reads a whole stream as text. */
export async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

/** Parses `--key value` and `--flag` arguments. */
export function parseFlags(args: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) continue;
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
      flags.set(arg.slice(2), args[++i]);
    } else flags.set(arg.slice(2), "true");
  }
  return flags;
}

/** A number flag with a default. */
export function numberFlag(flags: Map<string, string>, name: string, fallback: number): number {
  const value = flags.get(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    throw new RangeError(`--${name} must be a positive number`);
  }
  return parsed;
}

// ---- statistics ----------------------------------------------------------------------

/** The `p` quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index];
}

/** The median of values (NaN-free values only; NaN when there are none). */
export function median(values: readonly number[]): number {
  const clean = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (clean.length === 0) return NaN;
  const mid = clean.length >> 1;
  return clean.length % 2 === 1 ? clean[mid] : (clean[mid - 1] + clean[mid]) / 2;
}

// ---- timing loops ----------------------------------------------------------------------

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

// ---- worker protocol -------------------------------------------------------------------

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

// ---- printing --------------------------------------------------------------------------

/** Formats a number for a table cell. */
export function fmt(value: unknown, digits = 2): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return "–";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(digits);
}

/** Prints rows as an aligned text table. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}

/** One goal line: `label  value  goal  PASS/FAIL`. */
export function goalLine(
  label: string,
  value: number,
  pass: (v: number) => boolean,
  goal: string,
  unit = "×",
): string {
  const digits = unit === "×" ? 2 : unit === "" ? 0 : 3;
  const shown = Number.isFinite(value) ? `${value.toFixed(digits)}${unit}` : "–";
  const verdict = Number.isFinite(value) ? (pass(value) ? "PASS" : "FAIL") : "n/a";
  return `  ${verdict.padEnd(4)}  ${label.padEnd(58)} ${shown.padStart(9)}   (goal ${goal})`;
}

// ---- results over runs -------------------------------------------------------------------

/** One worker result, tagged with its run, client, server and case. */
export type Row = Record<string, unknown>;

/** The numeric `metric` of the rows matching every key of `filter`. */
export function pick(rows: Row[], filter: Row, metric: string): number[] {
  return rows
    .filter((r) => Object.entries(filter).every(([k, v]) => r[k] === v))
    .map((r) => r[metric])
    .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
}

/** The median over runs of a per-run comparison of `a` with `b` (default: the ratio a/b). */
export function ratio(
  rows: Row[],
  runs: number,
  a: [Row, string],
  b: [Row, string],
  compare: (x: number, y: number) => number = (x, y) => x / y,
): number {
  const per: number[] = [];
  for (let run = 0; run < runs; run++) {
    const x = pick(rows, { ...a[0], run }, a[1])[0];
    const y = pick(rows, { ...b[0], run }, b[1])[0];
    if (x !== undefined && y !== undefined) per.push(compare(x, y));
  }
  return median(per);
}

/** The 1/5/15-minute load averages, for the report (2 cores: above ~2 the figures are noisy). */
export async function loadAverage(): Promise<string> {
  try {
    const values = runtime === "bun"
      ? (await g.Bun!.file("/proc/loadavg").text()).split(" ").slice(0, 3).map(Number)
      : g.Deno!.loadavg();
    return values.map((v) => v.toFixed(2)).join(" / ");
  } catch {
    return "unknown";
  }
}

/** A context line: like a goal line, without a verdict. */
export function contextLine(label: string, value: number, unit = "×"): string {
  return goalLine(label, value, () => true, "–", unit).replace("PASS", "    ").replace(
    "   (goal –)",
    "",
  );
}

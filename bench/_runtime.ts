/**
 * Which runtime runs a benchmark and what the benchmarks need of it: argv, memory, gc,
 * exit, its executable, the load average. Benchmarks are not part of the published
 * package, so this file may talk to `Deno` and `Bun` directly (through local structural
 * types).
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
    detached?: boolean;
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
    detached?: boolean;
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

/** The runtimes' globals, as far as the benchmarks use them (for `_process.ts` too). */
export const g = globalThis as unknown as {
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

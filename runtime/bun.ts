/**
 * The Bun side of `spawn.ts`: `Bun.spawn` and `Bun.env`, reached through `globalThis` and
 * the structural types below (no global type declarations).
 *
 * @module
 */

import { childProcess } from "./_child.ts";
import type { ChildProcess, ResolvedSpawn } from "./process.ts";

interface BunFileSink {
  write(chunk: Uint8Array | string): number;
  flush(): number | Promise<number> | undefined;
  end(): number | Promise<number> | undefined;
}

interface BunSubprocess {
  readonly pid: number;
  readonly stdin: BunFileSink;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  kill(signal?: string): void;
}

interface BunLike {
  spawn(command: string[], options: {
    env: Record<string, string>;
    cwd?: string;
    stdin: "pipe";
    stdout: "pipe";
    stderr: "pipe";
    detached: boolean;
  }): BunSubprocess;
  env: Record<string, string | undefined>;
}

interface ProcessLike {
  stderr: { write(chunk: Uint8Array): unknown };
  platform: string;
  pid: number;
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
  listenerCount(event: string): number;
  /** Signals a process, or (negative `pid`) a process group; 0 only checks. */
  kill(pid: number, signal: string | number): unknown;
}

function nodeProcess(): ProcessLike {
  return (globalThis as unknown as { process: ProcessLike }).process;
}

function bun(): BunLike {
  return (globalThis as unknown as { Bun: BunLike }).Bun;
}

/**
 * Reads parent variables.
 *
 * @param names The names to read, or `"all"`.
 * @returns The variables that are set.
 */
export function bunReadEnv(names: readonly string[] | "all"): Record<string, string> {
  const env = bun().env;
  const result: Record<string, string> = {};
  for (const name of names === "all" ? Object.keys(env) : names) {
    const value = env[name];
    if (typeof value === "string") result[name] = value;
  }
  return result;
}

/**
 * Writes `chunk` to Bun's stdin sink and flushes it: `undefined` when the pipe took it all at
 * once, else a promise that settles when it has.
 */
function writeToSink(sink: BunFileSink, chunk: Uint8Array | string): Promise<void> | undefined {
  sink.write(chunk);
  const flushed = sink.flush();
  return flushed instanceof Promise ? flushed.then(() => {}) : undefined;
}

/** Bun's stdin is a `FileSink`; this gives it the `WritableStream` face of the contract. */
function writableFromSink(sink: BunFileSink): WritableStream<Uint8Array> {
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    await sink.end();
  };
  return new WritableStream<Uint8Array>({
    write: (chunk) => writeToSink(sink, chunk),
    close: end,
    async abort() {
      try {
        await end();
      } catch {
        // The pipe is already gone.
      }
    },
  });
}

/**
 * Spawns under Bun, in a process group of its own outside Windows (`detached`, which
 * calls `setsid`). Throws the runtime's error when the process cannot start.
 *
 * @param options The resolved launch request.
 * @returns The running process.
 */
export function bunSpawn(options: ResolvedSpawn): ChildProcess {
  const proc = nodeProcess();
  // A new session and process group (setsid), so the whole tree can be signalled; Bun's
  // subprocess signals only its own pid, so the group goes through `process.kill(-pid)`.
  const grouped = options.group && proc.platform !== "win32";
  const child = bun().spawn([options.command, ...options.args], {
    env: options.env,
    cwd: options.cwd,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    detached: grouped,
  });
  return childProcess({
    pid: child.pid,
    stdin: writableFromSink(child.stdin),
    // The stdio link coalesces its lines itself: the stream's queue would only add turns.
    writeNow: (text) => writeToSink(child.stdin, text),
    stdout: child.stdout,
    stderr: child.stderr,
    status: child.exited.then((code) => ({
      code: child.signalCode ? null : (child.exitCode ?? code),
      signal: child.signalCode ?? null,
    })),
    kill: (signal) => child.kill(signal),
    killGroup: grouped ? (signal) => void proc.kill(-child.pid, signal) : undefined,
  });
}

/**
 * Writes `chunk` to Bun's stderr (through its Node-compatible `process`); errors are
 * ignored.
 *
 * @param chunk The bytes.
 */
export function bunWriteStderr(chunk: Uint8Array): void {
  try {
    nodeProcess().stderr.write(chunk);
  } catch {
    // Nowhere to report it.
  }
}

/** The operating system Bun runs on (`"linux"`, `"darwin"`, `"win32"`). */
export function bunPlatform(): string {
  return nodeProcess().platform;
}

/**
 * Calls `handler` once when this process gets one of `signals` (Node's `process.on`). After
 * the handler, the signal takes its default course (ending the process) unless the host
 * listens to it too.
 *
 * @param signals The signals.
 * @param handler What to do first; may return a promise.
 */
export function bunOnSignals(
  signals: readonly string[],
  handler: (signal: string) => void | Promise<void>,
): void {
  const process = nodeProcess();
  const listeners = new Map<string, () => void>();
  for (const signal of signals) {
    const listener = () => {
      for (const [name, added] of listeners) process.off(name, added);
      void Promise.resolve(handler(signal)).catch(() => {}).finally(() => {
        // Nobody else listens: end as the signal would have.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    };
    listeners.set(signal, listener);
    process.on(signal, listener);
  }
}

/**
 * The Deno side of `spawn.ts`: `Deno.Command(…).spawn()` and `Deno.env`, reached through
 * `globalThis` and the structural types below (no global type declarations).
 *
 * @module
 */

import { childProcess } from "./_child.ts";
import type { ChildProcess, ResolvedSpawn } from "./process.ts";

interface DenoChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal?: string): void;
}

interface DenoLike {
  Command: new (command: string, options: {
    args: string[];
    env: Record<string, string>;
    clearEnv: boolean;
    cwd?: string;
    stdin: "piped";
    stdout: "piped";
    stderr: "piped";
    detached: boolean;
  }) => { spawn(): DenoChild };
  /** Signals a process, or (negative `pid`) a process group; 0 only checks. */
  kill(pid: number, signal: string | number): void;
  build: { os: string };
  env: { get(name: string): string | undefined; toObject(): Record<string, string> };
  permissions?: {
    querySync?(descriptor: { name: "env"; variable?: string }): { state: string };
  };
  stderr: { writeSync(chunk: Uint8Array): number };
  pid: number;
  addSignalListener(signal: string, handler: () => void): void;
  removeSignalListener(signal: string, handler: () => void): void;
}

function deno(): DenoLike {
  return (globalThis as unknown as { Deno: DenoLike }).Deno;
}

/**
 * Reads parent variables. A variable Deno's permissions hide is treated as unset; without
 * permission to read all of them, `"all"` reads nothing.
 *
 * @param names The names to read, or `"all"`.
 * @returns The variables that are set and readable.
 */
export function denoReadEnv(names: readonly string[] | "all"): Record<string, string> {
  const { env, permissions } = deno();
  // Ask first without prompting: a read Deno would prompt for counts as not permitted.
  const granted = (variable?: string) =>
    permissions?.querySync?.({ name: "env", variable }).state !== "prompt";
  if (names === "all") {
    if (!granted()) return {};
    try {
      return env.toObject();
    } catch {
      return {};
    }
  }
  const result: Record<string, string> = {};
  for (const name of names) {
    if (!granted(name)) continue;
    try {
      const value = env.get(name);
      if (value !== undefined) result[name] = value;
    } catch {
      // Not permitted to read it: leave it out.
    }
  }
  return result;
}

/**
 * The variables of `names` (or, for `"all"`, the environment as a whole) that Deno's
 * permissions keep this process from reading, so a child cannot inherit them.
 *
 * @param names The names a child should inherit, or `"all"`.
 * @returns The hidden names (`["all"]` when the whole environment is hidden).
 */
export function denoHiddenEnv(names: readonly string[] | "all"): string[] {
  const { permissions } = deno();
  const query = permissions?.querySync;
  if (query === undefined) return [];
  const state = (variable?: string) => {
    try {
      return query({ name: "env", variable }).state;
    } catch {
      return "denied";
    }
  };
  if (names === "all") return state() === "granted" ? [] : ["all"];
  return names.filter((name) => state(name) !== "granted");
}

/**
 * Spawns under Deno, in a process group of its own outside Windows (`detached`, which
 * calls `setsid`). Throws the runtime's error when the process cannot start.
 *
 * @param options The resolved launch request.
 * @returns The running process.
 */
export function denoSpawn(options: ResolvedSpawn): ChildProcess {
  const runtime = deno();
  // A new session and process group (setsid), so the whole tree can be signalled.
  const grouped = options.group && runtime.build.os !== "windows";
  const child = new runtime.Command(options.command, {
    args: options.args,
    env: options.env,
    clearEnv: true,
    cwd: options.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: grouped,
  }).spawn();
  return childProcess({
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    status: child.status.then((status) => ({
      code: status.signal ? null : status.code,
      signal: status.signal ?? null,
    })),
    kill: (signal) => child.kill(signal),
    killGroup: grouped ? (signal) => runtime.kill(-child.pid, signal) : undefined,
  });
}

/**
 * Writes all of `chunk` to Deno's stderr; errors (a closed stderr) are ignored.
 *
 * @param chunk The bytes.
 */
export function denoWriteStderr(chunk: Uint8Array): void {
  try {
    let rest = chunk;
    while (rest.length > 0) rest = rest.subarray(deno().stderr.writeSync(rest));
  } catch {
    // Nowhere to report it.
  }
}

/** The operating system Deno runs on, as Node names it (`"linux"`, `"darwin"`, `"win32"`). */
export function denoPlatform(): string {
  const os = deno().build.os;
  return os === "windows" ? "win32" : os;
}

/**
 * Calls `handler` once when this process gets one of `signals` (`Deno.addSignalListener`).
 * Then the listeners are removed and the signal is raised again, so it takes its default
 * course (ending the process); a host that listens to it too hears it a second time.
 *
 * @param signals The signals.
 * @param handler What to do first; may return a promise.
 */
export function denoOnSignals(
  signals: readonly string[],
  handler: (signal: string) => void | Promise<void>,
): void {
  const runtime = deno();
  if (runtime.build.os === "windows") return;
  const listeners = new Map<string, () => void>();
  for (const signal of signals) {
    const listener = () => {
      for (const [name, added] of listeners) runtime.removeSignalListener(name, added);
      void Promise.resolve(handler(signal)).catch(() => {}).finally(() => {
        try {
          runtime.kill(runtime.pid, signal);
        } catch {
          // Not allowed to signal itself (an --allow-run list): nothing more to do.
        }
      });
    };
    listeners.set(signal, listener);
    try {
      runtime.addSignalListener(signal, listener);
    } catch {
      // A signal this platform does not have.
    }
  }
}

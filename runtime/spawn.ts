/**
 * One way to start a child process with piped stdio, over `Deno.Command` and `Bun.spawn`.
 *
 * The child's environment is built on purpose rather than inherited wholesale (see
 * `env.ts`): by default a short list of harmless parent variables plus `env`.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { runtimeName } from "./detect.ts";
import { bunReadEnv, bunSpawn, bunWriteStderr } from "./bun.ts";
import { childEnv, type InheritEnv } from "./env.ts";
import { spawnError } from "./_spawn_error.ts";
import { denoReadEnv, denoSpawn, denoWriteStderr } from "./deno.ts";

/**
 * What to start, for {@linkcode spawnProcess}.
 *
 * @example
 * ```ts
 * import type { SpawnOptions } from "./spawn.ts";
 *
 * const options: SpawnOptions = { command: "node", args: ["server.js"], env: { DEBUG: "1" } };
 * ```
 */
export interface SpawnOptions {
  /** The executable: a name looked up in `PATH`, or a path. */
  command: string;
  /** Its arguments (default none). */
  args?: readonly string[];
  /** Variables for the child, merged over the inherited ones (see `inheritEnv`). */
  env?: Readonly<Record<string, string>>;
  /** Which parent variables the child sees (default `"safe"`). */
  inheritEnv?: InheritEnv;
  /** The working directory (default the parent's). */
  cwd?: string;
}

/**
 * How a child process ended.
 *
 * @example
 * ```ts
 * import type { ExitStatus } from "./spawn.ts";
 *
 * const describe = (s: ExitStatus) => s.signal ? `killed by ${s.signal}` : `exit ${s.code}`;
 * if (describe({ code: null, signal: "SIGKILL" }) !== "killed by SIGKILL") throw new Error();
 * ```
 */
export interface ExitStatus {
  /** The exit code, or `null` when a signal ended the process. */
  code: number | null;
  /** The signal that ended the process (e.g. `"SIGKILL"`), or `null`. */
  signal: string | null;
}

/**
 * A signal {@linkcode ChildProcess.kill} can send.
 *
 * @example
 * ```ts
 * import type { KillSignal } from "./spawn.ts";
 *
 * const signal: KillSignal = "SIGTERM";
 * ```
 */
export type KillSignal = "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGHUP";

/**
 * A running child process with piped stdin, stdout and stderr.
 *
 * @example Stop a process that does not exit by itself
 * ```ts ignore
 * import { spawnProcess } from "./spawn.ts";
 *
 * const child = spawnProcess({ command: "sleep", args: ["60"] });
 * child.stdout.cancel();
 * child.stderr.cancel();
 * child.kill("SIGTERM");
 * console.log(await child.exited); // { code: null, signal: "SIGTERM" }
 * ```
 */
export interface ChildProcess {
  /** The process id. */
  readonly pid: number;
  /** Writes to the child's stdin; closing it sends end-of-file. */
  readonly stdin: WritableStream<Uint8Array>;
  /** The child's stdout. Read or cancel it, or the child may block on a full pipe. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The child's stderr. Read or cancel it, or the child may block on a full pipe. */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles once, when the process has ended. Never rejects. */
  readonly exited: Promise<ExitStatus>;
  /**
   * Sends a signal (default `"SIGTERM"`).
   *
   * @returns `false` when the process had already ended or the signal could not be sent.
   */
  kill(signal?: KillSignal): boolean;
  /**
   * Sends a signal to the child's whole process tree: the child starts in a process group
   * of its own (a new session), so this reaches what a wrapper such as `npx`, `uvx` or
   * `bash -c` started too, even after the child itself has ended. Absent where the
   * platform has no process groups (Windows) or the process came from elsewhere.
   *
   * @returns `false` when no process of the group is left (or it could not be signalled).
   */
  killTree?(signal: KillSignal): boolean;
  /** Whether any process of the child's process group is still alive (see `killTree`). */
  treeAlive?(): boolean;
}

/** The resolved launch request the runtime adapters receive. */
export interface ResolvedSpawn {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** The complete environment of the child. */
  env: Record<string, string>;
  /** The working directory, if set. */
  cwd?: string;
}

/**
 * Starts a child process with piped stdin, stdout and stderr, under Deno or Bun.
 *
 * Outside Windows the child leads a new session and process group (`detached` in both
 * runtimes), so {@linkcode ChildProcess.killTree} can end everything it started. A
 * consequence: a terminal's Ctrl-C (which signals the foreground group) no longer reaches
 * it; it sees its stdin close when this process ends instead.
 *
 * @param options The command, arguments, environment and working directory.
 * @returns The running process.
 * @throws {McpError} kind `transport` (reason `command_not_found`, `permission_denied` or
 * `spawn_failed`) when the process cannot be started; the message names the command only.
 * @throws {TypeError} when `command` is empty or an `env` value is not a string.
 *
 * @example Run a command and read its output
 * ```ts ignore
 * import { spawnProcess } from "./spawn.ts";
 *
 * const child = spawnProcess({ command: "echo", args: ["hello"] });
 * await child.stdin.close();
 * const output = await new Response(child.stdout).text();
 * await child.stderr.cancel();
 * console.log(output.trim(), await child.exited); // hello { code: 0, signal: null }
 * ```
 */
export function spawnProcess(options: SpawnOptions): ChildProcess {
  if (typeof options?.command !== "string" || options.command === "") {
    throw new TypeError("command must be a non-empty string");
  }
  const args = [...(options.args ?? [])].map(String);
  const runtime = runtimeName();
  if (runtime === "other") {
    throw new McpError(
      `Cannot start "${options.command}": stdio needs Deno or Bun`,
      { kind: "transport", reason: "spawn_unsupported" },
    );
  }
  const readParent = runtime === "deno" ? denoReadEnv : bunReadEnv;
  const env = childEnv(options.inheritEnv ?? "safe", options.env, readParent);
  const resolved: ResolvedSpawn = { command: options.command, args, env, cwd: options.cwd };
  try {
    return runtime === "deno" ? denoSpawn(resolved) : bunSpawn(resolved);
  } catch (error) {
    throw spawnError(options.command, error);
  }
}

/**
 * Writes bytes to this process's own stderr (to forward a child's stderr). Does nothing
 * outside Deno and Bun.
 *
 * @param chunk The bytes to write.
 *
 * @example
 * ```ts
 * import { writeParentStderr } from "./spawn.ts";
 *
 * writeParentStderr(new TextEncoder().encode(""));
 * ```
 */
export function writeParentStderr(chunk: Uint8Array): void {
  const runtime = runtimeName();
  if (runtime === "deno") denoWriteStderr(chunk);
  else if (runtime === "bun") bunWriteStderr(chunk);
}

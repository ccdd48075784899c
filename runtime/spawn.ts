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
import type { ChildProcess, ResolvedSpawn } from "./process.ts";

export type { ChildProcess, ExitStatus, KillSignal, ResolvedSpawn } from "./process.ts";

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

/**
 * One way to start a child process with piped stdio, over `Deno.Command` and `Bun.spawn`.
 *
 * The child's environment is built on purpose rather than inherited wholesale (see
 * `env.ts`): by default a short list of harmless parent variables plus `env`. A start that
 * fails is told from the error Deno or Bun threw: a missing command and a refused permission
 * can never succeed on a later attempt, so they get their own reasons (the client gives up on
 * them at once); the runtime's own words go into the message.
 *
 * The process groups of the servers this process started are ended when this process is
 * told to end (SIGTERM, SIGINT, SIGHUP). A server runs in a process group of its own, so a
 * terminal's Ctrl-C and a supervisor's SIGTERM to this process do not reach it, and a server
 * that does not stop when its stdin closes would outlive its host. On one of these signals
 * each live group gets SIGTERM, and SIGKILL after {@linkcode SIGNAL_GRACE_MS} if it is still
 * there; then the signal takes its default course. SIGKILL of the host cannot be caught:
 * what runs in those groups then remains.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { runtimeName } from "./detect.ts";
import { bunOnSignals, bunReadEnv, bunSpawn, bunWriteStderr } from "./bun.ts";
import { childEnv, type InheritEnv } from "./env.ts";
import { denoHiddenEnv, denoOnSignals, denoReadEnv, denoSpawn, denoWriteStderr } from "./deno.ts";
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
  /**
   * Whether the child leads a session and process group of its own (default `true`, outside
   * Windows), so that `killTree` ends what it started too. With `false` it stays in this
   * process's session and group: `killTree` is absent and only the child itself can be
   * signalled. Where Linux schedules by session (`kernel.sched_autogroup_enabled`), a child
   * in a session of its own is also a scheduling group of its own, which on a busy machine
   * can delay each of its wake-ups (see bench/README.md, "The stdio floor").
   */
  processGroup?: boolean;
}

/**
 * Starts a child process with piped stdin, stdout and stderr, under Deno or Bun.
 *
 * Outside Windows the child leads a new session and process group (`detached` in both
 * runtimes; not with `processGroup: false`), so {@linkcode ChildProcess.killTree} can end
 * everything it started. A consequence: a terminal's Ctrl-C (which signals the foreground
 * group) no longer reaches it; it sees its stdin close when this process ends instead.
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
  if (hostEnding()) {
    throw new McpError(`Cannot start "${options.command}": this process is ending`, {
      kind: "transport",
      reason: "host_ending",
    });
  }
  const readParent = runtime === "deno" ? denoReadEnv : bunReadEnv;
  const inherit = options.inheritEnv ?? "safe";
  const env = childEnv(inherit, options.env, readParent);
  if (options.processGroup !== undefined && typeof options.processGroup !== "boolean") {
    throw new TypeError("processGroup must be a boolean");
  }
  const resolved: ResolvedSpawn = {
    command: options.command,
    args,
    env,
    cwd: options.cwd,
    group: options.processGroup ?? true,
  };
  const envWarning = runtime === "deno" ? hiddenEnvWarning(inherit, env) : undefined;
  let child: ChildProcess;
  try {
    child = runtime === "deno" ? denoSpawn(resolved) : bunSpawn(resolved);
  } catch (error) {
    const failure = spawnError(options.command, error);
    if (envWarning === undefined) throw failure;
    throw new McpError(`${failure.message}; ${envWarning}`, {
      kind: "transport",
      reason: failure.reason,
      cause: error,
    });
  }
  if (envWarning !== undefined) child.envWarning = envWarning;
  trackGroup(child);
  return child;
}

/** The variables without which a server usually cannot start (found through PATH, HOME). */
const NEEDED = ["PATH", "HOME"];

/**
 * Under Deno: what to say when the child will miss variables it should inherit because
 * `--allow-env` does not cover them (only those that matter for starting: `PATH`, `HOME`, or
 * the whole environment for `inheritEnv: "all"`), unless `env` gives them.
 */
function hiddenEnvWarning(inherit: InheritEnv, env: Record<string, string>): string | undefined {
  if (inherit === "none") return undefined;
  const wanted = inherit === "all"
    ? "all"
    : (inherit === "safe" ? NEEDED : inherit).filter((name) => env[name] === undefined);
  if (wanted !== "all" && wanted.length === 0) return undefined;
  const hidden = denoHiddenEnv(wanted);
  if (hidden.length === 0) return undefined;
  const what = hidden[0] === "all" ? "the environment" : hidden.join(", ");
  return `Deno may not read ${what}, so the server starts without ${
    hidden[0] === "all" ? "it" : "them"
  }: run deno with --allow-env (or --allow-env=${
    hidden[0] === "all" ? "NAME,…" : hidden.join(",")
  }), or pass them in env`;
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

function detail(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" && message !== "" ? ` (${message})` : "";
}

/**
 * The error for a child process that could not be started.
 *
 * @param command The command (the message names it, never its arguments or environment).
 * @param error What the runtime threw.
 * @returns Kind `transport` with reason `command_not_found` (Deno's `NotFound`, `ENOENT`),
 * `permission_denied` (Deno's `NotCapable` or `PermissionDenied`, `EACCES`, `EPERM`) or
 * `spawn_failed`.
 */
export function spawnError(command: string, error: unknown): McpError {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (name === "NotFound" || code === "ENOENT") {
    return new McpError(
      `Cannot start "${command}": the command (or the working directory) was not found` +
        detail(error),
      { kind: "transport", reason: "command_not_found", cause: error },
    );
  }
  if (
    name === "NotCapable" || name === "PermissionDenied" || code === "EACCES" ||
    code === "EPERM"
  ) {
    return new McpError(`Cannot start "${command}": permission denied${detail(error)}`, {
      kind: "transport",
      reason: "permission_denied",
      cause: error,
    });
  }
  return new McpError(`Cannot start "${command}"${detail(error)}`, {
    kind: "transport",
    reason: "spawn_failed",
    cause: error,
  });
}

// ---- the process groups, ended with the host ------------------------------------------------

/** How long live groups get between SIGTERM and SIGKILL when the host is ending (500 ms). */
export const SIGNAL_GRACE_MS = 500;

/** The signals after which the host ends the groups it started. */
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"];

type Group = Required<Pick<ChildProcess, "killTree" | "treeAlive">>;

const groups = new Set<Group>();
let installed = false;
/** The host is ending: a server started from now on (a reconnect) is ended at once. */
let ending = false;

/** Ends every live group: SIGTERM, then SIGKILL for what is left after the grace period. */
async function endGroups(): Promise<void> {
  ending = true;
  const live = [...groups].filter((group) => group.killTree("SIGTERM"));
  groups.clear();
  const until = Date.now() + SIGNAL_GRACE_MS;
  while (live.some((group) => group.treeAlive()) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const group of live) if (group.treeAlive()) group.killTree("SIGKILL");
}

/**
 * Whether this process was told to end (one of the signals above came): no new server is
 * started then (a reconnect would outlive the host).
 *
 * @returns `true` once a signal came.
 */
export function hostEnding(): boolean {
  return ending;
}

/**
 * Remembers a child's process group, to end it if this process is told to end; forgotten
 * once the child has exited and nothing of its group is left.
 *
 * @param child A child started in a group of its own (with `killTree`).
 *
 * @example
 * ```ts ignore
 * import { spawnProcess } from "./spawn.ts";
 *
 * // spawnProcess tracks every grouped child itself.
 * const child = spawnProcess({ command: "sleep", args: ["1000"] });
 * ```
 */
export function trackGroup(child: ChildProcess): void {
  if (child.killTree === undefined || child.treeAlive === undefined) return;
  const group: Group = { killTree: child.killTree, treeAlive: child.treeAlive };
  groups.add(group);
  void child.exited.then(() => {
    if (!group.treeAlive()) groups.delete(group);
  });
  // Groups whose child exited but whose tree lived on are dropped once they are empty.
  for (const other of groups) if (other !== group && !other.treeAlive()) groups.delete(other);
  if (installed) return;
  installed = true;
  const runtime = runtimeName();
  if (runtime === "deno") denoOnSignals(SIGNALS, endGroups);
  else if (runtime === "bun") bunOnSignals(SIGNALS, endGroups);
}

/**
 * The child-process contract `spawn.ts` returns and the runtime adapters (`deno.ts`,
 * `bun.ts`, `_child.ts`) build: types only, below all of them, so none imports `spawn.ts`.
 *
 * @module
 */

/**
 * How a child process ended.
 *
 * @example
 * ```ts
 * import type { ExitStatus } from "./process.ts";
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
 * import type { KillSignal } from "./process.ts";
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
  /**
   * Writes text to stdin as UTF-8 at once, past the stream's queue, where the runtime's pipe
   * allows it (Bun's, which encodes it into its own buffer): `undefined` when the pipe took
   * every byte, else a promise that settles once it has (and rejects when it cannot). Absent
   * elsewhere: write through `stdin`. A caller using it writes only this way, and closes or
   * aborts through `stdin`.
   */
  readonly writeNow?: (text: string) => Promise<void> | undefined;
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
  /**
   * Set when the child was started without variables it was meant to inherit because this
   * process may not read them (Deno without `--allow-env`): which ones, and the flag to add.
   */
  envWarning?: string;
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
  /** Whether the child leads a session and process group of its own (see `SpawnOptions`). */
  group: boolean;
}

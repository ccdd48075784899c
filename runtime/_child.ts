/**
 * The part of a {@linkcode ChildProcess} both runtime adapters build the same way: an
 * `exited` promise that never rejects, and a `kill` (and, with a process group, `killTree`
 * and `treeAlive`) that reports whether it did anything.
 *
 * @module
 */

import type { ChildProcess, ExitStatus, KillSignal } from "./process.ts";

/** What a runtime's child gives the shared wrapper. */
export interface ChildParts {
  /** The process id. */
  pid: number;
  /** The child's stdin, as a web stream. */
  stdin: WritableStream<Uint8Array>;
  /** Writes to stdin at once, where the runtime can (see `ChildProcess.writeNow`). */
  writeNow?: (text: string) => Promise<void> | undefined;
  /** The child's stdout. */
  stdout: ReadableStream<Uint8Array>;
  /** The child's stderr. */
  stderr: ReadableStream<Uint8Array>;
  /** The runtime's exit promise, already turned into an exit status. */
  status: Promise<ExitStatus>;
  /** Sends a signal; may throw when the process is gone. */
  kill(signal: KillSignal): void;
  /**
   * Sends a signal (0: only checks) to the child's process group; throws when no process
   * of it is left. Absent when the child has no group of its own.
   */
  killGroup?(signal: KillSignal | 0): void;
}

/** Wraps a runtime's child into the {@linkcode ChildProcess} contract. */
export function childProcess(parts: ChildParts): ChildProcess {
  let ended = false;
  const exited = parts.status.then(
    (status) => status,
    (): ExitStatus => ({ code: null, signal: null }),
  ).then((status) => {
    ended = true;
    return status;
  });
  return {
    pid: parts.pid,
    stdin: parts.stdin,
    ...(parts.writeNow === undefined ? {} : { writeNow: parts.writeNow }),
    stdout: parts.stdout,
    stderr: parts.stderr,
    exited,
    kill(signal: KillSignal = "SIGTERM"): boolean {
      if (ended) return false;
      try {
        parts.kill(signal);
        return true;
      } catch {
        return false; // already terminated
      }
    },
    ...(parts.killGroup === undefined ? {} : groupControls(parts, () => ended)),
  };
}

/** Whether a signal failed because no process was there to take it. */
function isGone(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return name === "NotFound" || code === "ESRCH";
}

/**
 * `killTree` and `treeAlive` over a runtime's group signal. When the group cannot be
 * signalled for another reason (Deno with an `--allow-run` list refuses `Deno.kill`), they
 * fall back to the child alone.
 */
function groupControls(
  parts: ChildParts,
  ended: () => boolean,
): Required<Pick<ChildProcess, "killTree" | "treeAlive">> {
  const attempt = (signal: KillSignal | 0): boolean => {
    try {
      parts.killGroup!(signal);
      return true;
    } catch (error) {
      if (isGone(error) || ended()) return false;
      if (signal === 0) return true; // the child lives
      try {
        parts.kill(signal);
        return true;
      } catch {
        return false;
      }
    }
  };
  return { killTree: (signal) => attempt(signal), treeAlive: () => attempt(0) };
}

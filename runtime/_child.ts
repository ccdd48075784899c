/**
 * The part of a {@linkcode ChildProcess} both runtime adapters build the same way: an
 * `exited` promise that never rejects, and a `kill` that reports whether it did anything.
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
  /** The child's stdout. */
  stdout: ReadableStream<Uint8Array>;
  /** The child's stderr. */
  stderr: ReadableStream<Uint8Array>;
  /** The runtime's exit promise, already turned into an exit status. */
  status: Promise<ExitStatus>;
  /** Sends a signal; may throw when the process is gone. */
  kill(signal: KillSignal): void;
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
  };
}

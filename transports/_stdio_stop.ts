/**
 * Private: how a stdio link ends its server's process tree. The child runs in a process
 * group of its own (see `runtime/spawn.ts`), so what a wrapper (`npx`, `uvx`, `bash -c`)
 * started is signalled with it, even once the wrapper itself has exited.
 *
 * @module
 */

import type { ChildProcess, KillSignal } from "../runtime/spawn.ts";
import { startTimer } from "../clock/timer.ts";

/** How often a terminating process group is checked for survivors. */
const TREE_POLL_MS = 25;
/** The least time a SIGKILLed tree is given to go. */
const KILL_WAIT_MS = 1_000;

/** The grace periods of {@linkcode endProcessTree}. */
export interface StopGrace {
  /** Milliseconds between closing stdin and SIGTERM. */
  closeGracePeriod: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  terminateGracePeriod: number;
}

/** Resolves `true` when `promise` settles within `ms`, `false` otherwise. */
export function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = startTimer(() => resolve(false), ms);
    promise.then(
      () => (timer.clear(), resolve(true)),
      () => (timer.clear(), resolve(true)),
    );
  });
}

/**
 * Ends `child` and everything it started, once its stdin was closed: after
 * `closeGracePeriod` SIGTERM goes to the whole process group, after `terminateGracePeriod`
 * SIGKILL. A child without a process group (another platform, an injected spawner) is
 * signalled alone, as before.
 *
 * @param child The server process.
 * @param grace The grace periods.
 */
export async function endProcessTree(child: ChildProcess, grace: StopGrace): Promise<void> {
  let exited = false;
  void child.exited.then(() => exited = true);
  const alive = () => child.treeAlive?.() ?? !exited;
  const signal = (name: KillSignal) => child.killTree?.(name) ?? child.kill(name);
  const gone = async (ms: number): Promise<boolean> => {
    if (child.treeAlive === undefined) return await within(child.exited, ms);
    const end = Date.now() + ms;
    while (alive()) {
      const left = end - Date.now();
      if (left <= 0) return false;
      // Wakes at once when the child itself exits; what it started is polled.
      await within(child.exited, Math.min(TREE_POLL_MS, left));
    }
    return true;
  };
  await within(child.exited, grace.closeGracePeriod);
  if (!alive()) return;
  signal("SIGTERM");
  if (await gone(grace.terminateGracePeriod)) return;
  signal("SIGKILL");
  await gone(Math.max(grace.terminateGracePeriod, KILL_WAIT_MS));
}

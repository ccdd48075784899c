/**
 * The process groups of the servers this process started, ended when this process is told
 * to end (SIGTERM, SIGINT, SIGHUP). A server runs in a process group of its own, so a
 * terminal's Ctrl-C and a supervisor's SIGTERM to this process do not reach it, and a
 * server that does not stop when its stdin closes would outlive its host. On one of these
 * signals each live group gets SIGTERM, and SIGKILL after {@linkcode SIGNAL_GRACE_MS} if it
 * is still there; then the signal takes its default course. SIGKILL of the host cannot be
 * caught: what runs in those groups then remains.
 *
 * @module
 */

import { bunOnSignals } from "./bun.ts";
import { denoOnSignals } from "./deno.ts";
import { runtimeName } from "./detect.ts";
import type { ChildProcess } from "./process.ts";

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

/**
 * The stages after a call, kept for the calls that answered with a server task
 * (`task: "return"`): a governed client or hub runs them on what `awaitTask` brings back, so
 * a task's final result passes the output check and the `afterCall` hooks as a plain call's
 * does, with the tool, arguments and caller of the call that started it.
 *
 * Only a task this client (or hub) started is known: awaiting any other task id (one another
 * client started, or one dropped past the {@linkcode MAX_TASKS} kept) fails with kind
 * `not_found`, reason `unknown_task`, since no stage could say which tool's rules apply.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { isTask, type Task } from "../protocol/tasks.ts";
import type { Finish } from "./pipeline.ts";

/** How many started tasks are kept (the oldest is dropped past it). */
export const MAX_TASKS = 1_000;

/** The kept stages of started tasks. */
export interface TaskResults {
  /** Keeps `finish` for `answer` when it is a task (anything else is ignored). */
  started(answer: unknown, finish: Finish): void;
  /**
   * The stages kept for `task`, to run on its final result.
   *
   * @throws {McpError} kind `not_found`, reason `unknown_task`, for a task not kept.
   */
  stagesOf(task: Task | string): Finish;
}

/**
 * Creates the store of started tasks' stages.
 *
 * @param max How many tasks to keep (default {@linkcode MAX_TASKS}).
 * @returns The store.
 *
 * @example
 * ```ts
 * import { taskResults } from "./task_results.ts";
 *
 * const tasks = taskResults();
 * const task = { taskId: "t1", status: "working", createdAt: "", lastUpdatedAt: "", ttlMs: null };
 * tasks.started(task, (result) => Promise.resolve({ ...result, content: [] }));
 * const finish = tasks.stagesOf("t1");
 * const done = await finish({ content: [{ type: "text", text: "x" }], isError: false });
 * if (done.content.length !== 0) throw new Error("unexpected");
 * let reason;
 * try {
 *   tasks.stagesOf("t2");
 * } catch (error) {
 *   reason = (error as { reason?: string }).reason;
 * }
 * if (reason !== "unknown_task") throw new Error("unexpected");
 * ```
 */
export function taskResults(max: number = MAX_TASKS): TaskResults {
  // [server or "", id] as JSON → the stages; a hub's tasks name their server, and two
  // servers may use the same ids.
  const kept = new Map<string, Finish>();
  const keyOf = (server: unknown, id: string) =>
    JSON.stringify([typeof server === "string" ? server : "", id]);
  const find = (task: Task | string): Finish | undefined => {
    const taskId = typeof task === "string" ? task : task?.taskId;
    if (typeof taskId !== "string") return undefined;
    const server = typeof task === "object" ? (task as { server?: unknown }).server : undefined;
    if (server !== undefined) return kept.get(keyOf(server, taskId));
    const plain = kept.get(keyOf(undefined, taskId));
    if (plain !== undefined) return plain;
    // A bare id: only when exactly one server's task has it.
    let found: Finish | undefined;
    for (const [key, finish] of kept) {
      if ((JSON.parse(key) as [string, string])[1] !== taskId) continue;
      if (found !== undefined) return undefined;
      found = finish;
    }
    return found;
  };
  return {
    started(answer, finish) {
      if (!isTask(answer)) return;
      const key = keyOf((answer as { server?: unknown }).server, answer.taskId);
      kept.delete(key);
      kept.set(key, finish);
      if (kept.size > max) kept.delete(kept.keys().next().value as string);
    },
    stagesOf(task) {
      const finish = find(task);
      if (finish === undefined) {
        throw new McpError(
          "This governed client did not start the task: its result cannot pass the output " +
            "check and afterCall",
          { kind: "not_found", reason: "unknown_task" },
        );
      }
      return finish;
    },
  };
}

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
  /**
   * Keeps `finish` for `answer` when it is a task (anything else is ignored), under `server`
   * when the store serves several (a hub's: two servers may use the same task ids).
   */
  started(answer: unknown, finish: Finish, server?: string): void;
  /**
   * The stages kept for `task` of `server`, to run on its final result.
   *
   * @throws {McpError} kind `not_found`, reason `unknown_task`, for a task not kept.
   */
  stagesOf(task: Task | string, server?: string): Finish;
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
  // [server, id] as JSON → the stages.
  const kept = new Map<string, Finish>();
  const keyOf = (server: string | undefined, id: string) => JSON.stringify([server ?? "", id]);
  return {
    started(answer, finish, server) {
      if (!isTask(answer)) return;
      const key = keyOf(server, answer.taskId);
      kept.delete(key);
      kept.set(key, finish);
      if (kept.size > max) kept.delete(kept.keys().next().value as string);
    },
    stagesOf(task, server) {
      const taskId = typeof task === "string" ? task : task?.taskId;
      const finish = typeof taskId === "string" ? kept.get(keyOf(server, taskId)) : undefined;
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

/**
 * Private: the server tasks a hub's calls started (`task: "return"`), by id, so
 * `getTask`, `awaitTask` and `cancelTask` reach the server that runs each. The oldest ids
 * are forgotten past {@linkcode MAX_TASKS}.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { isTask, type Task } from "../protocol/tasks.ts";

/** How many task ids a hub remembers. */
export const MAX_TASKS = 10_000;

/** The task ids a hub's calls started, and their servers. */
export interface TaskOwners {
  /** Remembers the server of `result` when it is a task; returns `result`. */
  note<T>(result: T, server: string): T;
  /**
   * The server of a task.
   *
   * @throws {McpError} kind `not_found`, reason `unknown_task`.
   */
  ownerOf(task: Task | string): string;
}

/**
 * Creates the table.
 *
 * @returns It.
 */
export function createTaskOwners(): TaskOwners {
  const owners = new Map<string, string>();
  return {
    note(result, server) {
      if (isTask(result)) {
        owners.delete(result.taskId);
        owners.set(result.taskId, server);
        if (owners.size > MAX_TASKS) owners.delete(owners.keys().next().value!);
      }
      return result;
    },
    ownerOf(task) {
      const id = typeof task === "string" ? task : task?.taskId;
      const server = typeof id === "string" ? owners.get(id) : undefined;
      if (server === undefined) {
        throw new McpError(`No call of the hub started task ${String(id)}`, {
          kind: "not_found",
          reason: "unknown_task",
          data: { taskId: id },
        });
      }
      return server;
    },
  };
}

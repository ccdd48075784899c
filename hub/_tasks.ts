/**
 * Private: the server tasks a hub's calls started (`task: "return"`), keyed by server and
 * id (two servers may well use the same ids), so `getTask`, `awaitTask` and `cancelTask`
 * reach the server that runs each. The task a hub's call returns names its server in a
 * `server` field, and a task given back is routed by it; a bare id (or a task without
 * `server`) is routed only while exactly one server's task has that id, never guessed. The
 * oldest tasks are forgotten past {@linkcode MAX_TASKS}.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { isTask, type Task } from "../protocol/tasks.ts";

/** How many tasks a hub remembers. */
export const MAX_TASKS = 10_000;

/** The tasks a hub's calls started, and their servers. */
export interface TaskOwners {
  /** Remembers the server of `result` when it is a task; returns it naming its server. */
  note<T>(result: T, server: string): T;
  /**
   * The server of a task.
   *
   * @throws {McpError} kind `not_found`, reason `unknown_task`; or reason `ambiguous_task`
   * for a bare id that tasks of several servers have.
   */
  ownerOf(task: Task | string): string;
}

const key = (server: string, id: string) => `${server}\0${id}`;

/**
 * Creates the table.
 *
 * @returns It.
 */
export function createTaskOwners(): TaskOwners {
  // server\0id → [server, id], oldest first; id → the servers with a task of that id.
  const owners = new Map<string, [string, string]>();
  const ids = new Map<string, Set<string>>();
  const forget = (k: string) => {
    const [server, id] = owners.get(k)!;
    owners.delete(k);
    const servers = ids.get(id)!;
    servers.delete(server);
    if (servers.size === 0) ids.delete(id);
  };
  const unknown = (id: unknown) =>
    new McpError(`No call of the hub started task ${String(id)}`, {
      kind: "not_found",
      reason: "unknown_task",
      data: { taskId: id },
    });
  return {
    note(result, server) {
      if (!isTask(result)) return result;
      const id = result.taskId;
      const k = key(server, id);
      if (owners.has(k)) forget(k);
      owners.set(k, [server, id]);
      const servers = ids.get(id) ?? new Set<string>();
      ids.set(id, servers.add(server));
      if (owners.size > MAX_TASKS) forget(owners.keys().next().value!);
      return { ...result, server } as typeof result;
    },
    ownerOf(task) {
      const id = typeof task === "string" ? task : task?.taskId;
      if (typeof id !== "string") throw unknown(id);
      const named = typeof task === "object" && task !== null
        ? (task as { server?: unknown }).server
        : undefined;
      if (named !== undefined) {
        if (typeof named === "string" && owners.has(key(named, id))) return named;
        throw unknown(id);
      }
      const servers = ids.get(id);
      if (servers === undefined) throw unknown(id);
      if (servers.size > 1) {
        throw new McpError(`Tasks of several servers have id ${id}; pass the task itself`, {
          kind: "not_found",
          reason: "ambiguous_task",
          data: { taskId: id },
        });
      }
      return servers.values().next().value!;
    },
  };
}

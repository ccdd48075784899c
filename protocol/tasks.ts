/**
 * Server tasks on the wire, in both eras: the modern `io.modelcontextprotocol/tasks` extension
 * (a flat `resultType: "task"` result, `tasks/get`, `tasks/update`, `tasks/cancel`) and the
 * legacy 2025-11-25 core tasks (a `{ task }` result with `ttl` and `pollInterval`,
 * `tasks/result`, the related-task `_meta`). One {@linkcode Task} shape for both: plain JSON,
 * so it can be stored and awaited from another process. The extension's key is `meta.ts`'
 * `TASKS_EXTENSION` (with the other reserved keys), and declaring it is `tasks_extension.ts`'.
 *
 * @module
 */

/** The `_meta` key that ties a legacy message to its task (`{ taskId }`). */
export const META_RELATED_TASK = "io.modelcontextprotocol/related-task";

/** Where a task is. `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

const STATUSES: readonly TaskStatus[] = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
];

/**
 * A server task, as `callTool(…, { task: "return" })` returns it and `getTask` reads it. Plain
 * JSON: store it, and `awaitTask` it from another client later.
 */
export interface Task {
  /** The server's id of the task. */
  taskId: string;
  /** Where it is. */
  status: TaskStatus;
  /** A message for people about the status. */
  statusMessage?: string;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** When it last changed (ISO 8601). */
  lastUpdatedAt: string;
  /** How long the server keeps it from `createdAt`, in ms (`null`: no limit). */
  ttlMs: number | null;
  /** How often to poll it at most, in ms, as the server suggests. */
  pollIntervalMs?: number;
}

/**
 * Whether `value` is a {@linkcode Task} (a `taskId` string and a known `status`), as opposed
 * to a tool result.
 *
 * @param value What `callTool` returned, or any value.
 * @returns `true` for a task.
 *
 * @example
 * ```ts
 * import { isTask } from "./tasks.ts";
 *
 * const task = { taskId: "t1", status: "working", createdAt: "", lastUpdatedAt: "", ttlMs: null };
 * if (!isTask(task) || isTask({ content: [], isError: false })) throw new Error("unexpected");
 * ```
 */
export function isTask(value: unknown): value is Task {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.taskId === "string" && STATUSES.includes(v.status as TaskStatus);
}

/**
 * Whether a status is terminal (`completed`, `failed`, `cancelled`).
 *
 * @param status The status.
 * @returns `true` when the task has ended.
 */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/**
 * A {@linkcode Task} from its wire form in either era: legacy `ttl` and `pollInterval` become
 * `ttlMs` and `pollIntervalMs`; other members (the modern `result`, `error`, `inputRequests`)
 * are left out.
 *
 * @param wire The task object the server sent.
 * @returns The task, or why it is not one.
 */
export function parseTask(wire: Record<string, unknown>): Task | string {
  if (typeof wire.taskId !== "string" || wire.taskId === "") return "taskId is not a string";
  if (!STATUSES.includes(wire.status as TaskStatus)) return "status is not a task status";
  const ttl = wire.ttlMs !== undefined ? wire.ttlMs : wire.ttl;
  const poll = wire.pollIntervalMs !== undefined ? wire.pollIntervalMs : wire.pollInterval;
  const task: Task = {
    taskId: wire.taskId,
    status: wire.status as TaskStatus,
    createdAt: typeof wire.createdAt === "string" ? wire.createdAt : "",
    lastUpdatedAt: typeof wire.lastUpdatedAt === "string" ? wire.lastUpdatedAt : "",
    ttlMs: typeof ttl === "number" && ttl >= 0 ? ttl : null,
  };
  if (typeof wire.statusMessage === "string") task.statusMessage = wire.statusMessage;
  if (typeof poll === "number" && poll >= 0) task.pollIntervalMs = poll;
  return task;
}

/**
 * Whether a task has outlived its `ttlMs` (from `createdAt`), as of `now`.
 *
 * @param task The task.
 * @param now The time in ms since the epoch.
 * @returns `true` when the server may have forgotten it.
 */
export function isExpired(task: Task, now: number): boolean {
  if (task.ttlMs === null) return false;
  const created = Date.parse(task.createdAt);
  return Number.isFinite(created) && created + task.ttlMs < now;
}

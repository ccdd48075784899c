/**
 * Reading and cancelling server tasks, in both eras: `tasks/get` and `tasks/cancel` (the
 * modern ones declare the tasks extension, and over HTTP carry `Mcp-Name: <taskId>`, see
 * `protocol/headers.ts`). Awaiting is in `await.ts`, calling a tool as a task in `call.ts`.
 *
 * @module
 */

import { isMcpError } from "../../protocol/errors.ts";
import { isExpired, isTerminal, type Task } from "../../protocol/tasks.ts";
import { checkOptions, requestOptions } from "../requests/_checks.ts";
import type { RequestOptions } from "../types.ts";
import {
  expiredError,
  type TaskContext,
  taskIdOf,
  taskOf,
  type TaskRef,
  taskRequest,
} from "./_context.ts";

export type { TaskContext, TaskNotification, TaskRef } from "./_context.ts";

/**
 * Reads a task's current state (`tasks/get`). A {@linkcode Task} past `createdAt + ttlMs` is
 * not asked for: it is gone.
 *
 * @param ctx The client.
 * @param task The task, or its id.
 * @param options Request options.
 * @returns The task as the server has it now.
 * @throws {McpError} Kind `not_found`, reason `task_expired`, for an unknown or expired task.
 */
export async function getTask(
  ctx: TaskContext,
  task: TaskRef,
  options?: RequestOptions,
): Promise<Task> {
  const taskId = taskIdOf(task);
  const opts = checkOptions(options);
  if (typeof task !== "string" && isExpired(task, Date.now())) throw expiredError(taskId);
  await ctx.requester.ready(opts.timeout);
  const result = await taskRequest(ctx, "tasks/get", { taskId }, requestOptions(opts));
  return taskOf("tasks/get", result);
}

/**
 * Asks the server to cancel a task (`tasks/cancel`). Cancellation is cooperative: the task
 * may still complete or fail, and an `awaitTask` in progress reports what the server says.
 * Resolves when the server acknowledged, with the task's state then; a task that had already
 * ended resolves with that end instead of failing.
 *
 * @param ctx The client.
 * @param task The task, or its id.
 * @param options Request options.
 * @returns The task after the cancel.
 */
export async function cancelTask(
  ctx: TaskContext,
  task: TaskRef,
  options?: RequestOptions,
): Promise<Task> {
  const taskId = taskIdOf(task);
  const opts = checkOptions(options);
  await ctx.requester.ready(opts.timeout);
  const request = requestOptions(opts);
  let acknowledged;
  try {
    acknowledged = await taskRequest(ctx, "tasks/cancel", { taskId }, request);
  } catch (error) {
    // Legacy: -32602 also answers a cancel of a task that already ended.
    if (!isMcpError(error) || error.reason !== "task_expired") throw error;
    const now = await getTask(ctx, taskId, opts);
    if (isTerminal(now.status)) return now;
    throw error;
  }
  if (ctx.requester.era() === "legacy" && typeof acknowledged.taskId === "string") {
    return taskOf("tasks/cancel", acknowledged);
  }
  // Modern: an empty acknowledgment; the server may forget the task once cancelled.
  try {
    return await getTask(ctx, taskId, opts);
  } catch (error) {
    if (!isMcpError(error) || error.reason !== "task_expired") throw error;
    const base = typeof task === "string" ? undefined : task;
    return {
      taskId,
      status: "cancelled",
      createdAt: base?.createdAt ?? "",
      lastUpdatedAt: new Date().toISOString(),
      ttlMs: base?.ttlMs ?? null,
    };
  }
}

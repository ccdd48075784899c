/**
 * Private: what awaiting a task reports: its options checked, each new status to `onStatus`,
 * and the errors of a task that was cancelled or failed.
 *
 * @module
 */

import { McpError, serverErrorReason, withErrorCode } from "../../protocol/errors.ts";
import { checkKeys } from "../../protocol/option_keys.ts";
import type { Task } from "../../protocol/tasks.ts";
import { isObject } from "../../protocol/json.ts";
import { checkMilliseconds } from "../requests/_checks.ts";
import type { AwaitTaskOptions } from "../types.ts";
import type { TaskContext } from "./_context.ts";

/**
 * Checks `awaitTask` options, throwing `TypeError` for a bad one.
 *
 * @param options The caller's options.
 * @returns The same options.
 */
export function checkAwaitOptions(options: AwaitTaskOptions | undefined): AwaitTaskOptions {
  if (options === undefined) return {};
  if (!isObject(options)) throw new TypeError("options must be an object");
  checkKeys(options, ["timeout", "signal", "assigns", "onStatus"], "the awaitTask options");
  const { timeout, signal, assigns, onStatus } = options;
  checkMilliseconds("timeout", timeout);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError('option "signal" must be an AbortSignal');
  }
  if (assigns !== undefined && !isObject(assigns)) {
    throw new TypeError('option "assigns" must be an object');
  }
  if (onStatus !== undefined && typeof onStatus !== "function") {
    throw new TypeError('option "onStatus" must be a function');
  }
  return options;
}

/** Calls `onStatus` with each new status or message (a failing callback is a warning). */
export function reporter(
  ctx: TaskContext,
  onStatus: ((task: Task) => void) | undefined,
  given: Task | undefined,
): (task: Task) => void {
  let last = given === undefined ? undefined : `${given.status}\n${given.statusMessage ?? ""}`;
  return (task) => {
    const now = `${task.status}\n${task.statusMessage ?? ""}`;
    if (now === last || onStatus === undefined) return;
    last = now;
    try {
      onStatus(task);
    } catch (error) {
      ctx.requester.warn(`onStatus failed for task ${task.taskId}: ${String(error)}`);
    }
  };
}

/** A task that ended cancelled (kind `cancelled`, reason `task_cancelled`). */
export function cancelledTask(task: Task): McpError {
  return new McpError(`Task ${task.taskId} was cancelled`, {
    kind: "cancelled",
    reason: "task_cancelled",
    data: task,
  });
}

/** A task that failed: the server's error (kind `server`). */
export function failedTask(task: Task, error: unknown): McpError {
  const e = isObject(error) ? error : {};
  const code = typeof e.code === "number" ? e.code : undefined;
  const message = typeof e.message === "string" ? e.message : task.statusMessage ?? "failed";
  return new McpError(
    `Task ${task.taskId} failed: ${withErrorCode(message, code)}`,
    {
      kind: "server",
      reason: serverErrorReason(code),
      code,
      data: e.data,
    },
  );
}

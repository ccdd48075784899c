/**
 * The client's `callTool`: a plain call goes out here, and the task machinery (`call.ts`,
 * `await.ts`) loads only when the call may run as a task: with the `task` option, or over a
 * legacy server that runs tool tasks (whose tool may require one, `execution.taskSupport`).
 * The options are checked here first, so a misuse fails the same either way.
 *
 * @module
 */

import { nonEmpty } from "../requests/_checks.ts";
import { callTool } from "../requests/requests.ts";
import { isObject } from "../_json.ts";
import type { Task } from "../../protocol/tasks.ts";
import type { ToolCallOptions, ToolResult } from "../types.ts";
import type { TaskContext } from "./_context.ts";
import { checkTaskOptions, serverRunsToolTasks, taskRequired } from "./call_rules.ts";

/**
 * Calls a tool: at once when no task can be involved, else through `callToolTask`.
 *
 * @param ctx The client's task context.
 * @param name The tool.
 * @param args Its arguments.
 * @param options The call's options (`task`, `taskTtl`, `onStatus` and the request options).
 * @returns The result, or the task with `task: "return"`.
 */
export async function routeToolCall(
  ctx: TaskContext,
  name: string,
  args: Record<string, unknown> | undefined,
  options?: ToolCallOptions,
): Promise<ToolResult | Task> {
  nonEmpty("name", name);
  if (args !== undefined && !isObject(args)) throw new TypeError("args must be an object");
  const checked = checkTaskOptions(options);
  const { task, call } = checked;
  const started = Date.now();
  const budget = call.timeout ?? ctx.requestTimeout;
  if (task === undefined && ctx.requester.era() === "legacy") await ctx.requester.ready(budget);
  if (
    task !== undefined ||
    (ctx.requester.era() === "legacy" && serverRunsToolTasks(ctx.serverCapabilities()))
  ) {
    const { callToolTask } = await import("./call.ts");
    // What the wait for the handshake took comes off the call's time.
    return await callToolTask(ctx, name, args, checked, started);
  }
  return await callTool(ctx.requester, name, args, call).catch((error) => {
    throw taskRequired(name, error);
  });
}

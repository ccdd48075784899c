/**
 * The client's `callTool`: a plain call goes out here, and the task machinery (`call.ts`,
 * `await.ts`) loads only when the call may run as a task: with the `task` option, or over a
 * legacy server that runs tool tasks (whose tool may require one, `execution.taskSupport`).
 * The options are checked here first, so a misuse fails the same either way, and whether a
 * legacy server runs tool tasks is read here (the task machinery is handed that rule rather
 * than importing it, so a bundle that loads it on first use shares no module with it for
 * that). A `-32021` is said clearly by `call_rules.ts`, which loads with the first one.
 *
 * @module
 */

import { isMcpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { checkCallOptions, checkMilliseconds, checkToolCall } from "../requests/_checks.ts";
import { sendToolCall } from "../requests/requests.ts";
import { isObject } from "../../protocol/json.ts";
import type { Task } from "../../protocol/tasks.ts";
import type { CallOptions, TaskMode, ToolCallOptions, ToolResult } from "../types.ts";
import type { TaskCallOptions, TaskContext } from "./_context.ts";

/**
 * Whether a legacy server takes task-augmented `tools/call` (`tasks.requests.tools.call`).
 *
 * @param capabilities The server's capabilities.
 * @returns `true` when it declares it.
 */
export function serverRunsToolTasks(capabilities: JsonObject): boolean {
  const tasks = capabilities.tasks;
  const requests = isObject(tasks) ? tasks.requests : undefined;
  const tools = isObject(requests) ? requests.tools : undefined;
  return isObject(tools) && tools.call !== undefined && tools.call !== false;
}

/** What a call without options runs with (checked once; never handed out to change). */
const NO_TASK_OPTIONS: TaskCallOptions = Object.freeze({
  task: undefined,
  taskTtl: undefined,
  onStatus: undefined,
  call: Object.freeze({}) as CallOptions,
});

/** The task options of a call, checked, and the rest of its options. */
export function checkTaskOptions(options: ToolCallOptions | undefined): TaskCallOptions {
  // The common call has no options: nothing to split or check.
  if (options === undefined) return NO_TASK_OPTIONS;
  if (!isObject(options)) throw new TypeError("options must be an object");
  const { task, taskTtl, onStatus, ...rest } = options ?? {};
  if (task !== undefined && task !== "return" && task !== "await") {
    throw new TypeError('option "task" must be "return" or "await"');
  }
  checkMilliseconds("taskTtl", taskTtl);
  if (onStatus !== undefined && typeof onStatus !== "function") {
    throw new TypeError('option "onStatus" must be a function');
  }
  return {
    task: task as TaskMode | undefined,
    taskTtl: taskTtl as number | undefined,
    onStatus: onStatus as ((task: Task) => void) | undefined,
    call: checkCallOptions(rest as CallOptions),
  };
}

/**
 * Calls a tool: at once when no task can be involved, else through `callToolTask`.
 *
 * @param ctx The client's task context.
 * @param name The tool.
 * @param args Its arguments.
 * @param options The call's options (`task`, `taskTtl`, `onStatus` and the request options).
 * @returns The result, or the task with `task: "return"`.
 */
export function routeToolCall(
  ctx: TaskContext,
  name: string,
  args: Record<string, unknown> | undefined,
  options?: ToolCallOptions,
): Promise<ToolResult | Task> {
  let checked: TaskCallOptions;
  try {
    checkToolCall(name, args);
    checked = checkTaskOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  // The common call: no task, and no legacy handshake to wait for. It goes out at once.
  if (checked.task === undefined && ctx.requester.era() !== "legacy") {
    return plainCall(ctx, name, args, checked.call);
  }
  return routeLater(ctx, name, args, checked);
}

/**
 * `call_rules.ts` once loaded: a legacy server that runs tool tasks has its rule asked at
 * every call, and a dynamic import costs even once its module is in (Bun makes loader state
 * for each). Only a load that succeeded is kept, so a failed one is tried again.
 */
let rules: typeof import("./call_rules.ts") | undefined;

/** A call that may run as a task, or waits for a legacy handshake first. */
async function routeLater(
  ctx: TaskContext,
  name: string,
  args: Record<string, unknown> | undefined,
  checked: TaskCallOptions,
): Promise<ToolResult | Task> {
  const { task, call } = checked;
  const started = Date.now();
  const budget = call.timeout ?? ctx.requestTimeout;
  if (task === undefined && ctx.requester.era() === "legacy") await ctx.requester.ready(budget);
  // A legacy server that runs tool calls as tasks: a tool it lists as taskSupport "required"
  // is called as one. Only the listing and that rule load to tell; the machinery, for it alone.
  if (
    task !== undefined ||
    (ctx.requester.era() === "legacy" && serverRunsToolTasks(ctx.serverCapabilities()) &&
      await (rules ??= await import("./call_rules.ts")).onlyAsTask(
        ctx,
        name,
        budget - (Date.now() - started),
      ))
  ) {
    const { callToolTask } = await import("./call.ts");
    // What the wait for the handshake took comes off the call's time.
    return await callToolTask(ctx, name, args, checked, started, serverRunsToolTasks);
  }
  return await plainCall(ctx, name, args, call);
}

/** A call that runs as no task: a `-32021` answer says the tool needs one. */
function plainCall(
  ctx: TaskContext,
  name: string,
  args: Record<string, unknown> | undefined,
  call: CallOptions,
): Promise<ToolResult> {
  return sendToolCall(ctx.requester, name, args, call, (error) => taskRequired(name, error));
}

/** A `-32021` (the tool must run as a task) said clearly; any other failure as it was. */
async function taskRequired(name: string, error: unknown): Promise<never> {
  if (!isMcpError(error) || error.code !== -32021) throw error;
  throw (rules ??= await import("./call_rules.ts")).taskRequired(name, error);
}

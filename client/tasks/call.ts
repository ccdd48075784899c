/**
 * `callTool` with server tasks. Modern: the call declares the tasks extension only when the
 * caller gives `task`, so without it the server answers directly (a server that can only run
 * the tool as a task answers `-32021`, reported as reason `task_required`). Legacy: the call
 * is task-augmented (`task: { ttl }`) only when the server declares `tasks.requests.tools.call`
 * and the tool's `execution.taskSupport` allows it: `"required"` always (awaited when no
 * `task` is given), `"optional"` only with `task`, otherwise never. The tool's definition
 * comes from the cached listing, or from one listing when there is none.
 *
 * A task call, in either era, that times out (or whose caller aborts) before the server's
 * create answer is cancelled as any request is, and still hears that answer for a few seconds
 * (the connection's `onLateAnswer`): a task it names is sent `tasks/cancel`, so a server that
 * creates the task anyway leaves none running that nobody awaits. (Over HTTP the aborted
 * request's stream ends with it, so no late answer arrives there.)
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { isTask, parseTask, type Task } from "../../protocol/tasks.ts";
import { isObject } from "../../protocol/json.ts";
import { requestOptions } from "../requests/_checks.ts";
import type { CallOptions, ToolResult } from "../types.ts";
import { type TaskCallOptions, type TaskContext, taskOf, withTasksMeta } from "./_context.ts";
import { taskRequired, taskSupport } from "./call_rules.ts";
import { awaitTask } from "./await.ts";
import { cancelTask } from "./tasks.ts";

export { type TaskSupport, taskSupport } from "./call_rules.ts";
// The task machinery's one door: the client's task methods load through it too, so a bundler
// makes one lazy chunk of the machinery (and one entry in its preload table), not three.
export { awaitTask, cancelTask };
export { getTask } from "./tasks.ts";

/** The longest wait for the cancel of a task whose create answer came late, in ms. */
const LATE_CANCEL_WAIT = 5_000;

/**
 * Calls a tool, running it as a server task where the era, the server and the tool say so.
 * Its name, arguments and options were checked by `routeToolCall`, the only caller.
 *
 * @param ctx The client.
 * @param name The tool.
 * @param args Its arguments.
 * @param checked The checked call options, `task`, `taskTtl` and `onStatus`.
 * @param started When the call began (its time runs from there).
 * @param serverRunsToolTasks Whether a legacy server runs tool tasks (`route.ts`' rule).
 * @returns The tool result, or the task with `task: "return"`.
 */
export async function callToolTask(
  ctx: TaskContext,
  name: string,
  args: Record<string, unknown> | undefined,
  checked: TaskCallOptions,
  started: number,
  serverRunsToolTasks: (capabilities: JsonObject) => boolean,
): Promise<ToolResult | Task> {
  const { task, taskTtl, onStatus, call } = checked;
  const budget = call.timeout ?? ctx.requestTimeout;
  const left = () => Math.max(1, budget - (Date.now() - started));
  if (task === undefined) {
    if (ctx.requester.era() === "legacy") {
      // A tool that only runs as a task is awaited as one.
      await ctx.requester.ready(left());
      if (
        ctx.requester.era() === "legacy" && serverRunsToolTasks(ctx.serverCapabilities()) &&
        taskSupport(await ctx.definition(name, left())) === "required"
      ) {
        const created = await legacyTaskCall(ctx, name, args, call, taskTtl);
        noteCaller(ctx, created, call);
        return await settle(ctx, created, "await", { ...call, onStatus }, left);
      }
    }
    return await ctx.wire.callTool(ctx.requester, name, args, call).catch((error) => {
      throw taskRequired(name, error);
    });
  }
  // The era decides how the call becomes a task: wait for the handshake.
  await ctx.requester.ready(left());
  let created: ToolResult | Task;
  if (ctx.requester.era() === "modern") {
    const params = withTasksMeta(ctx, { name, arguments: args ?? {} });
    const result = await ctx.wire.requestWithInput(ctx.requester, "tools/call", params, {
      ...requestOptions(call),
      assigns: call.assigns,
      principal: call.principal,
      onLateAnswer: (late) => cancelLate(ctx, late),
    });
    created = result.resultType === "task"
      ? taskOf("tools/call", result)
      : ctx.wire.toolResult(result);
  } else if (
    serverRunsToolTasks(ctx.serverCapabilities()) &&
    taskSupport(await ctx.definition(name, left())) !== "forbidden"
  ) {
    created = await legacyTaskCall(ctx, name, args, call, taskTtl);
    noteCaller(ctx, created, call);
  } else {
    created = await ctx.wire.callTool(ctx.requester, name, args, call);
  }
  return await settle(ctx, created, task, { ...call, onStatus }, left);
}

/** How many started legacy tasks keep their caller (the oldest is dropped past it). */
const MAX_CALLERS = 1_000;

/**
 * Notes whom a legacy task the server created is for: its input requests get this call's
 * `assigns` and `principal`. A task id the server hands out again while the first is kept
 * is for neither caller: its requests get no context.
 */
function noteCaller(ctx: TaskContext, created: ToolResult | Task, call: CallOptions): void {
  if (!isTask(created) || ctx.callers === undefined) return;
  const reused = ctx.callers.has(created.taskId);
  ctx.callers.delete(created.taskId);
  ctx.callers.set(
    created.taskId,
    reused ? {} : { assigns: call.assigns, principal: call.principal },
  );
  if (ctx.callers.size > MAX_CALLERS) ctx.callers.delete(ctx.callers.keys().next().value!);
}

/** Returns the task (`"return"`) or awaits it within what is left of the call's time. */
async function settle(
  ctx: TaskContext,
  created: ToolResult | Task,
  mode: "return" | "await",
  options: CallOptions & { onStatus?: (task: Task) => void },
  left: () => number,
): Promise<ToolResult | Task> {
  if (!isTask(created) || mode === "return") return created;
  try {
    options.onStatus?.(created);
  } catch (error) {
    ctx.requester.warn(`onStatus failed for task ${created.taskId}: ${String(error)}`);
  }
  return await awaitTask(ctx, created, {
    timeout: left(),
    signal: options.signal,
    assigns: options.assigns,
    onStatus: options.onStatus,
  });
}

/**
 * A legacy task-augmented `tools/call`: the created task (or a direct result). An answer
 * that comes after the call timed out or was aborted still names a task the server runs: it
 * is cancelled.
 */
async function legacyTaskCall(
  ctx: TaskContext,
  name: string,
  args: Record<string, unknown> | undefined,
  call: CallOptions,
  ttl: number | undefined,
): Promise<ToolResult | Task> {
  const params = { name, arguments: args ?? {}, task: ttl === undefined ? {} : { ttl } };
  const result = await ctx.requester.request("tools/call", params, {
    ...requestOptions(call),
    onLateAnswer: (late) => cancelLate(ctx, late),
  });
  return isObject(result.task) ? taskOf("tools/call", result.task) : ctx.wire.toolResult(result);
}

/**
 * Cancels the task a late create answer names (the caller no longer waits for it): the
 * legacy `{ task }`, or a modern `resultType: "task"` result.
 */
function cancelLate(ctx: TaskContext, late: JsonObject): void {
  const wire = isObject(late.task) ? late.task : late.resultType === "task" ? late : undefined;
  const task = wire === undefined ? undefined : parseTask(wire);
  if (task === undefined || typeof task === "string") return;
  cancelTask(ctx, task.taskId, { timeout: Math.min(ctx.requestTimeout, LATE_CANCEL_WAIT) })
    .catch(() => {});
}

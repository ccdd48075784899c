/**
 * Awaiting a server task to its end, in both eras. Modern: `tasks/get` no faster than the
 * task's current `pollIntervalMs` (the first one too: awaiting a {@linkcode Task}, such as the
 * create answer, whose status is `working`, waits its `pollIntervalMs` before the first poll,
 * since the server just said how it stands; a bare task id is polled at once), its
 * `input_required` requests answered with the client's
 * handler (`tasks/update` with `inputResponses`, each key once), pushed `notifications/tasks`
 * taken in place of a poll. Legacy: one `tasks/result` kept open for the whole wait (the server
 * delivers the task's input requests, tagged with the related-task `_meta`, only while one is
 * pending, and the client's server-request inbox answers them), with `tasks/get` polled beside
 * it for the status. `timeout` bounds the whole wait; when it passes, or the caller's signal
 * aborts, the task is cancelled.
 *
 * @module
 */

import { cancelledError, isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { isExpired, type Task } from "../../protocol/tasks.ts";
import { clearTimer, serverDelay, startTimer } from "../../clock/timer.ts";
import { isObject } from "../../protocol/json.ts";
import { invalid } from "../requests/_checks.ts";
import { answerAll } from "../requests/_input_rounds.ts";
import type { AwaitTaskOptions, ToolResult } from "../types.ts";
import {
  expiredError,
  type TaskContext,
  taskIdOf,
  taskOf,
  type TaskRef,
  taskRequest,
} from "./_context.ts";
import { createInbox, type Inbox } from "./_inbox.ts";
import { cancelledTask, checkAwaitOptions, failedTask, reporter } from "./_outcome.ts";

export { checkAwaitOptions } from "./_outcome.ts";
import { cancelTask } from "./tasks.ts";

/** The poll interval when the server suggests none, in ms. */
export const DEFAULT_POLL_INTERVAL = 1_000;
/** The shortest poll interval the client keeps to, in ms. */
const POLL_FLOOR = 5;
/** The longest wait between polls, whatever the server suggests, in ms. */
const POLL_CEILING = 60_000;
/** The longest wait for the cancel sent after a timeout or an abort, in ms. */
const CANCEL_WAIT = 5_000;

/** One wait in progress. */
interface Run {
  ctx: TaskContext;
  taskId: string;
  signal: AbortSignal;
  left(): number;
  assigns?: Record<string, unknown>;
  report(task: Task): void;
  inbox: Inbox;
  interval: number | undefined;
  /** The task as given by the caller (the create answer, say), when it was. */
  given?: Task;
}

/**
 * Waits for a task to end and resolves with its tool result (a completed task's `isError: true`
 * result, and a legacy task that failed with one, are results).
 *
 * @param ctx The client.
 * @param task The task, or its id (from this client or another one).
 * @param options `timeout` (default the client's `requestTimeout`), `signal`, `assigns`,
 * `onStatus`.
 * @returns The tool result.
 * @throws {McpError} Kind `timeout` (reason `task_timeout`) or `cancelled` (reason `aborted`)
 * after cancelling the task; kind `cancelled` reason `task_cancelled` when the task was
 * cancelled; kind `server` with the server's error for a failed task; kind `not_found` reason
 * `task_expired` for an unknown or expired task.
 */
export async function awaitTask(
  ctx: TaskContext,
  task: TaskRef,
  options?: AwaitTaskOptions,
): Promise<ToolResult> {
  const taskId = taskIdOf(task);
  const opts = checkAwaitOptions(options);
  const given = typeof task === "string" ? undefined : task;
  if (given !== undefined && isExpired(given, Date.now())) throw expiredError(taskId);
  const timeout = opts.timeout ?? ctx.requestTimeout;
  const started = Date.now();
  const stop = new AbortController();
  const timer = startTimer(() =>
    stop.abort(
      new McpError(`Task ${taskId} did not end within ${timeout} ms; it was cancelled`, {
        kind: "timeout",
        reason: "task_timeout",
        data: { taskId },
      }),
    ), timeout);
  const onAbort = () => stop.abort(cancelledError(`awaitTask(${taskId})`, opts.signal));
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });
  const inbox = createInbox(ctx, taskId);
  let unfollow: (() => void) | undefined;
  const run: Run = {
    ctx,
    taskId,
    signal: stop.signal,
    left: () => Math.max(1, timeout - (Date.now() - started)),
    assigns: opts.assigns,
    report: reporter(ctx, opts.onStatus, given),
    inbox,
    interval: given?.pollIntervalMs,
    given,
  };
  try {
    if (stop.signal.aborted) throw stop.signal.reason;
    await ctx.requester.ready(run.left());
    // Modern push, where the server can: its notifications/tasks stand in for polls.
    unfollow = ctx.follow?.(taskId);
    return ctx.requester.era() === "modern" ? await awaitModern(run) : await awaitLegacy(run);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    // Cooperative: the task may still end, but the caller no longer waits for it.
    await cancelTask(ctx, taskId, { timeout: Math.min(ctx.requestTimeout, CANCEL_WAIT) })
      .catch(() => {});
    throw stop.signal.reason;
  } finally {
    clearTimer(timer);
    opts.signal?.removeEventListener("abort", onAbort);
    inbox.close();
    unfollow?.();
  }
}

/** The wait before the next poll: the task's latest `pollIntervalMs`, bounded. */
function pollDelay(run: Run, task?: Task): number {
  if (task?.pollIntervalMs !== undefined) run.interval = task.pollIntervalMs;
  return serverDelay(run.interval ?? DEFAULT_POLL_INTERVAL, POLL_FLOOR, POLL_CEILING);
}

async function awaitModern(run: Run): Promise<ToolResult> {
  const { ctx, taskId, signal } = run;
  const answered = new Set<string>();
  let pushed: JsonObject | undefined;
  // A working task the caller holds is how the server said it stands just now: the first
  // poll keeps to its interval like every other.
  if (run.given?.status === "working") {
    pushed = await run.inbox.next(pollDelay(run, run.given), signal);
    if (signal.aborted) throw signal.reason;
    if (pushed !== undefined && pushed.status === undefined) pushed = undefined;
  }
  for (;;) {
    const detailed = pushed ??
      await taskRequest(ctx, "tasks/get", { taskId }, { signal, timeout: run.left() });
    const now = taskOf("tasks/get", detailed);
    run.report(now);
    if (now.status === "completed") {
      if (!isObject(detailed.result)) throw invalid("tasks/get", "a completed task has no result");
      return ctx.wire.toolResult(detailed.result);
    }
    if (now.status === "failed") throw failedTask(now, detailed.error);
    if (now.status === "cancelled") throw cancelledTask(now);
    if (now.status === "input_required") await answerInputs(run, detailed, answered);
    pushed = await run.inbox.next(pollDelay(run, now), signal);
    if (signal.aborted) throw signal.reason;
    if (pushed !== undefined && pushed.status === undefined) pushed = undefined;
  }
}

/** Answers the input requests not answered before, with one `tasks/update`. */
async function answerInputs(run: Run, detailed: JsonObject, answered: Set<string>): Promise<void> {
  const { ctx, taskId, signal } = run;
  const asked = isObject(detailed.inputRequests) ? detailed.inputRequests : {};
  const pending = Object.fromEntries(Object.entries(asked).filter(([key]) => !answered.has(key)));
  if (Object.keys(pending).length === 0) return;
  const input = ctx.requester.input;
  if (input === undefined) {
    throw new McpError(`Task ${taskId} needs input, which this client cannot give`, {
      kind: "protocol",
      reason: "input_required",
    });
  }
  const responses = await answerAll(
    input,
    "tasks/update",
    { taskId },
    pending as never,
    { assigns: run.assigns },
    signal,
  );
  for (const key of Object.keys(responses)) answered.add(key);
  await taskRequest(ctx, "tasks/update", { taskId, inputResponses: responses }, {
    signal,
    timeout: run.left(),
  });
}

/** A failed `tasks/result`: a task cancelled meanwhile is reported as cancelled. */
async function legacyFailure(run: Run, error: unknown): Promise<unknown> {
  if (!isMcpError(error) || error.kind !== "server") return error;
  const now = await taskRequest(run.ctx, "tasks/get", { taskId: run.taskId }, {
    signal: run.signal,
    timeout: run.left(),
  }).then((wire) => taskOf("tasks/get", wire), () => undefined);
  if (now === undefined) return error;
  run.report(now);
  return now.status === "cancelled" ? cancelledTask(now) : error;
}

async function awaitLegacy(run: Run): Promise<ToolResult> {
  const { ctx, taskId, signal } = run;
  // The task's input requests come as server requests: the inbox gives them the context of
  // the call that started the task on this client (call.ts), never this awaiter's.
  const caller = ctx.callers?.get(taskId);
  const ended = new AbortController();
  const stopResult = () => ended.abort(signal.reason);
  signal.addEventListener("abort", stopResult, { once: true });
  // Held open for the whole wait: the input requests of the task arrive while it is pending.
  const outcome = taskRequest(ctx, "tasks/result", { taskId }, {
    signal: ended.signal,
    timeout: run.left(),
    maxTotalTimeout: run.left(),
  }).then((result) => ({ result }), (error: unknown) => ({ error }));
  try {
    for (;;) {
      const pause = new AbortController();
      const wait = run.inbox.next(pollDelay(run), pause.signal);
      const first = await Promise.race([outcome, wait.then((pushed) => ({ pushed }))]);
      pause.abort();
      if ("result" in first) return run.ctx.wire.toolResult(first.result);
      if ("error" in first) {
        if (signal.aborted) throw signal.reason;
        throw await legacyFailure(run, first.error);
      }
      const now = first.pushed !== undefined
        ? taskOf("notifications/tasks/status", first.pushed)
        : taskOf(
          "tasks/get",
          await taskRequest(ctx, "tasks/get", { taskId }, {
            signal,
            timeout: run.left(),
          }),
        );
      run.report(now);
      if (now.status === "cancelled") throw cancelledTask(now);
      pollDelay(run, now); // keeps the interval the server now suggests
    }
  } catch (error) {
    if (isMcpError(error) && error.kind === "cancelled" && signal.aborted) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener("abort", stopResult);
    ended.abort();
    // The wait is over (the task ended, or was cancelled): its caller is no longer kept.
    if (caller !== undefined && ctx.callers?.get(taskId) === caller) ctx.callers.delete(taskId);
  }
}

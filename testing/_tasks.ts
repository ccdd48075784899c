/**
 * Private: tool calls run as tasks, on both wires: the 2025-11-25 core tasks (`task` param,
 * `{ task }` result, `tasks/get`, the blocking `tasks/result`, `tasks/list`, `tasks/cancel`)
 * and the modern tasks extension (`resultType: "task"`, `tasks/get` with the outcome,
 * `tasks/update` for input, `tasks/cancel` as an ack).
 *
 * @module
 */

import type { JsonObject } from "../protocol/jsonrpc.ts";
import { type Core, failure, objectOr, type Outcome, type TaskRecord } from "./_core.ts";

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const RELATED = "io.modelcontextprotocol/related-task";

/** Starts `run` as a task of `core` on `era`'s wire. */
export function startTask(
  core: Core,
  era: "modern" | "legacy",
  ttl: number | undefined,
  run: (task: TaskRecord) => Promise<Outcome>,
): TaskRecord {
  const now = new Date().toISOString();
  let finish!: () => void;
  const task: TaskRecord = {
    taskId: `task-${++core.nextTask}`,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttl: ttl ?? core.def.tasks?.ttlMs ?? 60_000,
    pollInterval: core.def.tasks?.pollIntervalMs ?? 50,
    era,
    inputRequests: new Map(),
    answer: new Map(),
    controller: new AbortController(),
    done: new Promise<void>((resolve) => (finish = resolve)),
  };
  core.tasks.set(task.taskId, task);
  run(task).then((outcome) => {
    if (task.status === "cancelled") return;
    task.outcome = outcome;
    const isError = "result" in outcome && outcome.result.isError === true;
    task.status = "error" in outcome || (era === "legacy" && isError) ? "failed" : "completed";
    task.lastUpdatedAt = new Date().toISOString();
    core.onTask?.(task);
  }).finally(finish);
  return task;
}

/** The task as `era`'s wire shows it. */
export function taskShape(task: TaskRecord, era: "modern" | "legacy"): JsonObject {
  const shape: JsonObject = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
  };
  if (task.statusMessage !== undefined) shape.statusMessage = task.statusMessage;
  if (era === "modern") {
    Object.assign(shape, { ttlMs: task.ttl, pollIntervalMs: task.pollInterval });
  } else Object.assign(shape, { ttl: task.ttl, pollInterval: task.pollInterval });
  return shape;
}

/** The answer to the call that created the task. */
export function createdResult(task: TaskRecord, era: "modern" | "legacy"): JsonObject {
  return era === "modern"
    ? { resultType: "task", ...taskShape(task, era) }
    : { task: taskShape(task, era) };
}

/** The modern `DetailedTask`: the task with its outcome or outstanding input. */
export function modernDetail(task: TaskRecord): JsonObject {
  const detail: JsonObject = { resultType: "complete", ...taskShape(task, "modern") };
  if (task.status === "input_required") {
    detail.inputRequests = Object.fromEntries(task.inputRequests);
  }
  if (task.status === "completed" && task.outcome && "result" in task.outcome) {
    detail.result = task.outcome.result;
  }
  if (task.status === "failed" && task.outcome && "error" in task.outcome) {
    detail.error = task.outcome.error;
  }
  return detail;
}

function cancel(core: Core, task: TaskRecord): void {
  task.status = "cancelled";
  task.lastUpdatedAt = new Date().toISOString();
  task.controller.abort(new Error("the task was cancelled"));
  core.onTask?.(task);
}

/**
 * Answers a `tasks/*` request, or `null` when `method` is not one of `era`'s task methods.
 */
export async function taskMethod(
  core: Core,
  method: string,
  params: JsonObject,
  era: "modern" | "legacy",
): Promise<Outcome | null> {
  if (method === "tasks/list" && era === "legacy") {
    const tasks = [...core.tasks.values()].filter((t) => t.era === era);
    return { result: { tasks: tasks.map((t) => taskShape(t, era)) } };
  }
  const known = ["tasks/get", "tasks/cancel", era === "modern" ? "tasks/update" : "tasks/result"];
  if (!known.includes(method)) return null;
  const task = core.tasks.get(String(params.taskId));
  if (!task || task.era !== era) return failure(-32602, `Unknown task: ${String(params.taskId)}`);
  switch (method) {
    case "tasks/get":
      return { result: era === "modern" ? modernDetail(task) : taskShape(task, era) };
    case "tasks/cancel":
      if (TERMINAL.has(task.status)) {
        if (era === "modern") return { result: { resultType: "complete" } };
        return failure(-32602, `Task ${task.taskId} has already ended`);
      }
      cancel(core, task);
      return { result: era === "modern" ? { resultType: "complete" } : taskShape(task, era) };
    case "tasks/update": {
      const responses = objectOr(params.inputResponses) ?? {};
      for (const [key, value] of Object.entries(responses)) {
        const answer = task.answer.get(key);
        if (!answer || !objectOr(value)) continue;
        task.answer.delete(key);
        task.inputRequests.delete(key);
        answer(value as JsonObject);
      }
      if (task.status === "input_required" && task.inputRequests.size === 0) {
        task.status = "working";
      }
      return { result: { resultType: "complete" } };
    }
    default: { // tasks/result: blocks until the task ends
      await task.done;
      const outcome = task.outcome;
      if (task.status === "cancelled" || !outcome) return failure(-32603, "The task was cancelled");
      if ("error" in outcome) return outcome;
      const meta = { ...objectOr(outcome.result._meta), [RELATED]: { taskId: task.taskId } };
      return { result: { ...outcome.result, _meta: meta } };
    }
  }
}

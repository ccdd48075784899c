/**
 * The rules of a tool call that decide whether it runs as a server task, small enough to load
 * with every client: the task options' checks, a legacy tool's `taskSupport`, whether a legacy
 * server runs tool tasks, and the `-32021` a modern server answers for a tool it runs only as
 * a task. The task machinery itself (`call.ts`, `await.ts`, `tasks.ts`) loads on first use
 * (`route.ts`).
 *
 * @module
 */

import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { type Task, TASKS_EXTENSION } from "../../protocol/tasks.ts";
import { isObject } from "../_json.ts";
import { checkCallOptions } from "../requests/_checks.ts";
import type { CallOptions, TaskMode, ToolCallOptions } from "../types.ts";

/** A legacy tool's `execution.taskSupport` (`"forbidden"` when absent or unknown). */
export type TaskSupport = "forbidden" | "optional" | "required";

/**
 * A tool definition's `execution.taskSupport`.
 *
 * @param tool The tool as listed (or `undefined`).
 * @returns Its task support.
 */
export function taskSupport(tool: Record<string, unknown> | undefined): TaskSupport {
  const execution = tool?.execution;
  const support = isObject(execution) ? execution.taskSupport : undefined;
  return support === "optional" || support === "required" ? support : "forbidden";
}

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

/** A call's task options, checked, and the rest of its options. */
export interface TaskCallOptions {
  task: TaskMode | undefined;
  taskTtl: number | undefined;
  onStatus: ((task: Task) => void) | undefined;
  call: CallOptions;
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
  if (taskTtl !== undefined && !(typeof taskTtl === "number" && taskTtl > 0)) {
    throw new TypeError('option "taskTtl" must be a positive number of milliseconds');
  }
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

/** A `-32021` asking for the tasks extension, said clearly (reason `task_required`). */
export function taskRequired(name: string, error: unknown): unknown {
  if (!isMcpError(error) || error.code !== -32021) return error;
  const data = isObject(error.data) ? error.data : {};
  const required = isObject(data.requiredCapabilities) ? data.requiredCapabilities : {};
  const extensions = isObject(required.extensions) ? required.extensions : {};
  if (!Object.hasOwn(extensions, TASKS_EXTENSION)) return error;
  return new McpError(
    `The server runs tool "${name}" only as a task: call it with { task: "await" } or ` +
      '{ task: "return" } (-32021)',
    { kind: error.kind, reason: "task_required", code: -32021, data: error.data, cause: error },
  );
}

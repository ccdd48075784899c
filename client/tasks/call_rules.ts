/**
 * The rules of a tool call that runs as a server task, or was refused for not being one: a
 * legacy tool's `taskSupport`, and the `-32021` a modern server answers for a tool it runs
 * only as a task. They load with the task machinery (`call.ts`), or with a first `-32021`;
 * the task options' checks and whether a legacy server runs tool tasks, which every call
 * needs, are `route.ts`'.
 *
 * @module
 */

import { isMcpError, McpError } from "../../protocol/errors.ts";
import { TASKS_EXTENSION } from "../../protocol/meta.ts";
import { isObject } from "../../protocol/json.ts";
import type { TaskContext } from "./_context.ts";

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
 * Whether a legacy tool must be called as a task (its listed `taskSupport` is `"required"`),
 * read from the tool listing (listed once, then cached).
 *
 * @param ctx The client's task context.
 * @param name The tool.
 * @param timeout Milliseconds the listing may take (at least 1).
 * @returns `true` for a tool that runs only as a task.
 */
export async function onlyAsTask(
  ctx: TaskContext,
  name: string,
  timeout: number,
): Promise<boolean> {
  return taskSupport(await ctx.definition(name, Math.max(1, timeout))) === "required";
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

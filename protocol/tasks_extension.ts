/**
 * Declaring the modern tasks extension in a request's client capabilities. Its key,
 * `TASKS_EXTENSION`, lives with the other reserved keys (`meta.ts`), so the client's start,
 * which only reads it, loads neither this nor the tasks' wire (`tasks.ts`).
 *
 * @module
 */

import { TASKS_EXTENSION } from "./meta.ts";

/**
 * Client capabilities with the modern tasks extension added (for a request that may return a
 * task, and for every `tasks/*` request).
 *
 * @param capabilities The capabilities the client declares.
 * @returns A copy that also declares `extensions["io.modelcontextprotocol/tasks"]`.
 *
 * @example
 * ```ts
 * import { withTasksExtension } from "./tasks_extension.ts";
 *
 * const declared = withTasksExtension({ extensions: { other: {} } });
 * if (Object.keys(declared.extensions as object).join() !== "other,io.modelcontextprotocol/tasks") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function withTasksExtension(
  capabilities: Record<string, unknown>,
): Record<string, unknown> {
  const extensions = typeof capabilities.extensions === "object" && capabilities.extensions !== null
    ? capabilities.extensions as Record<string, unknown>
    : {};
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/**
 * The methods of `McpClient` that may meet server tasks: `callTool`, and reading, awaiting
 * and cancelling tasks.
 *
 * @module
 */

import type { Task } from "../protocol/tasks.ts";
import type { ShapedResult } from "../governance/shape.ts";
import type {
  AwaitTaskOptions,
  RequestOptions,
  ShapeCallOptions,
  ToolCallOptions,
} from "./request_options.ts";
import type { ToolResult } from "./shapes.ts";

/**
 * The methods of a client that may meet server tasks (part of `McpClient`). A task is a
 * {@linkcode Task} or its id, from this client or from any other one on the same server.
 *
 * @example Return a task, then await it
 * ```ts
 * import { createClient } from "./client.ts";
 * import { inProcess } from "../transports/in_process.ts";
 * import { isTask } from "../protocol/tasks.ts";
 *
 * const task = { taskId: "t1", createdAt: new Date().toISOString(), ttlMs: 60_000 };
 * const transport = inProcess({
 *   connect: (peer) => ({
 *     receive(message) {
 *       if (!("id" in message) || !("method" in message)) return;
 *       const result = message.method === "server/discover"
 *         ? { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } }
 *         : message.method === "tools/call"
 *         ? { resultType: "task", ...task, status: "working", lastUpdatedAt: task.createdAt }
 *         : { ...task, status: "completed", lastUpdatedAt: task.createdAt, result: { content: [] } };
 *       peer.send({ jsonrpc: "2.0", id: message.id, result: { resultType: "complete", ...result } });
 *     },
 *   }),
 * });
 * await using client = createClient({ transport });
 * const started = await client.callTool("research", {}, { task: "return" });
 * if (!isTask(started)) throw new Error("expected a task");
 * const result = await client.awaitTask(started.taskId, { timeout: 5_000 });
 * if (result.isError) throw new Error("unexpected");
 * ```
 */
export interface TaskMethods {
  /**
   * Calls a tool; `args` are sent as given. When a modern server answers `input_required`,
   * the handler answers its input requests and the call is retried (up to `maxRounds`);
   * no result of such a retry is cached. `task: "return"` gives a server task as a `Task`
   * (see `isTask`); `"await"` awaits it as `awaitTask` does, within `timeout`.
   * `shape: "llm"` resolves with the result shaped for a model (see `ShapeCallOptions`).
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: ToolCallOptions & ShapeCallOptions & { task?: "await" },
  ): Promise<ShapedResult>;
  /** Calls a tool (see above); `task: "return"` may resolve with the server's task. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: ToolCallOptions & { task: "return" },
  ): Promise<ToolResult | Task>;
  /** Calls a tool (see above); a server task is awaited to its result. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: ToolCallOptions & { task?: "await" },
  ): Promise<ToolResult>;
  /** Calls a tool (see above), with `task` not known until run time. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: ToolCallOptions,
  ): Promise<ToolResult | Task>;
  /** Reads a task's state (`tasks/get`); kind `not_found`, reason `task_expired`, once gone. */
  getTask(task: Task | string, options?: RequestOptions): Promise<Task>;
  /**
   * Waits for a task to end and resolves with its tool result, polling no faster than its
   * `pollIntervalMs` and answering its input requests with the handler. `timeout` (default
   * `requestTimeout`) bounds the whole wait: when it passes (kind `timeout`) or `signal` aborts
   * (kind `cancelled`) the task is cancelled. A failed task is kind `server` with the server's
   * error; a cancelled one kind `cancelled`, reason `task_cancelled`.
   */
  awaitTask(task: Task | string, options?: AwaitTaskOptions): Promise<ToolResult>;
  /**
   * Asks the server to cancel a task (`tasks/cancel`); resolves once acknowledged, with the
   * task's state then (a task that already ended: that end). The task may still finish.
   */
  cancelTask(task: Task | string, options?: RequestOptions): Promise<Task>;
}

/**
 * Private: what the task methods need from the client, and the requests they send (the modern
 * ones declare the tasks extension; an unknown or expired task becomes kind `not_found`).
 *
 * @module
 */

import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { META_CLIENT_CAPABILITIES } from "../../protocol/meta.ts";
import { parseTask, type Task } from "../../protocol/tasks.ts";
import { withTasksExtension } from "../../protocol/tasks_extension.ts";
import { invalid } from "../requests/_checks.ts";
import type { Requester } from "../requests/_requester.ts";
import type { requestWithInput } from "../requests/mrtr.ts";
import type { callTool, toolResult } from "../requests/requests.ts";
import type { ConnectionRequestOptions } from "../connection/connection.ts";
import type { CallOptions, TaskMode, Tool } from "../types.ts";

/** A task notification: its method and params. */
export interface TaskNotification {
  /** `notifications/tasks` (modern, a full task) or `notifications/tasks/status` (legacy). */
  method: string;
  /** Its params. */
  params: JsonObject;
}

/** What the task methods need from the client. */
export interface TaskContext {
  /** The connection. */
  requester: Requester;
  /** The ready server's capabilities (throws while not ready). */
  serverCapabilities(): JsonObject;
  /** The tool's definition: from the cached listing, else from one listing now. */
  definition(name: string, timeout?: number): Promise<Tool | undefined>;
  /** The client's `requestTimeout`. */
  requestTimeout: number;
  /** Hears task notifications until the returned function is called. */
  watch(listener: (notification: TaskNotification) => void): () => void;
  /**
   * Modern push: adds `taskId` to the `subscriptions/listen` filter while the returned
   * function is not called; `undefined` when the server cannot push.
   */
  follow?(taskId: string): (() => void) | undefined;
  /**
   * Legacy: the callers of the tasks this client started (by `call.ts`, when the server
   * created them), whose `assigns` and `principal` the server-request inbox hands on.
   */
  callers?: Map<string, { assigns?: Record<string, unknown>; principal?: string }>;
  /**
   * The request path (`requests/requests.ts`, `requests/mrtr.ts`), handed over by the client
   * rather than imported: the task machinery then shares none of the request path's modules
   * with the start, which would split them off the start's bundle.
   */
  wire: {
    callTool: typeof callTool;
    toolResult: typeof toolResult;
    requestWithInput: typeof requestWithInput;
  };
}

/** A call's task options, checked, and the rest of its options. */
export interface TaskCallOptions {
  task: TaskMode | undefined;
  taskTtl: number | undefined;
  onStatus: ((task: Task) => void) | undefined;
  call: CallOptions;
}

/** A task or its id, as the task methods take it. */
export type TaskRef = Task | string;

/**
 * The id of a task or id, checked.
 *
 * @param task The task, or its id.
 * @returns The id.
 */
export function taskIdOf(task: TaskRef): string {
  const id = typeof task === "string" ? task : (task as Partial<Task> | null)?.taskId;
  if (typeof id !== "string" || id === "") {
    throw new TypeError("task must be a Task or a non-empty task id");
  }
  return id;
}

/**
 * The error of a task that is gone (kind `not_found`, reason `task_expired`).
 *
 * @param taskId The task.
 * @param cause The server's error, if it said so.
 * @returns The error.
 */
export function expiredError(taskId: string, cause?: unknown): McpError {
  return new McpError(`Task ${taskId} is unknown or expired`, {
    kind: "not_found",
    reason: "task_expired",
    data: { taskId },
    cause,
  });
}

/**
 * Sends a `tasks/*` request: modern, with the tasks extension declared; a `-32602` answer (the
 * task is unknown or expired) becomes {@linkcode expiredError}.
 *
 * @param ctx The client.
 * @param method The method.
 * @param params Its params (with `taskId`).
 * @param options Request options.
 * @returns The result.
 */
export async function taskRequest(
  ctx: TaskContext,
  method: string,
  params: JsonObject & { taskId: string },
  options: ConnectionRequestOptions = {},
): Promise<JsonObject> {
  const sent = ctx.requester.era() === "modern" ? withTasksMeta(ctx, params) : params;
  // A poll is a span of its own (with a tracer), its `tasks/get` request a child of it.
  const poll = method === "tasks/get"
    ? ctx.requester.trace?.span("mcp.client.task_poll", { "conduit.task.id": params.taskId })
    : undefined;
  try {
    const result = await ctx.requester.request(method, sent, {
      ...options,
      progress: false,
      ...(poll === undefined ? {} : { trace: poll }),
    });
    if (poll !== undefined) {
      if (typeof result.status === "string") poll.set({ "conduit.task.status": result.status });
      poll.end();
    }
    return result;
  } catch (error) {
    poll?.end(error);
    if (isMcpError(error) && error.kind === "server" && error.code === -32602) {
      throw expiredError(params.taskId, error);
    }
    throw error;
  }
}

/**
 * Params whose own `_meta` declares the client's capabilities plus the tasks extension.
 *
 * @param ctx The client.
 * @param params The params.
 * @returns A copy with the `_meta`.
 */
export function withTasksMeta(ctx: TaskContext, params: JsonObject): JsonObject {
  const declared = ctx.requester.input?.capabilities() ?? {};
  const meta = { ...(params._meta as JsonObject | undefined) };
  meta[META_CLIENT_CAPABILITIES] = withTasksExtension(declared);
  return { ...params, _meta: meta };
}

/**
 * A {@linkcode Task} out of a wire object, or kind `protocol` reason `invalid_result`.
 *
 * @param method The method that returned it.
 * @param wire The object.
 * @returns The task.
 */
export function taskOf(method: string, wire: unknown): Task {
  const parsed = typeof wire === "object" && wire !== null && !Array.isArray(wire)
    ? parseTask(wire as JsonObject)
    : "it is not an object";
  if (typeof parsed === "string") throw invalid(method, `the task is invalid: ${parsed}`, wire);
  return parsed;
}

/**
 * The body of the legacy era's inbox of server-to-client requests on one link, loaded with
 * the first request a server sends but `ping` (`server_requests.ts` is its stand-in, which
 * answers `ping` and drops what a modern server or a closed link sends): `sampling/createMessage`, `elicitation/create` and `roots/list` go to the handler when the
 * client declared the capability (else `-32601`, or `-32602` for an undeclared mode or
 * option); anything else gets `-32601`. Each request's handler sees a signal that aborts when
 * the server cancels the request (`notifications/cancelled`) or the link ends, and then no
 * answer is sent. A handler that throws gives the server a JSON-RPC error answer; nothing a
 * handler does can break the link.
 *
 * @module
 */

import { isMcpError } from "../../protocol/errors.ts";
import type { HandlerContext } from "../../protocol/capabilities.ts";
import { META_RELATED_TASK } from "../../protocol/tasks.ts";
import type {
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../../protocol/jsonrpc.ts";
import { isObject } from "../../protocol/json.ts";
import type { Era } from "../../protocol/versions.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";

/** What the inbox of one link needs. */
export interface ServerRequestsOptions {
  /** The client's options: the handler, what it declares, the versions, diagnostics. */
  options: ResolvedOptions;
  /** The negotiated protocol, once known. */
  protocol(): { era: Era; version: string } | undefined;
  /** Sends an answer on the link. */
  respond(response: JsonRpcResponse): Promise<void>;
  /** Aborted when the link is done: every handler still running is aborted. */
  signal: AbortSignal;
}

/** The inbox of one link. */
export interface ServerRequests {
  /** Answers a request of the server (in the background). */
  request(request: JsonRpcRequest): void;
  /** Sees every notification of the server (for `notifications/cancelled`). */
  notification(notification: JsonRpcNotification): void;
  /** How many requests are being answered now. */
  pending(): number;
}

function keyOf(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The body of the inbox of one link: what answers the requests the stand-in hands over.
 *
 * @param config The client's options, the link's protocol and its `respond`.
 * @param send Sends an answer (reporting a failure to send).
 * @param protocol The link's legacy version and what the client declares at it (the
 *   stand-in's, so this body imports neither the versions nor the capabilities).
 * @returns The inbox.
 */
export function serverInbox(
  config: ServerRequestsOptions,
  send: (response: JsonRpcResponse) => void,
  protocol: () => { version: string; declared: JsonObject },
): ServerRequests {
  const { options } = config;
  const running = new Map<string, AbortController>();
  const fail = (id: JsonRpcId, error: JsonRpcErrorObject) => send({ jsonrpc: "2.0", id, error });

  const answer = async (request: JsonRpcRequest) => {
    const { id, method } = request;
    const params = isObject(request.params) ? request.params : {};
    const { version, declared } = protocol();
    // Counted as running at once, so a cancellation sent while the answer's code loads holds.
    const controller = new AbortController();
    const key = keyOf(id);
    const stop = () => controller.abort(config.signal.reason);
    config.signal.addEventListener("abort", stop, { once: true });
    running.set(key, controller);
    try {
      // The answers' code loads with the first input request a server sends.
      const { answerInput, inputProblem } = await import("./answer.ts");
      if (controller.signal.aborted) return; // cancelled by the server, or the link is gone
      const problem = inputProblem(method, params, declared);
      if (problem) return fail(id, problem);
      const ctx: HandlerContext = {
        signal: controller.signal,
        era: "legacy",
        protocolVersion: version,
      };
      // A request for the input of a task this client started carries the context of the
      // call that started it; any other task id the server names carries none.
      const related = isObject(params._meta) ? params._meta[META_RELATED_TASK] : undefined;
      const taskId = isObject(related) ? related.taskId : undefined;
      const caller = typeof taskId === "string" ? options.taskCallers?.get(taskId) : undefined;
      if (caller?.assigns !== undefined) ctx.assigns = caller.assigns;
      if (caller?.principal !== undefined) ctx.principal = caller.principal;
      const outcome = await answerInput(method, params, options.handler, ctx);
      if (controller.signal.aborted) return; // cancelled by the server, or the link is gone
      if (outcome.ok) return send({ jsonrpc: "2.0", id, result: outcome.result });
      if (outcome.failure === "invalid") {
        options.warn(outcome.message);
        return fail(id, { code: -32603, message: outcome.message });
      }
      options.warn(`${outcome.message}: ${describe(outcome.error)}`);
      const error = outcome.error;
      // An McpError with a code is the host's chosen answer (e.g. "user rejected"); any
      // other failure is reported without its text, which may hold the host's secrets.
      if (isMcpError(error) && typeof error.code === "number") {
        return fail(id, { code: error.code, message: error.message });
      }
      fail(id, { code: -32603, message: outcome.message });
    } finally {
      config.signal.removeEventListener("abort", stop);
      if (running.get(key) === controller) running.delete(key);
    }
  };

  return {
    request(request) {
      if (config.signal.aborted) return;
      answer(request).catch((error) =>
        options.warn(`Could not answer the server's ${request.method}: ${describe(error)}`)
      );
    },
    notification(notification) {
      if (notification.method !== "notifications/cancelled") return;
      const params = notification.params;
      const id = isObject(params) ? params.requestId : undefined;
      if (typeof id !== "string" && typeof id !== "number") return;
      const reason = isObject(params) && typeof params.reason === "string"
        ? params.reason
        : "Cancelled by the server";
      running.get(keyOf(id))?.abort(new Error(reason));
    },
    pending: () => running.size,
  };
}

/**
 * One session per transport link: request ids, the pending map, per-request timeouts and
 * cancellation, and progress routing. It knows nothing of eras; the connection tells it how
 * to decorate params and whether cancellation travels as a notification.
 *
 * @module
 */

import {
  asMcpError,
  cancelledError,
  malformedAnswer,
  McpError,
  serverErrorReason,
  withErrorCode,
} from "../../protocol/errors.ts";
import {
  type DecodeFailure,
  isErrorResponse,
  isNotification,
  isRequest,
  isResult,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../protocol/jsonrpc.ts";
import type { SendOptions } from "../../transports/transport.ts";
import { counted } from "../../transports/census.ts";
import { Call, type CallCore, deadlineClock, lateAnswers } from "./_call.ts";
import type { Progress, RequestOptions } from "../types.ts";
import type { TraceScope } from "../../tracing/hooks.ts";

/** How a session reaches its link and the connection around it. */
export interface SessionOptions {
  /** Sends one message on the link. */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /** Adds what the era needs (the `_meta` envelope) to a request's params. */
  prepare(
    method: string,
    params: JsonObject | undefined,
    progressToken?: number,
  ): JsonObject | undefined;
  /** Whether a cancelled request is announced with `notifications/cancelled`. */
  cancelByNotification(): boolean;
  /** A notification from the server (progress excluded). */
  onNotification(notification: JsonRpcNotification): void;
  /** A request from the server; answer it with {@linkcode Session.respond}. */
  onRequest(request: JsonRpcRequest): void;
}

/** Per-request settings of {@linkcode Session.request}. */
export interface SessionRequestOptions extends RequestOptions {
  /** Milliseconds before the request fails with kind `timeout` (`Infinity`: never). */
  timeout: number;
  /** Send the params as given, without `prepare` (the probe and the handshake). */
  bare?: boolean;
  /** Attach a `progressToken` (default `true`). */
  progress?: boolean;
  /** Announce cancellation with `notifications/cancelled` where the era uses it (default `true`). */
  cancellable?: boolean;
  /** The request's span, when the client traces: told the id the request goes out with. */
  trace?: TraceScope;
  /**
   * Hears the request's answer when it comes after the request timed out or its caller
   * aborted (within a few seconds): for a request whose answer may name something the server
   * made, which the caller then undoes (a late task is cancelled).
   */
  onLateAnswer?: (result: JsonObject) => void;
}

/** One link's request bookkeeping. */
export interface Session {
  /**
   * Sends a request and resolves with its result object. `timeout` and `maxTotalTimeout`,
   * when given, take the place of the options' (what is left of them after a wait).
   */
  request(
    method: string,
    params: JsonObject | undefined,
    options: SessionRequestOptions,
    timeout?: number,
    maxTotalTimeout?: number,
  ): Promise<JsonObject>;
  /** Sends a notification. */
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Answers a request of the server. */
  respond(response: JsonRpcResponse): Promise<void>;
  /** Handles one message from the link. */
  handle(message: JsonRpcMessage): void;
  /** An answer to request `id` that is not JSON-RPC: that request fails at once. */
  malformed(id: string | number, failure: { reason: DecodeFailure; detail: string }): void;
  /** Fails every pending request with `error`, and every later one too. */
  failAll(error: McpError): void;
  /** A fresh request id (for requests sent outside `request`, such as the HTTP probe). */
  nextId(): number;
  /** How many requests are waiting for an answer. */
  pending(): number;
}

function asTransportError(error: unknown): McpError {
  return asMcpError(error, "The transport could not send the message", "send_failed");
}

/**
 * Creates the session of one link.
 *
 * @param options The link and the connection's callbacks.
 * @returns The session.
 */
export function createSession(options: SessionOptions): Session {
  // The requests in flight by id in a plain object, not a `Map`: under Bun a `Map` that takes
  // and drops an entry per request keeps what the requests in flight reach alive past the
  // young collections (with 32 in flight the old heap grows ~1 MB per 1 000 calls).
  // (Numeric keys only: no key of `Object.prototype` is one.)
  const pending: Record<number, Call> = {};
  const inFlight = () => Object.keys(pending).length;
  counted("session.pending", inFlight);
  let ended: McpError | undefined;
  let lastId = 0;
  const clock = deadlineClock(() => Object.values(pending));
  const late = lateAnswers();

  const notify = (method: string, params?: JsonObject): Promise<void> => {
    if (ended) return Promise.reject(ended);
    const message: JsonRpcNotification = params === undefined
      ? { jsonrpc: "2.0", method }
      : { jsonrpc: "2.0", method, params };
    return options.send(message).catch((error) => {
      throw asTransportError(error);
    });
  };
  const core: CallCore = {
    pending,
    clock,
    cancels: (call) => call.opts.cancellable !== false && !ended && options.cancelByNotification(),
    notify,
    gaveUp(call) {
      const hear = call.opts.onLateAnswer;
      if (hear !== undefined && !ended) late.keep(call.id, hear);
    },
  };

  const request = (
    method: string,
    params: JsonObject | undefined,
    opts: SessionRequestOptions,
    timeout = opts.timeout,
    maxTotalTimeout = opts.maxTotalTimeout,
  ): Promise<JsonObject> => {
    if (ended) return Promise.reject(ended);
    const signal = opts.signal;
    if (signal?.aborted) {
      return Promise.reject(cancelledError(method, signal));
    }
    const id = ++lastId;
    opts.trace?.sent(id);
    const timed = Number.isFinite(timeout);
    // A timed request always carries a token, so that the server's progress can extend it.
    const wantsToken = opts.progress !== false && (opts.onProgress !== undefined || timed);
    const progressToken = wantsToken ? id : undefined;
    let call!: Call;
    const promise = new Promise<JsonObject>((resolve, reject) => {
      call = new Call(
        core,
        id,
        method,
        opts,
        progressToken,
        resolve,
        reject,
        timeout,
        maxTotalTimeout,
      );
    });
    pending[id] = call;
    if (signal !== undefined) {
      call.onAbort = () => call.aborted();
      signal.addEventListener("abort", call.onAbort, { once: true });
    }
    if (timed) {
      if (!call.place()) {
        call.expire(false); // already past its deadline: never sent
        return promise;
      }
      clock.add(call);
    }

    let sent: JsonObject | undefined;
    try {
      sent = opts.bare ? params : options.prepare(method, params, progressToken);
    } catch (error) {
      call.fail(asTransportError(error));
      return promise;
    }
    const message: JsonRpcRequest = sent === undefined
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params: sent };
    options.send(message, call).catch((error) => call.fail(asTransportError(error)));
    return promise;
  };

  const progress = (params: JsonObject | undefined) => {
    const token = params?.progressToken;
    if (typeof token !== "number") return;
    const entry = pending[token];
    if (!entry || entry.progressToken !== token) return;
    entry.touch();
    try {
      entry.onProgress?.(params as unknown as Progress);
    } catch {
      // A throwing progress callback must not break the session.
    }
  };

  return {
    request,
    notify,
    respond(response) {
      if (ended) return Promise.reject(ended);
      return options.send(response).catch((error) => {
        throw asTransportError(error);
      });
    },
    handle(message) {
      if (isResult(message)) {
        if (typeof message.id !== "number") return;
        const entry = pending[message.id];
        if (entry !== undefined) entry.succeed(message.result);
        else late.take(message.id, message.result);
        return;
      }
      if (isErrorResponse(message)) {
        const entry = typeof message.id === "number" ? pending[message.id] : undefined;
        if (entry === undefined && typeof message.id === "number") late.take(message.id, undefined);
        const { code, message: text, data } = message.error;
        entry?.fail(
          new McpError(`${entry.method} failed: ${withErrorCode(text, code)}`, {
            kind: "server",
            reason: serverErrorReason(code),
            code,
            data,
          }),
        );
        return;
      }
      if (isRequest(message)) return options.onRequest(message);
      if (isNotification(message)) {
        if (message.method === "notifications/progress") return progress(message.params);
        options.onNotification(message);
      }
    },
    malformed(id, failure) {
      const entry = typeof id === "number" ? pending[id] : undefined;
      entry?.fail(malformedAnswer(`the "${entry.method}" request`, failure));
    },
    failAll(error) {
      ended ??= error;
      for (const entry of Object.values(pending)) entry.fail(error);
      clock.stop();
      late.clear();
    },
    nextId: () => ++lastId,
    pending: inFlight,
  };
}

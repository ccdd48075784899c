/**
 * Private: one live Streamable HTTP link. Modern messages are stateless POSTs with the
 * mirrored `Mcp-*` headers; legacy links keep the session id, open the GET stream after
 * `notifications/initialized`, resume broken streams with `Last-Event-ID`, and `DELETE`
 * the session on close.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import {
  isErrorResponse,
  isRequest,
  isResult,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from "../protocol/jsonrpc.ts";
import { abortError, linkSignals } from "./_http.ts";
import { clearTimer, startTimer, type Timer } from "../clock/timer.ts";
import { counted } from "./census.ts";
import { Slots } from "./_slots.ts";
import {
  deleteSession,
  isInitialize,
  type LinkConfig,
  type LinkState,
  modernVersion,
  postMessage,
  requestHeaders,
} from "./_http_request.ts";
import { decodeOrThrow, isResponse, readProbe } from "./_http_response.ts";
import { sessionExpiredError } from "./_http_session.ts";
import { onPostResponse, type PostContext } from "./_http_post_answer.ts";
import { openGetStream, type StreamContext } from "./_http_streams.ts";
import type {
  HttpProbeResult,
  LinkProtocol,
  SendOptions,
  TransportLink,
  TransportSink,
} from "./transport.ts";

export type { LinkConfig } from "./_http_request.ts";

/** How long `close()` lets notifications in flight (a last cancellation) finish. */
const NOTIFY_GRACE_MS = 500;

/** Opens a link: no network traffic happens until the first message. */
export function openLink(config: LinkConfig, sink: TransportSink): TransportLink {
  const state: LinkState = { protocol: undefined, sessionId: undefined };
  let initialized = false;
  // The session expired and no new `initialize` answered yet: other messages would go
  // without a session id (and get a 400), so they fail as `session_expired` at once.
  let sessionLost = false;
  let getStream: AbortController | undefined;
  let closing: Promise<void> | undefined;
  const life = new AbortController();
  const listRequests = new Set<JsonRpcId>();

  const warn = (text: string) => sink.warn?.(text);

  function deliver(message: JsonRpcMessage): void {
    let out = message;
    if (isResult(message) && listRequests.has(message.id)) {
      listRequests.delete(message.id);
      out = config.tools.filterListResult(message, warn);
    }
    try {
      sink.message(out);
    } catch (error) {
      warn(`The client's message handler threw: ${String(error)}`);
    }
  }

  /** Delivers the response to `request`, or throws when it answers something else. */
  function deliverResponse(request: JsonRpcRequest, message: JsonRpcMessage, what: string): void {
    if (!isResponse(message)) {
      throw new McpError(`The server answered ${what} with a message that is not a response`, {
        kind: "protocol",
        reason: "malformed_body",
      });
    }
    if (isErrorResponse(message) && (message.id === undefined || message.id === null)) {
      deliver({ ...message, id: request.id });
      return;
    }
    if (message.id !== request.id) {
      throw new McpError(`The server answered ${what} with the response to another request`, {
        kind: "protocol",
        reason: "unexpected_response",
      });
    }
    if (isInitialize(request) && isResult(message) && state.protocol?.era !== "modern") {
      // Every request after `initialize` carries the negotiated version, the client's
      // `notifications/initialized` included (it may come before `setProtocol`).
      const version = message.result.protocolVersion;
      if (typeof version === "string") state.protocol = { era: "legacy", version };
    }
    deliver(message);
  }

  /** Forgets the session `carried` (when it is still the link's) and returns the error. */
  function sessionExpired(carried: string, status = 404): McpError {
    if (state.sessionId === carried) {
      state.sessionId = undefined;
      sessionLost = true;
      initialized = false;
      getStream?.abort();
      getStream = undefined;
    }
    return sessionExpiredError(status);
  }

  const streams: PostContext = {
    config,
    deliver,
    deliverResponse,
    warn,
    headersFor: (lastEventId) =>
      Promise.resolve(requestHeaders(config, state, "GET")).then(({ headers, session }) => {
        if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
        return { headers, session };
      }),
    sessionExpired,
    decode: decodeOrThrow,
    maxRetryAfter: sink.maxRetryAfter,
    sessionStarted(id) {
      if (id !== undefined) state.sessionId = id;
      sessionLost = false;
    },
    initializedSent() {
      initialized = true;
      maybeStartGet();
    },
  };

  /**
   * The GET stream's view of the link. A lost session it finds before any request did ends
   * the link: no request is waiting to renew the session, so the client reconnects (a new
   * session, subscriptions made again) rather than a listening client hearing nothing.
   */
  const getStreamContext: StreamContext = {
    ...streams,
    sessionExpired(carried, status) {
      const first = state.sessionId === carried;
      const error = sessionExpired(carried, status);
      if (first && !life.signal.aborted) {
        sink.closed(error);
        void link.close();
      }
      return error;
    },
  };

  function maybeStartGet(): void {
    if (getStream !== undefined || life.signal.aborted || !initialized) return;
    if (state.protocol?.era === "modern") return;
    const controller = new AbortController();
    getStream = controller;
    const scope = linkSignals(life.signal, controller.signal);
    openGetStream(getStreamContext, scope.signal).catch((error) => {
      warn(`The GET event stream failed: ${String(error)}`);
    }).finally(() => {
      scope.unlink();
      if (getStream === controller) getStream = undefined;
    });
  }

  const closedError = () =>
    new McpError("The HTTP link is closed", { kind: "closed", reason: "link_closed" });

  /** The controllers of requests in flight that brought their own; aborted on close. */
  const owned = new Slots<AbortController>();
  counted("http.controllers", () => owned.size);

  /**
   * Runs `work` with a signal that aborts with the caller's or the link's; once either
   * aborted, whatever `work` throws becomes the abort error. A request that brings its own
   * controller (the session's, one per request) uses it as is: the link aborts it on close,
   * so no second controller or listener is made per request.
   */
  async function scoped<A extends unknown[], T>(
    options: SendOptions,
    work: (signal: AbortSignal, ...args: A) => Promise<T>,
    ...args: A
  ): Promise<T> {
    const own = options.controller;
    const direct = own !== undefined &&
      (options.signal === undefined || options.signal === own.signal);
    const scope = direct ? undefined : linkSignals(options.signal, life.signal);
    const signal = direct ? own.signal : scope!.signal;
    const slot = direct ? owned.add(own) : -1;
    try {
      if (signal.aborted) throw abortError(signal);
      return await work(signal, ...args);
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      throw error;
    } finally {
      if (direct) owned.drop(slot, own);
      else scope!.unlink();
    }
  }

  /** POSTs one message and handles the answer (a response, an event stream, or none). */
  async function post(signal: AbortSignal, message: JsonRpcMessage, modern: boolean) {
    const request = isRequest(message) ? message : undefined;
    try {
      const { headers, session } = await requestHeaders(config, state, "POST", message);
      if (modern && request?.method === "tools/list") listRequests.add(request.id);
      const response = await postMessage(config, headers, message, signal);
      await onPostResponse(streams, message, modern, response, session, signal);
    } finally {
      if (request !== undefined) listRequests.delete(request.id);
    }
  }

  async function probeOnce(signal: AbortSignal, request: JsonRpcRequest) {
    const { headers } = await requestHeaders(config, state, "POST", request);
    const response = await postMessage(config, headers, request, signal);
    return await readProbe(response, config.maxResponseBytes);
  }

  /** Notifications being POSTed (a `notifications/cancelled` sent just before close). */
  const notifying = new Set<Promise<void>>();

  /** Lets the notifications in flight finish, for at most {@linkcode NOTIFY_GRACE_MS}. */
  async function flushNotifications(): Promise<void> {
    if (notifying.size === 0) return;
    let timer: Timer | undefined;
    const grace = new Promise<void>((resolve) => timer = startTimer(resolve, NOTIFY_GRACE_MS));
    await Promise.race([Promise.allSettled([...notifying]), grace]);
    clearTimer(timer);
  }

  const link: TransportLink = {
    send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
      if (life.signal.aborted) return Promise.reject(closedError());
      const modern = modernVersion(message) !== undefined || state.protocol?.era === "modern";
      if (sessionLost && !modern && !isInitialize(message)) {
        return Promise.reject(sessionExpiredError());
      }
      const sent = scoped(options, post, message, modern);
      if (!("method" in message) || "id" in message) return sent;
      notifying.add(sent);
      return sent.finally(() => notifying.delete(sent));
    },

    setProtocol(next: LinkProtocol): void {
      state.protocol = { era: next.era, version: next.version };
      maybeStartGet();
    },

    sessionId: () => state.sessionId,

    async probe(request: JsonRpcRequest, options: SendOptions = {}): Promise<HttpProbeResult> {
      if (life.signal.aborted) throw closedError();
      return await scoped(options, probeOnce, request);
    },

    close(): Promise<void> {
      closing ??= (async () => {
        // A cancellation sent just before close still reaches the server.
        await flushNotifications();
        life.abort(closedError());
        for (const controller of owned.take()) controller.abort(life.signal.reason);
        getStream?.abort();
        const session = state.sessionId;
        state.sessionId = undefined;
        if (session !== undefined) await deleteSession(config, session, state.protocol);
      })();
      return closing;
    },
  };
  return link;
}

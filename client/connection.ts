/**
 * The connection's state machine: connecting → ready ⇄ reconnecting, and closed. It opens
 * links, negotiates on each, queues requests until ready, reconnects with backoff after a
 * transport failure, pins a modern era, and adds the era's envelope to every request.
 *
 * @module
 */

import { isMcpError, McpError } from "../protocol/errors.ts";
import {
  isRequest,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcNotification,
} from "../protocol/jsonrpc.ts";
import type { LogLevel } from "../protocol/meta.ts";
import type { Era } from "../protocol/versions.ts";
import { backoffDelay, delay } from "./_async.ts";
import { capabilitiesFor, envelope } from "./_envelope.ts";
import { acceptResult } from "./input.ts";
import {
  type LinkHandle,
  negotiate,
  type NegotiateContext,
  type Negotiated,
  renewLegacySession,
} from "./negotiate.ts";
import { retryDelay } from "./_retry.ts";
import { createServerRequests } from "./server_requests.ts";
import { createSession } from "./session.ts";
import { createWaitRoom } from "./_waiting.ts";
import type { ResolvedOptions } from "./_options.ts";
import type { ClientState, ClientStatus, RequestOptions, ServerInfo } from "./types.ts";

/** Request options the client's own methods add. */
export interface ConnectionRequestOptions extends RequestOptions {
  /** Attach a `progressToken` (default `true`). */
  progress?: boolean;
}

/** Options of {@linkcode Connection.stream}. */
export interface StreamOptions {
  /** Ends the stream (on stdio by `notifications/cancelled`, on HTTP by closing it). */
  signal: AbortSignal;
  /** Receives the JSON-RPC id the request was sent with, as soon as it is sent. */
  onId(id: JsonRpcId): void;
}

/** Internal bookkeeping a request carries through the queue and its retries. */
interface Outgoing extends ConnectionRequestOptions {
  /** When the caller made the request: its timeout counts from here. */
  startedAt?: number;
  /** Retries made after retryable HTTP statuses. */
  statusRetries?: number;
  /** Sent again after the legacy session was renewed. */
  renewed?: boolean;
}

/** The connection behind a client. */
export interface Connection {
  /** The state, read without messaging. */
  status(): ClientStatus;
  /** The negotiated era, or `undefined` before the first handshake. */
  currentEra(): Era | undefined;
  /** The handshake's server info; throws kind `unavailable` while not ready. */
  serverInfo(): ServerInfo;
  /** Resolves when ready. */
  ready(timeout?: number): Promise<void>;
  /**
   * Sends a long-lived request (such as `subscriptions/listen`) on the ready link, without a
   * timeout; it settles when the server ends it or the link fails. Rejects at once with
   * kind `unavailable` when not ready.
   */
  stream(
    method: string,
    params: JsonObject | undefined,
    options: StreamOptions,
  ): Promise<JsonObject>;
  /**
   * Sends a request (queued until ready) and resolves with its final result. An expired
   * legacy session is renewed and the request sent again once; requests answered with a
   * retryable HTTP status are retried as the `retry` option says.
   */
  request(
    method: string,
    params: JsonObject | undefined,
    options?: ConnectionRequestOptions,
  ): Promise<JsonObject>;
  /** The log level sent in modern `_meta` (and re-sent to a legacy server after reconnecting). */
  setLogLevel(level: LogLevel): void;
  /** Sends a notification on the ready link; rejects with kind `unavailable` when not ready. */
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Closes for good (until `reconnect`). */
  close(): Promise<void>;
  /** Drops the link and connects again at once, with the attempt count reset. */
  reconnect(): Promise<void>;
}

/** What the connection tells the client about. */
export interface ConnectionEvents {
  /** A server notification (progress excluded). */
  notification(notification: JsonRpcNotification): void;
  /** The client closed (by `close()` or by giving up). */
  closed(): void;
  /** The connection became ready: on a new link, or on a renewed legacy session. */
  ready?(info: { era: Era; renewed: boolean }): void;
}

function asMcpError(error: unknown): McpError {
  if (isMcpError(error)) return error;
  return new McpError("The connection failed", {
    kind: "transport",
    reason: "failed",
    cause: error,
  });
}

function retryable(error: McpError): boolean {
  return error.kind === "transport" || error.kind === "timeout" ||
    error.reason === "downgrade_refused";
}

/**
 * Creates a connection and starts connecting in the background.
 *
 * @param options The validated client options.
 * @param events Where notifications and the end go.
 * @returns The connection.
 */
export function createConnection(options: ResolvedOptions, events: ConnectionEvents): Connection {
  let state: ClientState = "connecting";
  let attempts = 0;
  let lastError: McpError | undefined;
  let closedError: McpError | undefined;
  let negotiated: Negotiated | undefined;
  let pinnedModern: string | undefined;
  let current: LinkHandle | undefined;
  let capabilities: JsonObject = {};
  let logLevel: LogLevel | undefined;
  let run = new AbortController();
  const attemptLinks = new Set<LinkHandle>();
  const room = createWaitRoom<Outgoing>(() => lastError);
  // A legacy session being renewed on `handle`: requests wait in the room meanwhile.
  let renewal: { handle: LinkHandle; done: Promise<void> } | undefined;
  let sessionGeneration = 0;
  // Set around `stream`'s synchronous send, to learn the request's id.
  let capture: { method: string; onId(id: JsonRpcId): void } | undefined;

  const declared = (era: Era, version: string) => capabilitiesFor(options, era, version);
  const prepare = (_method: string, params: JsonObject | undefined, progressToken?: number) =>
    envelope(
      options,
      negotiated && { ...negotiated, capabilities, logLevel },
      params,
      progressToken,
    );

  const openLink = async (signal: AbortSignal): Promise<LinkHandle> => {
    // Filled in once the transport opened; the session only sends after that.
    const handle = {} as LinkHandle;
    const inbox = createServerRequests({
      options,
      protocol: () => negotiated,
      respond: (response) => session.respond(response),
      signal,
    });
    const session = createSession({
      send: (message, sendOptions) => {
        if (capture !== undefined && isRequest(message) && message.method === capture.method) {
          capture.onId(message.id);
          capture = undefined;
        }
        return handle.link.send(message, sendOptions);
      },
      prepare,
      cancelByNotification: () => negotiated?.era === "legacy" || options.transport.kind !== "http",
      onNotification: (notification) => {
        inbox.notification(notification);
        if (handle === current || attemptLinks.has(handle)) events.notification(notification);
      },
      onRequest: (request) => inbox.request(request),
    });
    handle.session = session;
    handle.link = await options.transport.open({
      message: (message) => session.handle(message),
      closed: (error) => linkClosed(handle, error),
      warn: options.warn,
    });
    attemptLinks.add(handle);
    if (signal.aborted) {
      await dropLink(handle, new McpError("Connection attempt abandoned", { kind: "closed" }));
      throw signal.reason;
    }
    return handle;
  };

  const dropLink = async (handle: LinkHandle, error: McpError) => {
    attemptLinks.delete(handle);
    if (current === handle) current = undefined;
    handle.session.failAll(error);
    await handle.link.close().catch(() => {});
  };

  const giveUp = (error: McpError) => {
    state = "closed";
    lastError = error;
    closedError = new McpError(`The client is closed: it gave up connecting (${error.message})`, {
      kind: "closed",
      reason: "gave_up",
      cause: error,
    });
    room.rejectAll(error);
    room.settle(error);
    events.closed();
  };

  const becomeReady = (handle: LinkHandle, outcome: Negotiated) => {
    current = handle;
    attemptLinks.delete(handle);
    negotiated = outcome;
    capabilities = declared(outcome.era, outcome.version);
    if (outcome.era === "modern") pinnedModern ??= outcome.version;
    handle.link.setProtocol({ era: outcome.era, version: outcome.version });
    state = "ready";
    attempts = 0;
    lastError = undefined;
    if (outcome.era === "legacy" && logLevel !== undefined && outcome.capabilities.logging) {
      send(handle, "logging/setLevel", { level: logLevel }, { progress: false }, Date.now())
        .catch((error) => options.warn(`Could not restore the log level: ${error}`));
    }
    room.settle();
    releaseQueue(handle);
    events.ready?.({ era: outcome.era, renewed: false });
  };

  const releaseQueue = (handle: LinkHandle) =>
    room.release((item) =>
      transmit(
        handle,
        item.method,
        item.params,
        item.options,
        item.options.startedAt ?? item.queuedAt,
      )
    );

  const connectOnce = async (signal: AbortSignal) => {
    let handle = await openLink(signal);
    try {
      const [final, outcome] = await negotiate({
        kind: options.transport.kind,
        handle,
        reopen: async () => {
          await dropLink(
            handle,
            new McpError("Reopening for the legacy era", { kind: "transport" }),
          );
          handle = await openLink(signal);
          return handle;
        },
        protocol: options.protocol,
        versions: options.versions,
        pinnedModern,
        previousEra: negotiated?.era,
        capabilities: declared,
        clientInfo: options.clientInfo,
        probeTimeout: options.probeTimeout,
        requestTimeout: options.requestTimeout,
      });
      if (signal.aborted) throw signal.reason;
      return [final, outcome] as const;
    } catch (error) {
      await dropLink(handle, asMcpError(error));
      throw error;
    }
  };

  const loop = async (signal: AbortSignal, delayFirst: boolean) => {
    for (let wait = delayFirst;; wait = true) {
      if (wait) {
        const max = options.reconnect === false ? 0 : options.reconnect.attempts;
        if (attempts >= max) return giveUp(lastError ?? asMcpError(undefined));
        attempts += 1;
        const backoff = options.reconnect === false
          ? 0
          : backoffDelay(attempts, options.reconnect, options.random);
        const retryAfter = lastError?.data && typeof lastError.data === "object"
          ? Number((lastError.data as JsonObject).retryAfterMs ?? 0)
          : 0;
        try {
          await delay(Math.max(backoff, retryAfter || 0), signal);
        } catch {
          return;
        }
      }
      try {
        const [handle, outcome] = await connectOnce(signal);
        if (signal.aborted) return;
        return becomeReady(handle, outcome);
      } catch (error) {
        if (signal.aborted) return;
        lastError = asMcpError(error);
        if (!retryable(lastError)) return giveUp(lastError);
      }
    }
  };

  const start = (delayFirst: boolean) => {
    run.abort();
    run = new AbortController();
    loop(run.signal, delayFirst).catch((error) => giveUp(asMcpError(error)));
  };

  function linkClosed(handle: LinkHandle, error: McpError) {
    handle.session.failAll(error);
    attemptLinks.delete(handle);
    if (handle !== current) return;
    current = undefined;
    lastError = error;
    if (state !== "ready") return;
    state = "reconnecting";
    start(true);
  }

  const send = async (
    handle: LinkHandle,
    method: string,
    params: JsonObject | undefined,
    opts: ConnectionRequestOptions,
    queuedAt: number,
  ): Promise<JsonObject> => {
    const timeout = (opts.timeout ?? options.requestTimeout) - (Date.now() - queuedAt);
    const maxTotalTimeout = opts.maxTotalTimeout === undefined
      ? undefined
      : opts.maxTotalTimeout - (Date.now() - queuedAt);
    const result = await handle.session.request(method, params, {
      ...opts,
      timeout,
      maxTotalTimeout,
    });
    return negotiated?.era === "modern" ? acceptResult(method, result) : result;
  };

  /** Milliseconds left of a request's timeout. */
  const budget = (opts: Outgoing, startedAt: number) =>
    Math.min(
      (opts.timeout ?? options.requestTimeout) - (Date.now() - startedAt),
      opts.maxTotalTimeout === undefined
        ? Infinity
        : opts.maxTotalTimeout - (Date.now() - startedAt),
    );

  /** Sends now when ready, else queues (again, for a retry) until ready. */
  const dispatch = (
    method: string,
    params: JsonObject | undefined,
    opts: Outgoing,
    startedAt: number,
  ): Promise<JsonObject> => {
    if (state === "closed") return Promise.reject(closedError);
    if (state === "ready" && current && renewal === undefined) {
      return transmit(current, method, params, opts, startedAt);
    }
    return room.enqueue(method, params, opts, budget(opts, startedAt));
  };

  /** Sends on `handle`, renewing an expired session or retrying an HTTP status as needed. */
  const transmit = async (
    handle: LinkHandle,
    method: string,
    params: JsonObject | undefined,
    opts: Outgoing,
    startedAt: number,
  ): Promise<JsonObject> => {
    const generation = sessionGeneration;
    try {
      return await send(handle, method, params, opts, startedAt);
    } catch (error) {
      if (!isMcpError(error)) throw error;
      if (error.kind === "transport" && error.reason === "session_expired") {
        if (opts.renewed) {
          throw new McpError(
            `${method} failed: the server's session expired again right after a new one started`,
            { kind: "transport", reason: "session_expired", cause: error },
          );
        }
        await renewSession(handle, generation);
        return dispatch(method, params, { ...opts, startedAt, renewed: true }, startedAt);
      }
      const retries = opts.statusRetries ?? 0;
      const wait = retryDelay(method, error, retries, options.retry, options.random);
      if (wait === undefined || wait >= budget(opts, startedAt)) throw error;
      try {
        await delay(wait, opts.signal);
      } catch {
        throw new McpError(`${method} was cancelled`, {
          kind: "cancelled",
          reason: "aborted",
          cause: opts.signal?.reason,
        });
      }
      return dispatch(
        method,
        params,
        { ...opts, startedAt, statusRetries: retries + 1 },
        startedAt,
      );
    }
  };

  /** Drops a link that cannot go on and reconnects (as after a transport failure). */
  const abandon = (handle: LinkHandle, error: McpError) => {
    if (handle !== current) return;
    current = undefined;
    lastError = error;
    state = "reconnecting";
    void dropLink(handle, error);
    start(true);
  };

  /**
   * Renews the legacy session of `handle` once for every request that saw it expire (a
   * request sent before a renewal that already happened just goes again).
   */
  const renewSession = (handle: LinkHandle, generation: number): Promise<void> => {
    if (handle !== current || generation !== sessionGeneration) return Promise.resolve();
    if (renewal?.handle !== handle) renewal = { handle, done: renew(handle) };
    return renewal.done;
  };

  const renew = async (handle: LinkHandle): Promise<void> => {
    const ctx: NegotiateContext = {
      kind: options.transport.kind,
      handle,
      reopen: () => Promise.reject(new McpError("No reopening here", { kind: "transport" })),
      protocol: options.protocol,
      versions: options.versions,
      pinnedModern,
      previousEra: "legacy",
      capabilities: declared,
      clientInfo: options.clientInfo,
      probeTimeout: options.probeTimeout,
      requestTimeout: options.requestTimeout,
    };
    let outcome: Negotiated;
    try {
      await Promise.resolve(); // let `renewal` be set before anything settles
      outcome = await renewLegacySession(ctx, handle, negotiated?.version ?? options.versions[0]);
    } catch (error) {
      if (renewal?.handle === handle) renewal = undefined;
      const failure = new McpError(
        `The server's session expired and a new one could not be started (${
          error instanceof Error ? error.message : String(error)
        })`,
        { kind: "transport", reason: "session_renewal_failed", cause: error },
      );
      abandon(handle, failure);
      throw failure;
    }
    if (renewal?.handle === handle) renewal = undefined;
    if (handle !== current) return;
    negotiated = outcome;
    capabilities = declared(outcome.era, outcome.version);
    handle.link.setProtocol({ era: outcome.era, version: outcome.version });
    sessionGeneration++;
    if (logLevel !== undefined && outcome.capabilities.logging) {
      send(handle, "logging/setLevel", { level: logLevel }, { progress: false }, Date.now())
        .catch((error) => options.warn(`Could not restore the log level: ${error}`));
    }
    if (state === "ready") releaseQueue(handle);
    events.ready?.({ era: outcome.era, renewed: true });
  };

  const ready = (timeout?: number): Promise<void> => {
    if (state === "ready") return Promise.resolve();
    if (state === "closed") return Promise.reject(closedError);
    return room.wait(timeout);
  };

  const dropAll = async (error: McpError) => {
    run.abort();
    renewal = undefined;
    const handles = [...attemptLinks, ...(current ? [current] : [])];
    await Promise.all(handles.map((handle) => dropLink(handle, error)));
  };

  start(false);

  return {
    status: () => ({
      state,
      era: negotiated?.era,
      version: negotiated?.version,
      attempts,
      error: lastError,
    }),
    currentEra: () => negotiated?.era,
    serverInfo() {
      if (state !== "ready" || !negotiated) {
        throw new McpError(`The client is not ready (${state})`, {
          kind: "unavailable",
          reason: "not_ready",
        });
      }
      return {
        serverInfo: negotiated.serverInfo,
        capabilities: negotiated.capabilities,
        instructions: negotiated.instructions,
        era: negotiated.era,
        version: negotiated.version,
      };
    },
    ready,
    request: (method, params, opts = {}) => dispatch(method, params, opts, Date.now()),
    stream(method, params, streamOptions) {
      if (state !== "ready" || !current || renewal !== undefined) {
        return Promise.reject(
          new McpError(`The client is not ready (${state})`, {
            kind: "unavailable",
            reason: "not_ready",
          }),
        );
      }
      capture = { method, onId: streamOptions.onId };
      try {
        return current.session.request(method, params, {
          timeout: Infinity,
          progress: false,
          signal: streamOptions.signal,
        });
      } finally {
        capture = undefined;
      }
    },
    setLogLevel(level) {
      logLevel = level;
    },
    notify(method, params) {
      if (state !== "ready" || !current) {
        return Promise.reject(
          new McpError(`The client is not ready (${state})`, {
            kind: "unavailable",
            reason: "not_ready",
          }),
        );
      }
      return current.session.notify(method, params);
    },
    async close() {
      const error = new McpError("The client is closed", { kind: "closed", reason: "closed" });
      const wasClosed = state === "closed";
      state = "closed";
      closedError = error;
      room.rejectAll(error);
      room.settle(error);
      await dropAll(error);
      if (!wasClosed) events.closed();
    },
    async reconnect() {
      const error = new McpError("The client is reconnecting", {
        kind: "transport",
        reason: "reconnecting",
      });
      state = negotiated ? "reconnecting" : "connecting";
      attempts = 0;
      lastError = undefined;
      closedError = undefined;
      const revived = room.wait();
      await dropAll(error);
      start(false);
      return revived;
    },
  };
}

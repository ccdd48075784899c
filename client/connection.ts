/**
 * The connection's state machine: connecting → ready ⇄ reconnecting, and closed. It opens
 * links, negotiates on each, queues requests until ready, reconnects with backoff after a
 * transport failure, pins a modern era, and adds the era's envelope to every request.
 *
 * @module
 */

import { isMcpError, McpError } from "../protocol/errors.ts";
import type { JsonObject, JsonRpcNotification } from "../protocol/jsonrpc.ts";
import type { LogLevel } from "../protocol/meta.ts";
import type { Era } from "../protocol/versions.ts";
import { backoffDelay, delay } from "./_async.ts";
import { capabilitiesFor, envelope } from "./_envelope.ts";
import { acceptResult, answerServerRequest } from "./input.ts";
import { type LinkHandle, negotiate, type Negotiated } from "./negotiate.ts";
import { createSession } from "./session.ts";
import { createWaitRoom } from "./_waiting.ts";
import type { ResolvedOptions } from "./_options.ts";
import type { ClientState, ClientStatus, RequestOptions, ServerInfo } from "./types.ts";

/** Request options the client's own methods add. */
export interface ConnectionRequestOptions extends RequestOptions {
  /** Attach a `progressToken` (default `true`). */
  progress?: boolean;
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
  /** Sends a request (queued until ready) and resolves with its final result. */
  request(
    method: string,
    params: JsonObject | undefined,
    options?: ConnectionRequestOptions,
  ): Promise<JsonObject>;
  /** The log level sent in modern `_meta` (and re-sent to a legacy server after reconnecting). */
  setLogLevel(level: LogLevel): void;
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
  const room = createWaitRoom<ConnectionRequestOptions>(() => lastError);

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
    const session = createSession({
      send: (message, sendOptions) => handle.link.send(message, sendOptions),
      prepare,
      cancelByNotification: () => negotiated?.era === "legacy" || options.transport.kind !== "http",
      onNotification: (notification) => {
        if (handle === current || attemptLinks.has(handle)) events.notification(notification);
      },
      onRequest: (request) => {
        answerServerRequest(request, options.handler)
          .then((response) => session.respond(response))
          .catch((error) =>
            options.warn(`Could not answer the server's ${request.method}: ${error}`)
          );
      },
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
    room.release((item) => send(handle, item.method, item.params, item.options, item.queuedAt));
  };

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

  const ready = (timeout?: number): Promise<void> => {
    if (state === "ready") return Promise.resolve();
    if (state === "closed") return Promise.reject(closedError);
    return room.wait(timeout);
  };

  const dropAll = async (error: McpError) => {
    run.abort();
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
    request(method, params, opts = {}) {
      if (state === "closed") return Promise.reject(closedError);
      if (state === "ready" && current) return send(current, method, params, opts, Date.now());
      return room.enqueue(method, params, opts, opts.timeout ?? options.requestTimeout);
    },
    setLogLevel(level) {
      logLevel = level;
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

/**
 * The connection's state machine: connecting → ready ⇄ reconnecting, and closed. It opens
 * links, negotiates on each, queues requests until ready, reconnects with backoff after a
 * transport failure, pins a modern era, and adds the era's envelope to every request. The
 * connect loop is in `_connect_loop.ts`, the request path in `_dispatch.ts`.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcId } from "../../protocol/jsonrpc.ts";
import type { LogLevel } from "../../protocol/meta.ts";
import type { Era } from "../../protocol/versions.ts";
import { type Connector, createConnector } from "./_connect_loop.ts";
import {
  type ConnectionEvents,
  type ConnectionRequestOptions,
  createConnectionState,
} from "./_state.ts";
import { createDispatcher, type Dispatcher } from "./_dispatch.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";
import type { ClientState, ClientStatus, ServerInfo } from "../types.ts";

export type { ConnectionEvents, ConnectionRequestOptions } from "./_state.ts";

/** The error of a call that needs a ready connection: kind `unavailable`, reason `not_ready`. */
function notReadyError(state: ClientState): McpError {
  return new McpError(`The client is not ready (${state})`, {
    kind: "unavailable",
    reason: "not_ready",
  });
}

/** Options of {@linkcode Connection.stream}. */
export interface StreamOptions {
  /** Ends the stream (on stdio by `notifications/cancelled`, on HTTP by closing it). */
  signal: AbortSignal;
  /** Receives the JSON-RPC id the request was sent with, as soon as it is sent. */
  onId(id: JsonRpcId): void;
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
   * retryable HTTP status are retried as the `retry` option says. A request that cannot
   * reach the server fails with reason `network` and the connection reconnects.
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

/**
 * Creates a connection and starts connecting in the background.
 *
 * @param options The validated client options.
 * @param events Where notifications and the end go.
 * @returns The connection.
 */
export function createConnection(options: ResolvedOptions, events: ConnectionEvents): Connection {
  const s = createConnectionState(options, events);
  const { room } = s;
  const dispatcher: Dispatcher = createDispatcher(s, (handle, error) => {
    connector.abandon(handle, error);
  });
  const connector: Connector = createConnector(s, (handle) => dispatcher.release(handle));

  const ready = (timeout?: number): Promise<void> => {
    if (s.state === "ready") return Promise.resolve();
    if (s.state === "closed") return Promise.reject(s.closedError);
    return room.wait(timeout);
  };

  connector.start(false);

  return {
    status: () => ({
      state: s.state,
      era: s.negotiated?.era,
      version: s.negotiated?.version,
      attempts: s.attempts,
      error: s.lastError,
    }),
    currentEra: () => s.negotiated?.era,
    serverInfo() {
      const negotiated = s.negotiated;
      if (s.state !== "ready" || !negotiated) throw notReadyError(s.state);
      return {
        serverInfo: negotiated.serverInfo,
        capabilities: negotiated.capabilities,
        instructions: negotiated.instructions,
        era: negotiated.era,
        version: negotiated.version,
      };
    },
    ready,
    request: (method, params, opts = {}) => dispatcher.dispatch(method, params, opts, Date.now()),
    stream(method, params, streamOptions) {
      const current = s.current;
      if (s.state !== "ready" || !current || s.renewal !== undefined) {
        return Promise.reject(notReadyError(s.state));
      }
      s.captureNext({ method, onId: streamOptions.onId });
      try {
        return current.session.request(method, params, {
          timeout: Infinity,
          progress: false,
          signal: streamOptions.signal,
        });
      } finally {
        s.captureNext(undefined);
      }
    },
    setLogLevel(level) {
      s.setLogLevel(level);
    },
    notify(method, params) {
      const current = s.current;
      if (s.state !== "ready" || !current) return Promise.reject(notReadyError(s.state));
      return current.session.notify(method, params);
    },
    async close() {
      const error = new McpError("The client is closed", { kind: "closed", reason: "closed" });
      const wasClosed = s.state === "closed";
      s.close(error);
      room.rejectAll(error);
      room.settle(error);
      await connector.dropAll(error);
      if (!wasClosed) events.closed();
    },
    async reconnect() {
      const error = new McpError("The client is reconnecting", {
        kind: "transport",
        reason: "reconnecting",
      });
      s.restart();
      s.stopRun(); // the attempt under way fails as abandoned, not as a reason to give up
      const revived = room.wait();
      await connector.dropAll(error);
      connector.start(false);
      return revived;
    },
  };
}

/**
 * Private: the state one connection's modules share (the state machine's variables, the
 * current link, the queue) and the steps more than one of them takes: dropping a link,
 * sending on a link within a request's timeout, restoring the log level, and the settings
 * negotiation runs with.
 *
 * @module
 */

import type { McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcId } from "../../protocol/jsonrpc.ts";
import type { LogLevel } from "../../protocol/meta.ts";
import type { Era } from "../../protocol/versions.ts";
import { capabilitiesFor } from "./_envelope.ts";
import { asMcpError } from "../_errors.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";
import { createWaitRoom, type WaitRoom } from "./_waiting.ts";
import type { ConnectionEvents, ConnectionRequestOptions } from "./connection.ts";
import { acceptResult } from "../handler/input.ts";
import type { LinkHandle, NegotiateContext, Negotiated } from "./negotiate.ts";
import type { ClientState } from "../types.ts";

/** Internal bookkeeping a request carries through the queue and its retries. */
export interface Outgoing extends ConnectionRequestOptions {
  /** When the caller made the request: its timeout counts from here. */
  startedAt?: number;
  /** Retries made after retryable HTTP statuses. */
  statusRetries?: number;
  /** Sent again after the legacy session was renewed. */
  renewed?: boolean;
}

/** The variables of one connection's state machine. */
export interface ConnectionState {
  /** The client's validated options. */
  readonly options: ResolvedOptions;
  /** Where notifications, readiness and the end go. */
  readonly events: ConnectionEvents;
  /** Requests and `ready()` callers waiting for the connection. */
  readonly room: WaitRoom<Outgoing>;
  /** Links of connection attempts that are not current (yet). */
  readonly attemptLinks: Set<LinkHandle>;
  /** Where the state machine is. */
  state: ClientState;
  /** Failed connection attempts since the client was last ready. */
  attempts: number;
  /** The last failure of the connection. */
  lastError?: McpError;
  /** What requests fail with while closed. */
  closedError?: McpError;
  /** The last handshake's outcome. */
  negotiated?: Negotiated;
  /** The modern version the first modern handshake settled on: never downgrade from it. */
  pinnedModern?: string;
  /** The ready link. */
  current?: LinkHandle;
  /** The capabilities the client declared in the last handshake. */
  capabilities: JsonObject;
  /** The log level for modern `_meta` (and to restore on a legacy server). */
  logLevel?: LogLevel;
  /** Aborts the connect loop that runs. */
  run: AbortController;
  /** A legacy session being renewed on `handle`: requests wait in the room meanwhile. */
  renewal?: { handle: LinkHandle; done: Promise<void> };
  /** Counts renewed legacy sessions. */
  sessionGeneration: number;
  /** Set around `stream`'s synchronous send, to learn the request's id. */
  capture?: { method: string; onId(id: JsonRpcId): void };
}

/**
 * The state of a new connection: `connecting`, with nothing negotiated.
 *
 * @param options The validated client options.
 * @param events Where notifications and the end go.
 * @returns The state.
 */
export function createConnectionState(
  options: ResolvedOptions,
  events: ConnectionEvents,
): ConnectionState {
  const s: ConnectionState = {
    options,
    events,
    room: createWaitRoom<Outgoing>(() => s.lastError),
    attemptLinks: new Set<LinkHandle>(),
    state: "connecting",
    attempts: 0,
    capabilities: {},
    run: new AbortController(),
    sessionGeneration: 0,
  };
  return s;
}

/**
 * `error` as an `McpError` (kind `transport`, reason `failed` when it is not one).
 *
 * @param error What a connection attempt failed with.
 * @returns The error.
 */
export function connectionError(error: unknown): McpError {
  return asMcpError(error, "The connection failed", "failed");
}

/**
 * The capabilities the client declares for an era and version.
 *
 * @param s The connection.
 * @param era The era.
 * @param version The version.
 * @returns The capabilities.
 */
export function declared(s: ConnectionState, era: Era, version: string): JsonObject {
  return capabilitiesFor(s.options, era, version);
}

/**
 * Forgets a link, fails its requests with `error` and closes it.
 *
 * @param s The connection.
 * @param handle The link.
 * @param error What its requests fail with.
 */
export async function dropLink(
  s: ConnectionState,
  handle: LinkHandle,
  error: McpError,
): Promise<void> {
  s.attemptLinks.delete(handle);
  if (s.current === handle) s.current = undefined;
  handle.session.failAll(error);
  await handle.link.close().catch(() => {});
}

/**
 * Sends a request on `handle` with what is left of its timeouts, counted from `queuedAt`.
 *
 * @param s The connection.
 * @param handle The link.
 * @param method The method.
 * @param params The params, as the caller gave them.
 * @param opts The request options.
 * @param queuedAt When the request was made.
 * @returns Its final result (a modern result checked for its `resultType`).
 */
export function sendOn(
  s: ConnectionState,
  handle: LinkHandle,
  method: string,
  params: JsonObject | undefined,
  opts: ConnectionRequestOptions,
  queuedAt: number,
): Promise<JsonObject> {
  const timeout = (opts.timeout ?? s.options.requestTimeout) - (Date.now() - queuedAt);
  const maxTotalTimeout = opts.maxTotalTimeout === undefined
    ? undefined
    : opts.maxTotalTimeout - (Date.now() - queuedAt);
  return handle.session.request(method, params, { ...opts, timeout, maxTotalTimeout }).then(
    (result) => s.negotiated?.era === "modern" ? acceptResult(method, result) : result,
  );
}

/**
 * Sends the log level the client set again, after a legacy handshake with a server that
 * takes it; a failure is only a warning.
 *
 * @param s The connection.
 * @param handle The new link (or the link of the new session).
 * @param outcome The handshake's outcome.
 */
export function restoreLogLevel(
  s: ConnectionState,
  handle: LinkHandle,
  outcome: Negotiated,
): void {
  if (outcome.era !== "legacy" || s.logLevel === undefined || !outcome.capabilities.logging) {
    return;
  }
  sendOn(s, handle, "logging/setLevel", { level: s.logLevel }, { progress: false }, Date.now())
    .catch((error) => s.options.warn(`Could not restore the log level: ${error}`));
}

/**
 * The settings negotiation runs with.
 *
 * @param s The connection.
 * @param handle The link to negotiate on.
 * @param reopen Opens a fresh link (for `reconnect_legacy`).
 * @param previousEra The era of the previous connection.
 * @returns The context.
 */
export function negotiateContext(
  s: ConnectionState,
  handle: LinkHandle,
  reopen: () => Promise<LinkHandle>,
  previousEra: Era | undefined,
): NegotiateContext {
  const { options } = s;
  return {
    kind: options.transport.kind,
    handle,
    reopen,
    protocol: options.protocol,
    versions: options.versions,
    pinnedModern: s.pinnedModern,
    previousEra,
    capabilities: (era, version) => declared(s, era, version),
    clientInfo: options.clientInfo,
    // An interactive login runs inside the probe's first request: let it take its time.
    probeTimeout: Math.max(options.probeTimeout, options.transport.authTimeout ?? 0),
    requestTimeout: options.requestTimeout,
  };
}

/**
 * Private: the steps more than one of the connection's modules takes: dropping a link,
 * sending on a link within a request's timeout, restoring the log level, and the settings
 * negotiation runs with. They read the state and change it only through its transitions.
 *
 * @module
 */

import { asMcpError, type McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { Era } from "../../protocol/versions.ts";
import { acceptResult, declaresTasks } from "../handler/input.ts";
import { capabilitiesFor } from "../handler/capabilities.ts";
import type { LinkHandle, NegotiateContext, Negotiated } from "./_link.ts";
import type { SessionRequestOptions } from "./session.ts";
import type { ConnectionRequestOptions, ConnectionState } from "./_state.ts";

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
  s.forget(handle);
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
  return handle.session.request(
    method,
    params,
    opts as SessionRequestOptions,
    timeout,
    maxTotalTimeout,
  ).then(
    (result) =>
      s.negotiated?.era === "modern" ? acceptResult(method, result, declaresTasks(params)) : result,
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

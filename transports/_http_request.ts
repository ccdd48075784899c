/**
 * Private: building Streamable HTTP requests. The headers of each message by era (modern
 * mirrored `Mcp-*` headers, or the legacy session id and version), credentials, and the
 * session `DELETE`.
 *
 * @module
 */

import { MCP_HEADERS, modernHeaders } from "../protocol/headers.ts";
import { isNotification, isRequest, type JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { META_PROTOCOL_VERSION } from "../protocol/meta.ts";
import { type NameMemo, nameMemo } from "../protocol/name_memo.ts";
import { copyTraceHeaders } from "../protocol/trace_context.ts";
import { discard, type FetchLike, fetchSameOrigin } from "./_http.ts";
import { type HttpAuth, resolveToken } from "./_http_auth.ts";
import { timeoutSignal } from "../clock/timer.ts";
import type { ToolHeaders } from "./_tool_headers.ts";
import type { LinkProtocol } from "./transport.ts";

/** What a link needs from its transport. */
export interface LinkConfig {
  url: URL;
  fetch: FetchLike;
  /** The static headers, names in lower case. */
  headers: Readonly<Record<string, string>>;
  auth(): HttpAuth;
  tools: ToolHeaders;
  maxResponseBytes: number;
  maxEventBytes: number;
  maxRedirects: number;
  reconnectDelay: number;
  maxReconnects: number;
  closeTimeout: number;
}

/** The link state that shapes a request's headers. */
export interface LinkState {
  protocol: LinkProtocol | undefined;
  sessionId: string | undefined;
}

/** The session header's name. */
export const SESSION_HEADER = "Mcp-Session-Id";

/** The `_meta` protocol version of a modern request or notification. */
export function modernVersion(message: JsonRpcMessage): string | undefined {
  if (!isRequest(message) && !isNotification(message)) return undefined;
  const meta = message.params?._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const version = (meta as Record<string, unknown>)[META_PROTOCOL_VERSION];
  return typeof version === "string" ? version : undefined;
}

/** Whether `message` is an `initialize` request. */
export function isInitialize(message: JsonRpcMessage): boolean {
  return isRequest(message) && message.method === "initialize";
}

/** Request headers as a plain record, names in lower case (cheaper than `Headers` per request). */
export type HeaderRecord = Record<string, string>;

const VERSION = MCP_HEADERS.protocolVersion.toLowerCase();
const SESSION = SESSION_HEADER.toLowerCase();

/**
 * A header name in lower case, remembered: the same few names go out with every request (the
 * protocol's, and tools' parameter headers, at most 256 kept). Exported for the tests.
 */
export const lowerName: NameMemo<string> = nameMemo((name) => name.toLowerCase());

/** A request's headers, and the session id they carry. */
export interface RequestHeaders {
  headers: HeaderRecord;
  session: string | undefined;
}

/**
 * The headers of one request: static headers, then the protocol's (which win), then the
 * bearer token. `session` is the session id sent, if any (a 404 then means it expired).
 */
export function requestHeaders(
  config: LinkConfig,
  state: LinkState,
  method: "POST" | "GET",
  message?: JsonRpcMessage,
): RequestHeaders | Promise<RequestHeaders> {
  const { protocol, sessionId } = state;
  const headers: HeaderRecord = { ...config.headers };
  const modern = (message !== undefined && modernVersion(message) !== undefined) ||
    protocol?.era === "modern";
  let session: string | undefined;
  if (method === "POST") {
    headers["content-type"] = "application/json";
    headers["accept"] = "application/json, text/event-stream";
  } else headers["accept"] = "text/event-stream";
  if (modern && message !== undefined && (isRequest(message) || isNotification(message))) {
    const params = isRequest(message) && message.method === "tools/call"
      ? config.tools.forCall(message.params)
      : undefined;
    const mirrored = modernHeaders(message, { paramHeaders: params });
    for (const name in mirrored) headers[lowerName(name)] = mirrored[name];
    if (headers[VERSION] === undefined && protocol !== undefined) {
      headers[VERSION] = protocol.version;
    }
  } else if (!modern && !(message !== undefined && isInitialize(message))) {
    // A (re-)initialize starts afresh: no version header, no session id.
    if (protocol !== undefined) headers[VERSION] = protocol.version;
    if (sessionId !== undefined) {
      session = sessionId;
      headers[SESSION] = sessionId;
    }
  }
  // A traced request's context travels as the W3C headers too.
  if (message !== undefined && "params" in message) copyTraceHeaders(message, headers);
  const token = resolveToken(config.auth());
  if (token instanceof Promise) {
    return token.then((value) => {
      if (value !== undefined) headers["authorization"] = `Bearer ${value}`;
      return { headers, session };
    });
  }
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  return { headers, session };
}

/** POSTs one message with its `headers` (same-origin redirects only). */
export function postMessage(
  config: LinkConfig,
  headers: HeaderRecord,
  message: JsonRpcMessage,
  signal: AbortSignal,
): Promise<Response> {
  return fetchSameOrigin({
    fetch: config.fetch,
    url: config.url,
    method: "POST",
    headers,
    body: JSON.stringify(message),
    signal,
    maxRedirects: config.maxRedirects,
  });
}

/** `DELETE`s a legacy session, best effort and bounded by `closeTimeout` (405 is fine). */
export async function deleteSession(
  config: LinkConfig,
  session: string,
  protocol: LinkProtocol | undefined,
): Promise<void> {
  try {
    const headers: HeaderRecord = { ...config.headers, [SESSION]: session };
    if (protocol !== undefined) headers[VERSION] = protocol.version;
    const token = await resolveToken(config.auth());
    if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
    const response = await fetchSameOrigin({
      fetch: config.fetch,
      url: config.url,
      method: "DELETE",
      headers,
      signal: timeoutSignal(config.closeTimeout),
      maxRedirects: config.maxRedirects,
    });
    discard(response);
  } catch {
    // The session ends on the server's side sooner or later.
  }
}

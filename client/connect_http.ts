/**
 * `connect(target, options)` for the edge entry: URLs and transports only (no stdio).
 *
 * @module
 */

import type { StreamableHttpOptions } from "../transports/streamable_http.ts";
import type { Transport } from "../transports/transport.ts";
import { httpOrTransport } from "./target.ts";
import { connectClient, DEFAULT_READY_TIMEOUT } from "./client.ts";
import type { ClientOptions, McpClient } from "./types.ts";

/** Where the edge {@linkcode connect} goes: a URL (Streamable HTTP) or a transport. */
export type HttpConnectTarget = string | URL | Transport;

/** The edge {@linkcode connect}'s options. */
export interface HttpConnectOptions extends Omit<ClientOptions, "transport"> {
  /** Options for the Streamable HTTP transport when the target is a URL. */
  http?: StreamableHttpOptions;
  /**
   * How long to wait for the first handshake, in milliseconds: a hard deadline (closing a
   * client that did not get ready goes on in the background past it). Default 30 000
   * (`DEFAULT_READY_TIMEOUT`); `Infinity` waits until the client gives up connecting. The
   * error says how many attempts were made and what the server wrote.
   */
  readyTimeout?: number;
}

/**
 * Creates a client for `target` over Streamable HTTP and waits until it is ready.
 *
 * @param target The server's MCP endpoint URL, or a transport.
 * @param options Client options and `http` transport options (`headers`, `auth`, `fetch`).
 * @returns A ready client.
 *
 * @example Connect from an edge worker
 * ```ts ignore
 * import { connect } from "./connect_http.ts";
 *
 * await using client = await connect("https://mcp.example.com/mcp", {
 *   http: { auth: { bearer: "token" } },
 * });
 * const result = await client.callTool("echo", { message: "hi" });
 * ```
 */
export function connect(
  target: HttpConnectTarget,
  options: HttpConnectOptions = {},
): Promise<McpClient> {
  const { http, readyTimeout = DEFAULT_READY_TIMEOUT, ...rest } = options;
  const transport = httpOrTransport(target, http, undefined, rest.profile);
  if (transport === undefined) {
    throw new TypeError("Cannot connect: the target must be a URL or a transport");
  }
  return connectClient({ ...rest, transport }, readyTimeout);
}

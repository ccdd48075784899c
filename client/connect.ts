/**
 * `connect(target, options)`: the one-call way in, for every transport.
 *
 * @module
 */

import { stdio, type StdioOptions } from "../transports/stdio.ts";
import type { StreamableHttpOptions } from "../transports/streamable_http.ts";
import type { Transport } from "../transports/transport.ts";
import { httpOrTransport } from "./target.ts";
import { connectClient, DEFAULT_READY_TIMEOUT } from "./client.ts";
import type { ClientOptions, McpClient } from "./types.ts";

/** Where {@linkcode connect} goes: a URL (Streamable HTTP), a command (stdio), or a transport. */
export type ConnectTarget = string | URL | StdioOptions | Transport;

/** {@linkcode connect}'s options: the client's options, plus HTTP options for a URL target. */
export interface ConnectOptions extends Omit<ClientOptions, "transport"> {
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
 * Creates a client for `target` and waits until it is ready.
 *
 * @param target A URL (Streamable HTTP), `{ command, args, env, cwd }` (stdio), or a transport.
 * @param options Client options (`protocol`, `handler`, `requestTimeout`, …) and `http`.
 * @returns A ready client; close it with `close()` or `await using`.
 *
 * @example Connect to a local server over stdio
 * ```ts ignore
 * import { connect } from "./connect.ts";
 *
 * await using client = await connect({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] });
 * const { tools } = await client.listTools();
 * console.log(client.era(), tools.map((tool) => tool.name));
 * ```
 */
export function connect(target: ConnectTarget, options: ConnectOptions = {}): Promise<McpClient> {
  const { http, readyTimeout = DEFAULT_READY_TIMEOUT, ...rest } = options;
  let transport = httpOrTransport(target, http, undefined, rest.profile);
  if (transport === undefined) {
    const command = (target as { command?: unknown } | null)?.command;
    if (typeof command !== "string") {
      throw new TypeError(
        "Cannot connect: the target must be a URL, a { command } object or a transport",
      );
    }
    transport = stdio(target as StdioOptions);
  }
  return connectClient({ ...rest, transport }, readyTimeout);
}

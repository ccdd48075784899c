/**
 * Private: `login` and `setAuth` of a client (`_client_auth.ts` loads this with the first
 * call). `setAuth` reconnects as `reconnect()` does, and starts doing so before the old
 * credentials' login, abandoned, can close the client.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { StreamableHttpTransport } from "../transports/streamable_http.ts";
import type { Transport } from "../transports/transport.ts";
import type { McpClient } from "./types.ts";
import type { ClientCache } from "./changes/cache.ts";
import type { Connection } from "./connection/connection.ts";

/**
 * Logs in with the transport's OAuth flow; a client that gave up connects again.
 *
 * @param transport The client's transport.
 * @param cache Told of a change of identity.
 * @param connection Reconnected when closed.
 * @param options The login's options.
 */
export async function login(
  transport: Transport,
  cache: Pick<ClientCache, "identity" | "credentialsChanged">,
  connection: Pick<Connection, "status" | "reconnect">,
  options: Parameters<McpClient["login"]>[0],
): Promise<void> {
  const http = transport as Partial<StreamableHttpTransport>;
  if (typeof http.login !== "function") {
    throw new McpError("The client's transport takes no OAuth credentials", {
      kind: "auth",
      reason: "oauth_not_configured",
    });
  }
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError("login: options must be an object");
  }
  const before = await cache.identity();
  await http.login(options);
  await cache.credentialsChanged(before);
  // A client that gave up (its handshake met `needs_reauth`) connects again.
  if (connection.status().state === "closed") await connection.reconnect();
}

/**
 * New credentials: the transport takes them, the client reconnects, and the old identity's
 * private results go.
 *
 * @param transport The client's transport.
 * @param cache Told of a change of identity.
 * @param connection Reconnected when open.
 * @param changed Told of new credentials.
 * @param auth The credentials.
 * @param options Their options.
 */
export async function setAuth(
  transport: Transport,
  cache: Pick<ClientCache, "identity" | "credentialsChanged">,
  connection: Pick<Connection, "status" | "reconnect">,
  changed: () => void,
  auth: Parameters<McpClient["setAuth"]>[0],
  options: Parameters<McpClient["setAuth"]>[1],
): Promise<void> {
  const http = transport as Partial<StreamableHttpTransport>;
  if (typeof http.setAuth !== "function") {
    throw new TypeError(
      `setAuth: the ${transport.kind} transport takes no credentials`,
    );
  }
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError("setAuth: options must be an object");
  }
  const before = await cache.identity();
  const open = connection.status().state !== "closed";
  http.setAuth(auth, options); // checks the form: TypeError when it is not one
  changed();
  // At once: a login the old credentials left waiting is abandoned (its request fails
  // with `authorization_abandoned`), and that failure must meet a stopped attempt, not a
  // connect loop that would give up on it.
  const reconnected = open ? connection.reconnect() : undefined;
  reconnected?.catch(() => {});
  // A new identity: the old one's private results are deleted before this returns.
  await cache.credentialsChanged(before);
  await reconnected;
}

/**
 * Private: the client's credential methods (`authorized`, `handleCallback`, `setAuth`),
 * handed to the transport's own controls. `setAuth` reconnects as `reconnect()` does, and
 * starts doing so before the old credentials' login, abandoned, can close the client.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { StreamableHttpTransport } from "../transports/streamable_http.ts";
import type { Transport } from "../transports/transport.ts";
import type { ClientCache } from "./changes/cache.ts";
import type { Connection } from "./connection/connection.ts";
import type { ClientStatus, McpClient } from "./types.ts";

/** The credential methods of {@linkcode McpClient}. */
export type AuthMethods = Pick<McpClient, "authorized" | "handleCallback" | "setAuth" | "login">;

/**
 * The connection's status with the transport's login state (HTTP transports report one).
 *
 * @param status The connection's status.
 * @param transport The client's transport.
 * @returns The status, with `auth` (and `login` while pending) when the transport has them.
 */
export function withAuthStatus(status: ClientStatus, transport: Transport): ClientStatus {
  const http = transport as Partial<StreamableHttpTransport>;
  if (typeof http.authStatus !== "function") return status;
  const auth = http.authStatus();
  return auth.login === undefined
    ? { ...status, auth: auth.state }
    : { ...status, auth: auth.state, login: auth.login };
}

/**
 * The credential methods of a client.
 *
 * @param transport The client's transport.
 * @param cache Told of a change of identity (the old one's private results go).
 * @param connection Reconnected after new credentials.
 * @param changed Told of new credentials (spilled results of the old ones go out of reach).
 * @returns The methods.
 */
export function authMethods(
  transport: Transport,
  cache: ClientCache,
  connection: Pick<Connection, "status" | "reconnect">,
  changed: () => void = () => {},
): AuthMethods {
  return {
    authorized() {
      oauthTransport(transport).authorized();
    },
    handleCallback(callback) {
      try {
        return oauthTransport(transport).handleCallback(callback);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async login(options) {
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
    },
    async setAuth(auth, options) {
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
    },
  };
}

/** The transport's OAuth controls, or kind `auth` reason `oauth_not_configured`. */
function oauthTransport(
  transport: unknown,
): Pick<StreamableHttpTransport, "authorized" | "handleCallback"> {
  const t = transport as Partial<StreamableHttpTransport>;
  if (typeof t.authorized !== "function" || typeof t.handleCallback !== "function") {
    throw new McpError("The client's transport takes no OAuth credentials", {
      kind: "auth",
      reason: "oauth_not_configured",
    });
  }
  return t as Pick<StreamableHttpTransport, "authorized" | "handleCallback">;
}

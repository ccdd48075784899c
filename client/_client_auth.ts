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
import type { McpClient } from "./types.ts";

/** The credential methods of {@linkcode McpClient}. */
export type AuthMethods = Pick<McpClient, "authorized" | "handleCallback" | "setAuth">;

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

/**
 * Private: the client's credential methods (`authorized`, `handleCallback`, `login`,
 * `setAuth`), handed to the transport's own controls. `login` and `setAuth` load their code
 * (`_client_login.ts`) with the first call.
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
    // Logging in and new credentials load their code with the first call.
    login: async (options) =>
      await (await import("./_client_login.ts")).login(transport, cache, connection, options),
    setAuth: async (auth, options) =>
      await (await import("./_client_login.ts")).setAuth(
        transport,
        cache,
        connection,
        changed,
        auth,
        options,
      ),
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

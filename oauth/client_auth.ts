/**
 * Client authentication at the token endpoint: which method a client uses
 * (`client_secret_basic`, `client_secret_post`, `none`, `private_key_jwt`) and the
 * oauth4webapi `ClientAuth` that sends its credentials.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import type { TokenEndpointAuthMethod } from "./registration.ts";

/** How a client authenticates a token request (oauth4webapi's `ClientAuth`). */
export type ClientAuthentication = oauth.ClientAuth;

/** Who is asking at the token endpoint, and how it proves it. */
export interface TokenClient {
  /** The `client_id`. */
  clientId: string;
  /** The `client_secret`, for the secret methods. */
  clientSecret?: string;
  /** How to authenticate. */
  method: TokenEndpointAuthMethod;
  /** The private key, for `private_key_jwt` (e.g. from `importPKCS8`). */
  privateKey?: CryptoKey;
  /** The key id (`kid`) for `private_key_jwt`. */
  keyId?: string;
}

/**
 * Chooses the token endpoint authentication method for a client: the one it registered
 * with, else `none` without a secret, else a secret method the server lists
 * (`client_secret_basic` first).
 *
 * @param registered The registered method, if any.
 * @param hasSecret Whether the client has a secret.
 * @param metadata The authorization server metadata.
 * @returns The method.
 *
 * @example
 * ```ts
 * import { chooseAuthMethod } from "./client_auth.ts";
 *
 * const metadata = { issuer: "https://as.example.com", token_endpoint_auth_methods_supported: ["client_secret_post"] };
 * if (chooseAuthMethod(undefined, true, metadata) !== "client_secret_post") throw new Error();
 * if (chooseAuthMethod(undefined, false, metadata) !== "none") throw new Error();
 * ```
 */
export function chooseAuthMethod(
  registered: string | undefined,
  hasSecret: boolean,
  metadata: AuthorizationServerMetadata,
): TokenEndpointAuthMethod {
  if (registered === "none" || registered === "private_key_jwt") return registered;
  if (
    (registered === "client_secret_basic" || registered === "client_secret_post") && hasSecret
  ) return registered;
  if (!hasSecret) return "none";
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  if (supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  if (supported.includes("none")) return "none";
  return "client_secret_basic";
}

/**
 * The oauth4webapi client authentication for a {@linkcode TokenClient}.
 *
 * @param client The client.
 * @returns The `ClientAuth` function.
 * @throws {TypeError} When the method needs a secret or key the client lacks.
 *
 * @example
 * ```ts
 * import { clientAuthentication } from "./client_auth.ts";
 *
 * const auth = clientAuthentication({ clientId: "c1", clientSecret: "s1", method: "client_secret_post" });
 * const body = new URLSearchParams();
 * await auth({ issuer: "https://as.example.com" }, { client_id: "c1" }, body, new Headers());
 * if (body.get("client_secret") !== "s1") throw new Error();
 * ```
 */
export function clientAuthentication(client: TokenClient): ClientAuthentication {
  switch (client.method) {
    case "none":
      return oauth.None();
    case "client_secret_basic":
    case "client_secret_post":
      if (client.clientSecret === undefined) {
        throw new TypeError(`${client.method} needs a client secret`);
      }
      return client.method === "client_secret_basic"
        ? secretBasic(client.clientSecret)
        : oauth.ClientSecretPost(client.clientSecret);
    case "private_key_jwt":
      if (client.privateKey === undefined) {
        throw new TypeError("private_key_jwt needs a private key");
      }
      return oauth.PrivateKeyJwt(
        client.keyId === undefined
          ? client.privateKey
          : { key: client.privateKey, kid: client.keyId },
      );
  }
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-encoded, then Base64. Only
 * characters that need it are encoded, so servers that skip the decoding step (many do)
 * still read ids and secrets made of unreserved characters as sent.
 */
function secretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return (_as, client, _body, headers) => {
    const pair = `${encode(client.client_id)}:${encode(secret)}`;
    headers.set("authorization", `Basic ${btoa(pair)}`);
  };
}

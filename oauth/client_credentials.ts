/**
 * Machine-to-machine credentials (no user): a client secret, a `private_key_jwt` key
 * (RFC 7523, a PEM key imported with jose), or a JWT bearer `assertion` the host supplies;
 * the token client they make at a given authorization server. Their check is in
 * `options_check.ts` and their types in `options.ts` (both re-exported here), the grant
 * requests in
 * `client_credentials_grant.ts`.
 *
 * @module
 */

import { importPKCS8 } from "jose";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import { chooseAuthMethod, type TokenClient } from "./client_auth.ts";
import { oauthError } from "./_util.ts";

export { checkClientCredentials } from "./options_check.ts";
export type { AssertionContext, AssertionSource, ClientCredentials } from "./options.ts";
import type { ClientCredentials } from "./options.ts";

/** The JWT bearer grant type (RFC 7523 §2.1). */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * The {@linkcode TokenClient} for these credentials at this server: imports a PEM key
 * (with the algorithm configured, else the server's first listed, else `RS256`).
 *
 * @param credentials The credentials.
 * @param metadata The authorization server metadata.
 * @returns The token client.
 *
 * @example
 * ```ts
 * import { tokenClient } from "./client_credentials.ts";
 *
 * const client = await tokenClient({ clientId: "svc", clientSecret: "s" }, {
 *   issuer: "https://as.example.com",
 *   token_endpoint_auth_methods_supported: ["client_secret_basic"],
 * });
 * if (client.method !== "client_secret_basic") throw new Error();
 * ```
 */
export async function tokenClient(
  credentials: ClientCredentials,
  metadata: AuthorizationServerMetadata,
): Promise<TokenClient> {
  if (credentials.assertion !== undefined && credentials.privateKey === undefined) {
    const method = credentials.tokenEndpointAuthMethod ??
      (credentials.clientSecret === undefined
        ? "none"
        : chooseAuthMethod(undefined, true, metadata));
    return { clientId: credentials.clientId, clientSecret: credentials.clientSecret, method };
  }
  if (credentials.privateKey !== undefined) {
    const algorithm = credentials.algorithm ??
      metadata.token_endpoint_auth_signing_alg_values_supported?.[0] ?? "RS256";
    let key: CryptoKey;
    try {
      key = typeof credentials.privateKey === "string"
        // (as CryptoKey: jose's type is Node's when @types/node is in the graph)
        ? await importPKCS8(credentials.privateKey, algorithm) as unknown as CryptoKey
        : credentials.privateKey;
    } catch {
      throw oauthError(
        `The client private key cannot be imported as a PKCS#8 ${algorithm} key`,
        "invalid_client_key",
      );
    }
    const client: TokenClient = {
      clientId: credentials.clientId,
      method: "private_key_jwt",
      privateKey: key,
    };
    if (credentials.keyId !== undefined) client.keyId = credentials.keyId;
    return client;
  }
  const method = credentials.tokenEndpointAuthMethod ??
    chooseAuthMethod(undefined, credentials.clientSecret !== undefined, metadata);
  return { clientId: credentials.clientId, clientSecret: credentials.clientSecret, method };
}

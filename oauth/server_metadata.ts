/**
 * Authorization server metadata (RFC 8414 / OpenID Connect Discovery): where to look for
 * it, in the order the MCP authorization spec sets, the check of a response (an `issuer`
 * identical to the one the URL was built from), and the 2025-03-26 defaults.
 *
 * @module
 */

import type * as oauth from "oauth4webapi";
import { discard, jsonObject, oauthError } from "./_util.ts";

/** Authorization server metadata (RFC 8414), as oauth4webapi types it. */
export type AuthorizationServerMetadata = oauth.AuthorizationServer;

/**
 * Where to look for an authorization server's metadata, in the spec's order. With a path
 * in the issuer (`https://auth.example.com/tenant1`): RFC 8414 path insertion, OpenID path
 * insertion, OpenID path appending. Without: RFC 8414, then OpenID.
 *
 * @param issuer The issuer identifier, exactly as the resource metadata lists it.
 * @returns The URLs to try.
 *
 * @example
 * ```ts
 * import { authorizationServerMetadataUrls } from "./server_metadata.ts";
 *
 * const urls = authorizationServerMetadataUrls("https://auth.example.com/tenant1").map((u) => u.href);
 * if (urls.join(" ") !== [
 *   "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
 *   "https://auth.example.com/.well-known/openid-configuration/tenant1",
 *   "https://auth.example.com/tenant1/.well-known/openid-configuration",
 * ].join(" ")) throw new Error();
 * ```
 */
export function authorizationServerMetadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  if (path === "") {
    return [
      new URL("/.well-known/oauth-authorization-server", url.origin),
      new URL("/.well-known/openid-configuration", url.origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
    new URL(`/.well-known/openid-configuration${path}`, url.origin),
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
  ];
}

/**
 * Checks an authorization server metadata response: the `issuer` must be *identical* to
 * the issuer the URL was built from (a plain string compare). (PKCE support is checked by
 * the authorization code flow, which needs it.)
 *
 * @param issuer The expected issuer identifier.
 * @param response The response of {@linkcode metadataRequest}.
 * @returns The metadata, or `undefined` when the document is not there (non-200).
 * @throws {McpError} kind `auth`: `issuer_mismatch`, `invalid_metadata`.
 *
 * @example
 * ```ts
 * import { processAuthorizationServerMetadataResponse } from "./server_metadata.ts";
 *
 * const metadata = await processAuthorizationServerMetadataResponse(
 *   "https://auth.example.com",
 *   Response.json({
 *     issuer: "https://auth.example.com",
 *     authorization_endpoint: "https://auth.example.com/authorize",
 *     token_endpoint: "https://auth.example.com/token",
 *     code_challenge_methods_supported: ["S256"],
 *   }),
 * );
 * if (metadata?.token_endpoint !== "https://auth.example.com/token") throw new Error();
 * ```
 */
export async function processAuthorizationServerMetadataResponse(
  issuer: string,
  response: Response,
): Promise<AuthorizationServerMetadata | undefined> {
  if (response.status !== 200) {
    discard(response);
    return undefined;
  }
  const body = await jsonObject(response);
  if (body === undefined) {
    throw oauthError("The authorization server metadata is not a JSON object", "invalid_metadata");
  }
  if (body.issuer !== issuer) {
    throw oauthError(
      `The authorization server metadata names another issuer (${
        String(body.issuer).slice(0, 200)
      }) than the one it was fetched for (${issuer}); refusing to use it`,
      "issuer_mismatch",
      { expected: issuer, issuer: String(body.issuer).slice(0, 200) },
    );
  }
  for (const key of ["authorization_endpoint", "token_endpoint", "registration_endpoint"]) {
    if (body[key] !== undefined && typeof body[key] !== "string") {
      throw oauthError(`The authorization server metadata has a bad ${key}`, "invalid_metadata");
    }
  }
  if (typeof body.token_endpoint !== "string") {
    throw oauthError("The authorization server metadata has no token_endpoint", "invalid_metadata");
  }
  return body as unknown as AuthorizationServerMetadata;
}

/**
 * The 2025-03-26 fallback when there is no metadata at all: the endpoints at the server's
 * root (`/authorize`, `/token`, `/register`), the origin as the issuer.
 *
 * @param serverUrl The MCP endpoint.
 * @returns Metadata built from the defaults.
 *
 * @example
 * ```ts
 * import { defaultAuthorizationServerMetadata } from "./server_metadata.ts";
 *
 * const metadata = defaultAuthorizationServerMetadata(new URL("https://mcp.example.com/v1/mcp"));
 * if (metadata.token_endpoint !== "https://mcp.example.com/token") throw new Error();
 * ```
 */
export function defaultAuthorizationServerMetadata(serverUrl: URL): AuthorizationServerMetadata {
  const origin = serverUrl.origin;
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    code_challenge_methods_supported: ["S256"],
  };
}

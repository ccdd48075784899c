/**
 * The machine-to-machine grant requests: `client_credentials`, or the workload-identity JWT
 * bearer grant (`urn:ietf:params:oauth:grant-type:jwt-bearer`) when the host supplies a
 * signed JWT as the `assertion`; then the DPoP nonce retry and the response check.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import { McpError } from "../protocol/errors.ts";
import { type ClientCredentials, JWT_BEARER_GRANT } from "./client_credentials.ts";
import { clientAuthentication } from "./client_auth.ts";
import type { TokenSet } from "./store.ts";
import { type TokenContext, withNonceRetry } from "./token.ts";
import { processTokenResponse } from "./token_response.ts";
import { fromOAuthError, tokenEndpointOptions } from "./_o4w.ts";
import { oauthError } from "./_util.ts";

/**
 * Sends a `client_credentials` grant (or the JWT bearer grant when `assertion` is given)
 * with `resource` and `scope`.
 *
 * @param ctx The server, client (from {@linkcode tokenClient}) and resource.
 * @param options The scopes, and the JWT bearer assertion.
 * @returns The response, unread.
 *
 * @example
 * ```ts
 * import { clientCredentialsRequest } from "./client_credentials_grant.ts";
 *
 * const response = await clientCredentialsRequest({
 *   metadata: { issuer: "https://as.example.com", token_endpoint: "https://as.example.com/token" },
 *   client: { clientId: "svc", clientSecret: "s", method: "client_secret_basic" },
 *   resource: "https://mcp.example.com/mcp",
 *   fetch: async (_input, init) => Response.json(Object.fromEntries(new URLSearchParams(String(init?.body)))),
 * }, { scope: "mcp:read" });
 * const sent = await response.json();
 * if (sent.grant_type !== "client_credentials" || sent.scope !== "mcp:read") throw new Error();
 * ```
 */
export async function clientCredentialsRequest(
  ctx: TokenContext,
  options: { scope?: string; assertion?: string } = {},
): Promise<Response> {
  const requestOptions = tokenEndpointOptions(ctx);
  const parameters: Record<string, string> = { resource: ctx.resource };
  if (options.scope) parameters.scope = options.scope;
  if (options.assertion !== undefined) parameters.assertion = options.assertion;
  try {
    return await oauth.genericTokenEndpointRequest(
      ctx.metadata,
      { client_id: ctx.client.clientId },
      clientAuthentication(ctx.client),
      options.assertion === undefined ? "client_credentials" : JWT_BEARER_GRANT,
      parameters,
      requestOptions,
    );
  } catch (error) {
    throw fromOAuthError(error, "the token request", "token_failed");
  }
}

/**
 * Gets tokens with client credentials (or a JWT bearer assertion): request, DPoP nonce
 * retry, check.
 *
 * @param ctx The server, client and resource.
 * @param options The scopes, and the assertion source.
 * @returns The tokens.
 * @throws {McpError} kind `auth`, reason `token_failed`, with the server's `error` code.
 *
 * @example
 * ```ts
 * import { clientCredentialsToken } from "./client_credentials_grant.ts";
 *
 * const tokens = await clientCredentialsToken({
 *   metadata: { issuer: "https://as.example.com", token_endpoint: "https://as.example.com/token" },
 *   client: { clientId: "svc", clientSecret: "s", method: "client_secret_post" },
 *   resource: "https://mcp.example.com/mcp",
 *   fetch: async () => Response.json({ access_token: "cc-1", token_type: "Bearer", expires_in: 300 }),
 * });
 * if (tokens.tokenType !== "Bearer" || tokens.expiresAt === undefined) throw new Error();
 * ```
 */
export async function clientCredentialsToken(
  ctx: TokenContext,
  options: { scope?: string; assertion?: ClientCredentials["assertion"] } = {},
): Promise<TokenSet> {
  const source = options.assertion;
  let assertion: string | undefined;
  if (typeof source === "function") {
    try {
      assertion = await source({
        issuer: ctx.metadata.issuer,
        tokenEndpoint: String(ctx.metadata.token_endpoint),
        resource: ctx.resource,
        ...(options.scope ? { scope: options.scope } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch (cause) {
      if (cause instanceof McpError) throw cause;
      throw new McpError("The assertion function failed", {
        kind: "auth",
        reason: "assertion_failed",
        cause,
      });
    }
  } else assertion = source;
  if (assertion !== undefined && (typeof assertion !== "string" || assertion === "")) {
    throw oauthError("The assertion function returned no JWT", "assertion_failed");
  }
  return await withNonceRetry(
    () => clientCredentialsRequest(ctx, { scope: options.scope, assertion }),
    (response) =>
      processTokenResponse(ctx, response, {
        grant: assertion === undefined ? "client_credentials" : "other",
        scope: options.scope,
      }),
  );
}

/**
 * Token requests: the authorization code exchange and refresh (every request carries
 * `resource`, RFC 8707), and the DPoP nonce retry. Requests and checks are separate steps:
 * client authentication is in `client_auth.ts`, the response check in `token_response.ts`.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import { clientAuthentication, type TokenClient } from "./client_auth.ts";
import { fromOAuthError, tokenEndpointOptions } from "./_o4w.ts";
import type { HttpOptions } from "./_util.ts";

/** The oauth4webapi DPoP handle that signs token request proofs. */
export type DpopHandle = oauth.DPoPHandle;

/** Everything a token request needs besides its grant. */
export interface TokenContext extends HttpOptions {
  /** The authorization server metadata (its `issuer` and `token_endpoint`). */
  metadata: AuthorizationServerMetadata;
  /** The client. */
  client: TokenClient;
  /** The `resource` to send. */
  resource: string;
  /** A DPoP handle, for sender-constrained tokens. */
  dpop?: DpopHandle;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

function o4wClient(client: TokenClient): oauth.Client {
  return { client_id: client.clientId };
}

function tokenOptions(ctx: TokenContext, extra: Record<string, string> = {}) {
  return {
    ...tokenEndpointOptions(ctx),
    additionalParameters: { resource: ctx.resource, ...extra },
  };
}

/**
 * Sends the authorization code grant (with `code_verifier`, `redirect_uri`, `resource`).
 *
 * @param ctx The server, client and resource.
 * @param callbackParameters The checked callback parameters (from `validateCallback`).
 * @param redirectUri The `redirect_uri` of the authorization request.
 * @param codeVerifier The PKCE verifier.
 * @returns The response, unread.
 *
 * @example
 * ```ts ignore
 * const response = await authorizationCodeRequest(ctx, params, redirectUri, verifier);
 * const tokens = await processTokenResponse(ctx, response, { scope: "files:read" });
 * ```
 */
export async function authorizationCodeRequest(
  ctx: TokenContext,
  callbackParameters: URLSearchParams,
  redirectUri: string,
  codeVerifier: string,
): Promise<Response> {
  try {
    return await oauth.authorizationCodeGrantRequest(
      ctx.metadata,
      o4wClient(ctx.client),
      clientAuthentication(ctx.client),
      callbackParameters,
      redirectUri,
      codeVerifier,
      tokenOptions(ctx),
    );
  } catch (error) {
    throw fromOAuthError(error, "the token request", "token_failed");
  }
}

/**
 * Sends a refresh token grant (with `resource`, and `scope` when given).
 *
 * @param ctx The server, client and resource.
 * @param refreshToken The refresh token.
 * @param scope The scope to ask for (default: the original grant's).
 * @returns The response, unread.
 *
 * @example
 * ```ts
 * import { refreshRequest } from "./token.ts";
 *
 * const response = await refreshRequest({
 *   metadata: { issuer: "https://as.example.com", token_endpoint: "https://as.example.com/token" },
 *   client: { clientId: "c1", method: "none" },
 *   resource: "https://mcp.example.com/mcp",
 *   fetch: async (_input, init) => {
 *     const body = new URLSearchParams(String(init?.body));
 *     return Response.json({ grant: body.get("grant_type"), resource: body.get("resource") });
 *   },
 * }, "refresh-1");
 * const sent = await response.json();
 * if (sent.grant !== "refresh_token" || sent.resource !== "https://mcp.example.com/mcp") throw new Error();
 * ```
 */
export async function refreshRequest(
  ctx: TokenContext,
  refreshToken: string,
  scope?: string,
): Promise<Response> {
  try {
    return await oauth.refreshTokenGrantRequest(
      ctx.metadata,
      o4wClient(ctx.client),
      clientAuthentication(ctx.client),
      refreshToken,
      tokenOptions(ctx, scope ? { scope } : {}),
    );
  } catch (error) {
    throw fromOAuthError(error, "the token refresh", "refresh_failed");
  }
}

/**
 * Runs a token request, retrying it once when the authorization server asks for a DPoP
 * nonce (`use_dpop_nonce`; the handle has cached the nonce by then).
 *
 * @param send Sends the request.
 * @param process Checks the response.
 * @returns What `process` returns.
 *
 * @example
 * ```ts
 * import { withNonceRetry } from "./token.ts";
 *
 * let sent = 0;
 * const value = await withNonceRetry(() => Promise.resolve(new Response(String(++sent))), async (r) => r.text());
 * if (value !== "1") throw new Error();
 * ```
 */
export async function withNonceRetry<T>(
  send: () => Promise<Response>,
  process: (response: Response) => Promise<T>,
): Promise<T> {
  const response = await send();
  const peek = response.clone();
  try {
    return await process(response);
  } catch (error) {
    if (!(await isNonceChallenge(peek))) throw error;
    return await process(await send());
  }
}

async function isNonceChallenge(response: Response): Promise<boolean> {
  if (response.status !== 400 && response.status !== 401) return false;
  if (!response.headers.has("dpop-nonce")) return false;
  try {
    const body = await response.json() as { error?: unknown };
    return body.error === "use_dpop_nonce";
  } catch {
    return false;
  }
}

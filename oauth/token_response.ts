/**
 * Token responses: checking a token endpoint response and turning it into a
 * {@linkcode TokenSet}, and whether a token set can still be sent.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import type { TokenSet } from "./store.ts";
import type { TokenContext } from "./token.ts";
import { fromOAuthError } from "./_o4w.ts";
import { jwtSubject } from "./identity.ts";

/** Which grant a token response answers (it decides the checks oauth4webapi applies). */
export type GrantKind =
  | "authorization_code"
  | "refresh_token"
  | "client_credentials"
  | "device_code"
  | "other";

/**
 * Checks a token endpoint response and turns it into a {@linkcode TokenSet}.
 *
 * @param ctx The server, client and resource.
 * @param response The token endpoint's response.
 * @param options The grant it answers, the scope asked for, and the previous tokens (a
 *   refresh that returns no new refresh token keeps the old one).
 * @returns The tokens.
 * @throws {McpError} kind `auth`, reason `token_failed` (or `refresh_failed`), with the
 *   server's OAuth `error` code in `data.error`; never the tokens themselves.
 *
 * @example
 * ```ts
 * import { processTokenResponse } from "./token_response.ts";
 *
 * const ctx = {
 *   metadata: { issuer: "https://as.example.com", token_endpoint: "https://as.example.com/token" },
 *   client: { clientId: "c1", method: "none" as const },
 *   resource: "https://mcp.example.com/mcp",
 *   now: () => 1_000,
 * };
 * const tokens = await processTokenResponse(
 *   ctx,
 *   Response.json({ access_token: "at", token_type: "Bearer", expires_in: 60, refresh_token: "rt" }),
 *   { grant: "refresh_token", scope: "files:read" },
 * );
 * if (tokens.expiresAt !== 61_000 || tokens.scope !== "files:read") throw new Error();
 * ```
 */
export async function processTokenResponse(
  ctx: TokenContext,
  response: Response,
  options: { grant: GrantKind; scope?: string; previous?: TokenSet },
): Promise<TokenSet> {
  const now = ctx.now ?? Date.now;
  const started = now();
  let result: oauth.TokenEndpointResponse;
  const reason = options.grant === "refresh_token" ? "refresh_failed" : "token_failed";
  try {
    const client: oauth.Client = { client_id: ctx.client.clientId };
    switch (options.grant) {
      case "authorization_code":
        result = await oauth.processAuthorizationCodeResponse(ctx.metadata, client, response);
        break;
      case "refresh_token":
        result = await oauth.processRefreshTokenResponse(ctx.metadata, client, response);
        break;
      case "client_credentials":
        result = await oauth.processClientCredentialsResponse(ctx.metadata, client, response);
        break;
      case "device_code":
        result = await oauth.processDeviceCodeResponse(ctx.metadata, client, response);
        break;
      default:
        result = await oauth.processGenericTokenEndpointResponse(ctx.metadata, client, response);
    }
  } catch (error) {
    throw fromOAuthError(error, "the token request", reason);
  }
  const tokenType = result.token_type.toLowerCase() === "dpop" ? "DPoP" : "Bearer";
  const tokens: TokenSet = {
    accessToken: result.access_token,
    tokenType,
    issuer: ctx.metadata.issuer,
    resource: ctx.resource,
  };
  const refreshToken = result.refresh_token ?? options.previous?.refreshToken;
  if (refreshToken !== undefined) tokens.refreshToken = refreshToken;
  if (typeof result.expires_in === "number") {
    tokens.expiresAt = started + result.expires_in * 1000;
  }
  const scope = result.scope ?? options.scope ?? options.previous?.scope;
  if (scope !== undefined && scope !== "") tokens.scope = scope;
  // Whom they name: the ID token's subject, else a JWT access token's (never a secret).
  let subject: string | undefined;
  try {
    subject = oauth.getValidatedIdTokenClaims(result)?.sub;
  } catch {
    subject = undefined;
  }
  subject ??= jwtSubject(result.access_token) ?? options.previous?.subject;
  if (subject !== undefined) tokens.subject = subject;
  return tokens;
}

/**
 * Whether tokens can still be sent: they have an access token that does not expire
 * within `skewMs`.
 *
 * @param tokens The tokens.
 * @param now The current time (ms since the epoch).
 * @param skewMs How early to count them as expired (default 30 s).
 * @returns `true` when they may be used.
 *
 * @example
 * ```ts
 * import { isFresh } from "./token_response.ts";
 *
 * const tokens = { accessToken: "a", tokenType: "Bearer" as const, issuer: "i", resource: "r", expiresAt: 100_000 };
 * if (!isFresh(tokens, 10_000) || isFresh(tokens, 90_000)) throw new Error();
 * ```
 */
export function isFresh(tokens: TokenSet | undefined, now: number, skewMs = 30_000): boolean {
  if (tokens === undefined || tokens.accessToken === "") return false;
  return tokens.expiresAt === undefined || tokens.expiresAt - skewMs > now;
}

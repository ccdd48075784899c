/**
 * The token endpoint: client authentication (`client_secret_basic`, `client_secret_post`,
 * `none`, `private_key_jwt`), the authorization code exchange, refresh, and turning a token
 * response into a {@linkcode TokenSet}. Requests and checks are separate steps, and every
 * request carries `resource` (RFC 8707).
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import type { TokenEndpointAuthMethod } from "./registration.ts";
import type { TokenSet } from "./store.ts";
import {
  checkEndpoint,
  fromOAuthError,
  type HttpOptions,
  o4wOptions,
  oauthError,
} from "./_util.ts";

/** How a client authenticates a token request (oauth4webapi's `ClientAuth`). */
export type ClientAuthentication = oauth.ClientAuth;

/** The oauth4webapi DPoP handle that signs token request proofs. */
export type DpopHandle = oauth.DPoPHandle;

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
 * import { chooseAuthMethod } from "./token.ts";
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
 * import { clientAuthentication } from "./token.ts";
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

function o4wClient(client: TokenClient): oauth.Client {
  return { client_id: client.clientId };
}

function tokenOptions(ctx: TokenContext, extra: Record<string, string> = {}) {
  const endpoint = ctx.metadata.token_endpoint;
  if (typeof endpoint !== "string") {
    throw oauthError("The authorization server has no token_endpoint", "invalid_metadata");
  }
  checkEndpoint(new URL(endpoint), "token endpoint");
  return {
    ...o4wOptions(endpoint, ctx),
    additionalParameters: { resource: ctx.resource, ...extra },
    ...(ctx.dpop ? { DPoP: ctx.dpop } : {}),
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

/** Which grant a token response answers (it decides the checks oauth4webapi applies). */
export type GrantKind = "authorization_code" | "refresh_token" | "client_credentials" | "other";

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
 * import { processTokenResponse } from "./token.ts";
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
    const client = o4wClient(ctx.client);
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
 * import { isFresh } from "./token.ts";
 *
 * const tokens = { accessToken: "a", tokenType: "Bearer" as const, issuer: "i", resource: "r", expiresAt: 100_000 };
 * if (!isFresh(tokens, 10_000) || isFresh(tokens, 90_000)) throw new Error();
 * ```
 */
export function isFresh(tokens: TokenSet | undefined, now: number, skewMs = 30_000): boolean {
  if (tokens === undefined || tokens.accessToken === "") return false;
  return tokens.expiresAt === undefined || tokens.expiresAt - skewMs > now;
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

/**
 * Private: credentials for the Streamable HTTP transport (the `auth` forms, the bearer
 * token, and the OAuth middleware around the transport's `fetch` for the OAuth forms). The
 * `auth` errors of 401/403 answers are in `_http_auth_error.ts`, loaded with the link.
 * Nothing here puts a token or a full header in an error.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { lazyMiddleware, type LazyOAuthMiddleware } from "../oauth/lazy_middleware.ts";
import type { ClientCredentialsOptions, OAuthOptions } from "../oauth/options.ts";
import { checkClientCredentialsOptions, checkOAuthOptions } from "../oauth/options_check.ts";
import type { FetchLike } from "./_http.ts";

/**
 * The credentials of a Streamable HTTP transport:
 *
 * - `undefined`: none;
 * - `{ bearer }`: a fixed token, sent as `Authorization: Bearer <token>`;
 * - a function asked for the token before every request (so it can refresh it);
 * - `{ oauth }`: OAuth 2.1 for a user (authorization code + PKCE, refresh, step-up), run
 *   when the server answers 401 (see `OAuthOptions`);
 * - `{ clientCredentials }`: OAuth for a client acting for itself (`client_credentials`
 *   with a secret or `private_key_jwt`, or the JWT bearer grant).
 *
 * @example The forms
 * ```ts
 * import type { HttpAuth } from "./streamable_http.ts";
 *
 * const forms: HttpAuth[] = [
 *   undefined,
 *   { bearer: "token" },
 *   () => Promise.resolve("token"),
 *   { oauth: { redirectUri: "http://127.0.0.1:8765/callback", onAuthorizationUrl: (url) => console.log(`${url}`) } },
 *   { clientCredentials: { clientId: "svc", clientSecret: "s3cret" } },
 * ];
 * if (forms.length !== 5) throw new Error("unexpected");
 * ```
 */
export type HttpAuth =
  | undefined
  | { bearer: string }
  | (() => string | Promise<string>)
  | { oauth: OAuthOptions }
  | { clientCredentials: ClientCredentialsOptions };

const FORMS =
  "undefined, { bearer: string }, a function, { oauth: {…} } or { clientCredentials: {…} }";

/** Checks an `auth` value; throws `TypeError` naming `key` when it is not a valid form. */
export function checkAuth(auth: unknown, key: string): HttpAuth {
  if (auth === undefined || typeof auth === "function") return auth as HttpAuth;
  if (typeof auth === "object" && auth !== null && !Array.isArray(auth)) {
    checkKeys(auth, ["bearer", "oauth", "clientCredentials"], key);
    const keys = Object.keys(auth);
    if (keys.length !== 1) throw new TypeError(`${key} must be one of ${FORMS}`);
    const form = auth as Record<string, unknown>;
    switch (keys[0]) {
      case "bearer":
        if (typeof form.bearer === "string" && validToken(form.bearer)) {
          return { bearer: form.bearer };
        }
        throw new TypeError(`${key}.bearer must be a non-empty token without spaces or controls`);
      case "oauth":
        return { oauth: checkOAuthOptions(form.oauth, `${key}.oauth`) };
      case "clientCredentials":
        return {
          clientCredentials: checkClientCredentialsOptions(
            form.clientCredentials,
            `${key}.clientCredentials`,
          ),
        };
    }
  }
  throw new TypeError(`${key} must be one of ${FORMS}`);
}

function validToken(token: string): boolean {
  return token.length > 0 && /^[\x21-\x7e]+$/.test(token);
}

/** The `fetch` a transport sends with, and the OAuth middleware behind it (OAuth forms). */
export interface AuthorizedFetch {
  fetch: FetchLike;
  oauth?: LazyOAuthMiddleware;
  /** Whom OAuth tokens are for (OAuth forms). */
  principal?: string;
}

/**
 * The `fetch` for `auth`: `base` itself, or `base` wrapped in the OAuth middleware for the
 * OAuth forms (its shell: the middleware's code loads on first use). OAuth options naming no `store` keep the previous middleware's store, and
 * the previous middleware's authorizations in progress are abandoned.
 */
export function authorizedFetch(
  auth: HttpAuth,
  base: FetchLike,
  previous?: AuthorizedFetch,
): AuthorizedFetch {
  previous?.oauth?.abort();
  if (typeof auth !== "object" || auth === null || "bearer" in auth) return { fetch: base };
  const store = previous?.oauth?.store;
  // The middleware's shell: its code loads with the first request (or login, or callback).
  const oauth = "oauth" in auth
    ? lazyMiddleware({
      kind: "authorization_code",
      options: auth.oauth.store === undefined && store ? { ...auth.oauth, store } : auth.oauth,
    })
    : lazyMiddleware({
      kind: "client_credentials",
      options: auth.clientCredentials.store === undefined && store
        ? { ...auth.clientCredentials, store }
        : auth.clientCredentials,
    });
  return { fetch: oauth(base), oauth, principal: oauth.principal };
}

/** The OAuth middleware of `current`, or kind `auth` reason `oauth_not_configured`. */
export function oauthOf(current: AuthorizedFetch): LazyOAuthMiddleware {
  if (current.oauth === undefined) {
    throw new McpError("The transport's credentials are not an OAuth form", {
      kind: "auth",
      reason: "oauth_not_configured",
    });
  }
  return current.oauth;
}

/**
 * The bearer token to send now, or `undefined`; failures become `McpError` kind `auth`.
 * Only a token function makes this asynchronous.
 */
export function resolveToken(auth: HttpAuth): string | undefined | Promise<string | undefined> {
  if (auth === undefined) return undefined;
  // The OAuth forms attach their tokens in the middleware around `fetch`.
  if (typeof auth === "object") return "bearer" in auth ? auth.bearer : undefined;
  return callTokenFunction(auth);
}

async function callTokenFunction(auth: () => unknown): Promise<string> {
  let token: unknown;
  try {
    token = await auth();
  } catch (cause) {
    throw new McpError("The auth function failed to provide a token", {
      kind: "auth",
      reason: "credentials_failed",
      cause,
    });
  }
  if (typeof token !== "string" || !validToken(token)) {
    throw new McpError("The auth function returned an unusable token (not a non-empty token)", {
      kind: "auth",
      reason: "credentials_failed",
    });
  }
  return token;
}

/**
 * Private: credentials for the Streamable HTTP transport once it runs (the bearer token, and
 * the OAuth middleware around the transport's `fetch` for the OAuth forms; the forms and
 * their check are in `_http_options.ts`, loaded with the transport's shell). The
 * `auth` errors of 401/403 answers are in `_http_auth_error.ts`, loaded with the link.
 * Nothing here puts a token or a full header in an error.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { lazyMiddleware, type LazyOAuthMiddleware } from "../oauth/lazy_middleware.ts";
import { type HttpAuth, validToken, withStore } from "./_http_options.ts";
import type { ClientCredentialsOptions } from "../oauth/options.ts";
import type { FetchLike } from "./_http.ts";

export type { HttpAuth } from "./_http_options.ts";

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
  const kept = withStore(auth, previous?.oauth?.store)!;
  // The middleware's shell: its code loads with the first request (or login, or callback).
  const oauth = "oauth" in kept
    ? lazyMiddleware({ kind: "authorization_code", options: kept.oauth })
    : lazyMiddleware({
      kind: "client_credentials",
      options: (kept as { clientCredentials: ClientCredentialsOptions }).clientCredentials,
    });
  return { fetch: oauth(base), oauth, principal: oauth.principal };
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

/**
 * Private: what `streamableHttp` does with its options when the transport is made: their
 * checks (a `TypeError` naming the bad one: the known keys, the endpoint URL, the static
 * headers, the integer limits and the `auth` forms). The secrets they configure (the
 * credential headers, `auth`'s configured credentials, those of a `fetch` that holds its own)
 * are made when the transport first opens, before any request runs
 * (`oauth/middleware_parts.ts`'s `transportSecrets`, re-exported here; where they are applied
 * is `_redact.ts`; what runs the `auth` forms loads then too, in `_http_auth.ts`). Nothing
 * here puts a token in an error.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import type { ClientCredentialsOptions, OAuthOptions } from "../oauth/options.ts";
import type { TokenStore } from "../oauth/store.ts";
import { checkClientCredentialsOptions, checkOAuthOptions } from "../oauth/options_check.ts";

// What makes the transport's secrets (when it first opens): the core takes them from here.
export { type TransportSecrets, transportSecrets } from "../oauth/middleware_parts.ts";

/** One mebibyte. */
export const MiB = 1024 * 1024;

/** The option keys of `streamableHttp`. */
export const KEYS = [
  "headers",
  "auth",
  "credentialId",
  "fetch",
  "maxResponseBytes",
  "maxEventBytes",
  "maxRedirects",
  "reconnectDelay",
  "maxReconnects",
  "closeTimeout",
];

/** An integer option of at least `min`, or the fallback. */
export function positiveInteger(value: unknown, key: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new TypeError(`options.${key} must be an integer of at least ${min}`);
  }
  return value;
}

/** The MCP endpoint: an absolute http: or https: URL, without its fragment. */
export function endpoint(url: unknown): URL {
  if (typeof url !== "string" && !(url instanceof URL)) {
    throw new TypeError("url must be a string or a URL");
  }
  let parsed: URL;
  try {
    parsed = url instanceof URL ? new URL(url.href) : new URL(String(url));
  } catch {
    throw new TypeError("url must be an absolute http: or https: URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError("url must be an absolute http: or https: URL");
  }
  parsed.hash = "";
  return parsed;
}

/** The `headers` option as a plain record of lower-case names. */
export function staticHeaders(init: unknown): Record<string, string> {
  if (init === undefined) return {};
  try {
    // Checked and normalized once by `Headers`; kept as a plain record (lower-case names).
    return Object.fromEntries(new Headers(init as HeadersInit));
  } catch {
    throw new TypeError("options.headers must hold valid header names and values");
  }
}

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

/** The options of an OAuth form of `auth` (a user's login or client credentials), else none. */
export function oauthOptionsOf(
  auth: HttpAuth,
): OAuthOptions | ClientCredentialsOptions | undefined {
  if (typeof auth !== "object" || auth === null) return undefined;
  if ("oauth" in auth) return auth.oauth;
  if ("clientCredentials" in auth) return auth.clientCredentials;
  return undefined;
}

/**
 * `auth`, given `store` when it is an OAuth form naming no token store: new OAuth credentials
 * keep the store the previous ones used.
 */
export function withStore(auth: HttpAuth, store: TokenStore | undefined): HttpAuth {
  const options = oauthOptionsOf(auth);
  if (store === undefined || options === undefined || options.store !== undefined) return auth;
  return "oauth" in auth!
    ? { oauth: { ...auth.oauth, store } }
    : { clientCredentials: { ...(options as ClientCredentialsOptions), store } };
}

/** Whether `token` can be sent in an `Authorization` header: printable, no spaces. */
export function validToken(token: string): boolean {
  return token.length > 0 && /^[\x21-\x7e]+$/.test(token);
}

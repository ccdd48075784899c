/**
 * The shell of an OAuth middleware that a transport builds at once for `auth: { oauth }` or
 * `auth: { clientCredentials }`: it holds what must be known from the start (the configured
 * secrets, the token observers, whom the tokens are for) and loads the middleware
 * (`middleware.ts`, with its callback reader and token store) on first use: the first
 * request, `login()` or `handleCallback()`. Until then nothing has happened to report: the
 * login state is `none`, no server was talked to, no authorization waits.
 *
 * @module
 */

import { SECRETS } from "../protocol/secrets.ts";
import { holdTokenObservers } from "../protocol/token_events.ts";
import type { Grant } from "./_engine_types.ts";
import type { AuthStatus } from "./auth_status.ts";
import { IDENTITY, identityOf, type IdentityReader } from "./identity.ts";
import type { OAuthMiddleware } from "./middleware.ts";
import { middlewareParts } from "./middleware_parts.ts";
import { principalOf } from "./options.ts";
import type { TokenStore } from "./store.ts";
import type { FetchLike } from "./_util.ts";

/** An OAuth middleware whose code loads on first use; its store is known once it loaded. */
export interface LazyOAuthMiddleware extends Omit<OAuthMiddleware, "store"> {
  /** Wraps `next` (the `fetch` that reaches the MCP server). */
  (next: FetchLike): FetchLike;
  /** The store tokens are kept in: the configured one, or the middleware's once loaded. */
  readonly store: TokenStore | undefined;
}

/**
 * The shell of the middleware for `grant` (its options already checked).
 *
 * @param grant The grant and its checked options.
 * @returns A middleware that loads its code on first use.
 *
 * @example Nothing loads until the first request
 * ```ts
 * import { lazyMiddleware } from "./lazy_middleware.ts";
 *
 * const oauth = lazyMiddleware({
 *   kind: "client_credentials",
 *   options: { clientId: "svc", clientSecret: "s3cret-value" },
 * });
 * const authorizing = oauth((input, init) => fetch(input, init));
 * if (typeof authorizing !== "function" || oauth.authStatus().state !== "none") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function lazyMiddleware(grant: Grant): LazyOAuthMiddleware {
  const parts = middlewareParts(grant);
  let real: OAuthMiddleware | undefined;
  let loading: Promise<OAuthMiddleware> | undefined;
  // Each wrapped `fetch`, wrapped again by the middleware once it loaded (in this order, so
  // the first one is the middleware's own for the authorization server, as when built at once).
  const wraps: { next: FetchLike; ready?: FetchLike }[] = [];
  const load = (): Promise<OAuthMiddleware> =>
    loading ??= import("./middleware.ts").then(({ middleware }) => {
      real ??= middleware(grant, parts);
      for (const wrap of wraps) wrap.ready ??= real(wrap.next);
      return real;
    }, (error) => {
      loading = undefined;
      throw parts.secrets.error(error);
    });
  const shell = ((next: FetchLike): FetchLike => {
    if (typeof next !== "function") throw new TypeError("next must be a fetch function");
    const wrap: { next: FetchLike; ready?: FetchLike } = { next };
    wraps.push(wrap);
    if (real !== undefined) wrap.ready = real(next);
    const authorizing: FetchLike = async (input, init) => {
      if (wrap.ready === undefined) await load();
      return await wrap.ready!(input, init);
    };
    const identity: IdentityReader = (url) =>
      wrap.ready === undefined ? undefined : identityOf(wrap.ready)?.(url);
    Object.defineProperty(authorizing, SECRETS, { value: parts.secrets });
    Object.defineProperty(authorizing, IDENTITY, { value: identity });
    return holdTokenObservers(authorizing, parts.observers);
  }) as LazyOAuthMiddleware;
  Object.defineProperties(shell, {
    store: { get: () => real?.store ?? grant.options.store, enumerable: true },
    principal: { value: principalOf(grant.options), enumerable: true },
    profile: { value: grant.options.profile, enumerable: true },
  });
  const none: AuthStatus = { state: "none" };
  shell.authStatus = () => real?.authStatus() ?? { ...none };
  shell.login = async (options) => await (real ?? await load()).login(options);
  shell.handleCallback = async (callback) => await (real ?? await load()).handleCallback(callback);
  // Before the middleware loads there is no authorization to wake or abandon, no session to
  // sign out of.
  shell.authorized = () => real?.authorized();
  shell.abort = () => real?.abort();
  shell.signOut = async () => await real?.signOut();
  return shell;
}

/**
 * OAuth as fetch middleware: `withOAuth(options)(fetch)` returns a `fetch` that attaches
 * the access token to every request, and on a 401 runs discovery, registration and
 * authorization (or a refresh) once for all concurrent requests, then retries; on a 403
 * `insufficient_scope` it steps up (the union of scopes) a bounded number of times.
 * `withClientCredentials(options)` does the same for a client acting for itself.
 *
 * Tokens, secrets and codes never appear in errors: failures are `McpError` kind `auth`
 * with a stable `reason` (`resource_mismatch`, `issuer_mismatch`, `iss_mismatch`,
 * `iss_missing`, `state_mismatch`, `pkce_unsupported`, `client_mismatch`,
 * `registration_failed`, `token_failed`, `authorization_denied`, `authorization_failed`,
 * `insecure_endpoint`, `no_authorization_server`, `network`, …).
 *
 * @module
 */
import { dependencyMissing } from "../protocol/errors.ts";
import type { Engine, Grant } from "./_engine.ts";
import { type ClientCredentialsOptions, type OAuthOptions, principalOf } from "./options.ts";
import { checkClientCredentialsOptions, checkOAuthOptions } from "./options_check.ts";
import { memoryTokenStore, type TokenKey, type TokenStore } from "./store.ts";
import { type AuthStatus, authTracker } from "./auth_status.ts";
import type { FetchLike } from "./_util.ts";
import { recordingFetch } from "./recording_fetch.ts";
import { SECRETS } from "../protocol/secrets.ts";
import { holdTokenObservers } from "../protocol/token_events.ts";
import { type MiddlewareParts, middlewareParts } from "./middleware_parts.ts";
import { IDENTITY, type IdentityReader, tokenIdentity } from "./identity.ts";

/**
 * A configured OAuth middleware: call it with a `fetch` to get an authorizing `fetch`.
 * One middleware keeps one set of sessions (per MCP endpoint) and shares them between
 * every `fetch` it wraps.
 *
 * @example
 * ```ts ignore
 * import { streamableHttp } from "../transports/streamable_http.ts";
 * import { withOAuth } from "./middleware.ts";
 *
 * const oauth = withOAuth({
 *   redirectUri: "http://127.0.0.1:8765/callback",
 *   onAuthorizationUrl: (url) => console.log(`Open ${url}`),
 * });
 * const transport = streamableHttp("https://mcp.example.com/mcp", { fetch: oauth(fetch) });
 * // …later, when the browser comes back to the redirect URI:
 * await oauth.handleCallback("http://127.0.0.1:8765/callback?code=…&state=…");
 * ```
 */
export interface OAuthMiddleware {
  /** Wraps `next` (the `fetch` that reaches the MCP server). */
  (next: FetchLike): FetchLike;
  /**
   * Completes an authorization this middleware is waiting for, with the URL the browser
   * was redirected to (or its query). Resolves once the tokens are stored.
   *
   * @throws {McpError} kind `auth` when the response is refused or no authorization waits
   *   for its `state` (`unknown_state`).
   */
  handleCallback(callback: string | URL): Promise<void>;
  /** Tells waiting requests that the host stored new tokens: they check the store now. */
  authorized(): void;
  /** Abandons authorizations in progress (their requests fail with `authorization_abandoned`). */
  abort(): void;
  /** Forgets this principal's tokens for every server this middleware has talked to. */
  signOut(): Promise<void>;
  /**
   * Starts a new login (browser or device flow) at every server this middleware has talked
   * to, skipping stored tokens and refreshes, and resolves once it is done; before any
   * request it only clears `needs_reauth`, so the next request logs in. This is how a
   * client leaves `needs_reauth`.
   */
  login(options?: { signal?: AbortSignal }): Promise<void>;
  /** Where the login stands (see {@linkcode AuthStatus}). */
  authStatus(): AuthStatus;
  /** The store tokens are kept in. */
  readonly store: TokenStore;
  /** Whom the tokens are for. */
  readonly principal: string;
  /** The account profile, when one is named. */
  readonly profile: string | undefined;
}

/**
 * Builds the middleware. The engine (and with it oauth4webapi and jose) loads on the first
 * request, so a program that configures OAuth but never uses it, or does not configure it
 * at all, pays nothing for the libraries. A transport builds it through its shell
 * (`lazy_middleware.ts`), which loads this file on first use.
 *
 * @param configured The grant and its checked options.
 * @param parts The secrets and token observers (a shell's own, when it loaded this).
 * @returns The middleware.
 */
export function middleware(
  configured: Grant,
  parts: MiddlewareParts = middlewareParts(configured),
): OAuthMiddleware {
  // Every credential the middleware holds or sends is kept out of the errors it throws (and
  // out of a transport's, which includes these secrets when handed the middleware's fetch).
  // A shell that loaded this middleware on first use hands over its own secrets, already
  // known to its transport.
  const { secrets, observers } = parts;
  const asFetch = configured.options.fetch;
  const grant = (asFetch === undefined ? configured : {
    ...configured,
    options: { ...configured.options, fetch: recordingFetch(asFetch, secrets) },
  }) as Grant;
  const redacted = <T>(promise: Promise<T>) =>
    promise.catch((error) => {
      throw secrets.error(error);
    });
  const store = grant.options.store ?? memoryTokenStore({ now: grant.options.now });
  const principal = principalOf(grant.options);
  const auth = authTracker();
  const profile = grant.options.profile;
  let wrapped: FetchLike | undefined;
  let engine: Engine | undefined;
  let loading: Promise<typeof import("./_authorizing_fetch.ts")> | undefined;
  const load = () =>
    loading ??= import("./_authorizing_fetch.ts").then(
      (authorizing) => {
        engine ??= authorizing.createEngine(grant, store, () => wrapped, observers, auth);
        return authorizing;
      },
      (error) => {
        loading = undefined;
        throw dependencyMissing("the OAuth libraries", "authorize", error);
      },
    );
  // Whom the current tokens for an endpoint name (issuer, client, subject): see identity.ts.
  const identityAt: IdentityReader = (url) => {
    const id = `${url.origin}${url.pathname}`;
    const session = engine?.sessions().find((s) => s.serverUrl.href === id);
    return session?.tokens === undefined
      ? undefined
      : tokenIdentity(session.tokens, grant.kind, profile);
  };
  const wrap = ((next: FetchLike): FetchLike => {
    if (typeof next !== "function") throw new TypeError("next must be a fetch function");
    const recorded = recordingFetch(next, secrets);
    wrapped ??= recorded;
    let ready: FetchLike | undefined;
    const authorizing: FetchLike = (input, init) =>
      redacted((async () => {
        if (ready === undefined) {
          const { authorizingFetch } = await load();
          ready ??= authorizingFetch(engine!, recorded);
        }
        return await ready(input, init);
      })());
    Object.defineProperty(authorizing, SECRETS, { value: secrets });
    Object.defineProperty(authorizing, IDENTITY, { value: identityAt });
    return holdTokenObservers(authorizing, observers);
  }) as OAuthMiddleware;
  Object.defineProperties(wrap, {
    store: { value: store, enumerable: true },
    principal: { value: principal, enumerable: true },
    profile: { value: profile, enumerable: true },
  });
  wrap.authStatus = () => auth.status();
  wrap.login = (options) =>
    redacted((async () => {
      if (grant.kind !== "authorization_code") {
        throw new TypeError("login() is for a user's login (withOAuth), not client credentials");
      }
      await load();
      await engine!.login(options?.signal);
    })());
  wrap.handleCallback = (callback) => redacted(completeCallback(callback));
  const completeCallback = async (callback: string | URL) => {
    // The callback's reader loads with the first callback, as the engine with the first request.
    const { callbackUrl, handleCallback, oauthError } = await import("./handle_callback.ts");
    const url = callbackUrl(callback);
    secrets.add(url.searchParams.get("code") ?? undefined);
    // Only a loaded engine can have an authorization waiting for this callback.
    if (engine !== undefined && await engine.deliver(url)) return;
    if (grant.kind !== "authorization_code") {
      throw oauthError("No authorization is waiting for this callback", "unknown_state");
    }
    await handleCallback(url, {
      store,
      fetch: grant.options.fetch ?? wrapped,
      client: grant.options.client,
      now: grant.options.now,
    });
    engine?.authorized();
  };
  wrap.authorized = () => engine?.authorized();
  wrap.abort = () => engine?.abort();
  wrap.signOut = async () => {
    for (const session of engine?.sessions() ?? []) {
      const d = session.discovery;
      session.tokens = undefined;
      if (d !== undefined) {
        const key: TokenKey = { principal, issuer: d.issuer, resource: d.resource };
        if (profile !== undefined) key.profile = profile;
        await store.deleteTokens(key);
      }
    }
  };
  return wrap;
}

/**
 * OAuth for a user: the authorization code flow with PKCE, run when the server answers 401.
 *
 * @param options How the user is sent to log in (`onAuthorizationUrl`), where the browser
 *   comes back (`callback` or `redirectUri`), which client to use, the token store.
 * @returns The middleware.
 * @throws {TypeError} When an option is invalid (naming it).
 *
 * @example Against an in-process server (the authorization server redirects at once)
 * ```ts ignore
 * import { withOAuth } from "./middleware.ts";
 *
 * const oauth = withOAuth({
 *   redirectUri: "http://127.0.0.1:8765/callback",
 *   // A real host opens a browser; this one follows the redirect itself.
 *   onAuthorizationUrl: async (url) =>
 *     (await fetch(url, { redirect: "manual" })).headers.get("location") ?? undefined,
 * });
 * const response = await oauth(fetch)("https://mcp.example.com/mcp", { method: "POST", body: "{}" });
 * ```
 */
export function withOAuth(options: OAuthOptions): OAuthMiddleware {
  return middleware({ kind: "authorization_code", options: checkOAuthOptions(options, "options") });
}

/**
 * OAuth for a client acting for itself: `client_credentials` with a secret or a
 * `private_key_jwt` key, or the JWT bearer grant with an `assertion`.
 *
 * @param options The credentials, scopes and token store.
 * @returns The middleware.
 * @throws {TypeError} When an option is invalid (naming it).
 *
 * @example
 * ```ts
 * import { withClientCredentials } from "./middleware.ts";
 *
 * const auth = withClientCredentials({ clientId: "svc", clientSecret: "s3cret", scope: "mcp:read" });
 * const authorizedFetch = auth((input, init) => fetch(input, init));
 * if (typeof authorizedFetch !== "function" || auth.principal !== "default") throw new Error();
 * ```
 */
export function withClientCredentials(options: ClientCredentialsOptions): OAuthMiddleware {
  return middleware({
    kind: "client_credentials",
    options: checkClientCredentialsOptions(options, "options"),
  });
}

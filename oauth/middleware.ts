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

import { McpError } from "../protocol/errors.ts";
import { callbackState } from "./authorize.ts";
import { readChallenge } from "./challenge.ts";
import { chooseAuthMethod } from "./token.ts";
import { createEngine, type Engine, type Grant } from "./_engine.ts";
import { exchangeCode } from "./_interactive.ts";
import { prepare } from "./_request.ts";
import {
  checkClientCredentialsOptions,
  checkOAuthOptions,
  type ClientCredentialsOptions,
  type OAuthOptions,
} from "./options.ts";
import type { PreRegisteredClient } from "./registration.ts";
import { memoryTokenStore, type TokenStore } from "./store.ts";
import { discard, type FetchLike, oauthError } from "./_util.ts";

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
  /** The store tokens are kept in. */
  readonly store: TokenStore;
  /** Whom the tokens are for. */
  readonly principal: string;
}

function authorizingFetch(engine: Engine, next: FetchLike): FetchLike {
  return async (input, init) => {
    const request = prepare(input, init);
    const session = engine.session(request.url);
    let tokens = await engine.usableTokens(session, request.signal);
    let recoveries = 0;
    let lastHow: string | undefined;
    let nonceRetries = 0;
    for (;;) {
      const sent = tokens;
      const response = await request.send(
        next,
        (headers) => engine.attach(session, headers, sent, request.method, request.url),
      );
      const fresh = session.dpop?.rememberNonce(request.url, response) ?? false;
      if (response.status !== 401 && response.status !== 403) {
        if (response.ok) session.stepUps.delete(request.operation);
        return response;
      }
      const challenge = readChallenge(response);
      if (challenge.error === "use_dpop_nonce" && fresh && nonceRetries < 2 && request.replayable) {
        nonceRetries++;
        discard(response);
        continue;
      }
      if (!request.replayable) return response;
      if (response.status === 401) {
        if (recoveries >= 2 || lastHow === "authorized") return response;
        discard(response);
        const recovery = await engine.recover(session, {
          failed: sent,
          challenge,
          reauthorize: recoveries > 0,
        }, request.signal);
        recoveries++;
        lastHow = recovery.how;
        tokens = recovery.tokens;
        continue;
      }
      // Step-ups are counted per operation, across calls, until one succeeds.
      const stepUps = session.stepUps.get(request.operation) ?? 0;
      if (challenge.error !== "insufficient_scope" || stepUps >= engine.maxStepUps) return response;
      discard(response);
      session.stepUps.set(request.operation, stepUps + 1);
      const recovery = await engine.recover(
        session,
        { failed: sent, challenge, stepUp: true },
        request.signal,
      );
      tokens = recovery.tokens;
    }
  };
}

function middleware(grant: Grant): OAuthMiddleware {
  const store = grant.options.store ?? memoryTokenStore({ now: grant.options.now });
  let wrapped: FetchLike | undefined;
  const engine = createEngine(grant, store, () => wrapped);
  const wrap = ((next: FetchLike): FetchLike => {
    if (typeof next !== "function") throw new TypeError("next must be a fetch function");
    wrapped ??= next;
    return authorizingFetch(engine, next);
  }) as OAuthMiddleware;
  Object.defineProperties(wrap, {
    store: { value: store, enumerable: true },
    principal: { value: engine.principal, enumerable: true },
  });
  wrap.handleCallback = async (callback) => {
    const url = callbackUrl(callback);
    if (await engine.deliver(url)) return;
    if (grant.kind !== "authorization_code") {
      throw oauthError("No authorization is waiting for this callback", "unknown_state");
    }
    await handleCallback(url, {
      store,
      fetch: grant.options.fetch ?? wrapped,
      client: grant.options.client,
      now: grant.options.now,
    });
    engine.authorized();
  };
  wrap.authorized = () => engine.authorized();
  wrap.abort = () => engine.abort();
  wrap.signOut = async () => {
    for (const session of engine.sessions()) {
      const d = session.discovery;
      session.tokens = undefined;
      if (d !== undefined) {
        await store.deleteTokens({
          principal: engine.principal,
          issuer: d.issuer,
          resource: d.resource,
        });
      }
    }
  };
  return wrap;
}

function callbackUrl(callback: string | URL): URL {
  if (callback instanceof URL) return new URL(callback.href);
  if (typeof callback !== "string") throw new TypeError("callback must be a URL or a string");
  try {
    return new URL(callback);
  } catch {
    const query = callback.startsWith("?") ? callback : `?${callback}`;
    return new URL(`http://callback.invalid/${query}`);
  }
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

/** Options for the standalone {@linkcode handleCallback}. */
export interface HandleCallbackOptions {
  /** The store the authorization was started with (its pending record is read from it). */
  store: TokenStore;
  /** The `fetch` for the token request. */
  fetch?: FetchLike;
  /** The pre-registered client, when the authorization used one (for its secret). */
  client?: PreRegisteredClient;
  /** A client (or anything with `authorized()`) to tell once the tokens are stored. */
  mcpClient?: { authorized(): unknown };
  /** The clock. */
  now?: () => number;
}

/**
 * Completes an authorization from the URL the browser was redirected to, for hosts whose
 * web server is separate from the MCP client: finds the pending authorization (by `state`)
 * in the shared store, checks the response (`iss`, `state`, `error`), exchanges the code,
 * stores the tokens, and calls `mcpClient.authorized()`.
 *
 * @param callback The redirect URL (or its query).
 * @param options The store, `fetch`, the pre-registered client, the MCP client to wake.
 * @throws {McpError} kind `auth`: `unknown_state` (no such pending authorization, or it
 *   expired or was used), and the reasons of the checks and the token request.
 *
 * @example
 * ```ts
 * import { handleCallback } from "./middleware.ts";
 * import { memoryTokenStore } from "./store.ts";
 *
 * try {
 *   await handleCallback("http://127.0.0.1:8765/callback?code=c&state=nope", { store: memoryTokenStore() });
 *   throw new Error("accepted");
 * } catch (error) {
 *   if ((error as { reason?: string }).reason !== "unknown_state") throw error;
 * }
 * ```
 */
export async function handleCallback(
  callback: string | URL,
  options: HandleCallbackOptions,
): Promise<void> {
  if (typeof options !== "object" || options === null || typeof options.store !== "object") {
    throw new TypeError("options.store must be a TokenStore");
  }
  const url = callbackUrl(callback);
  const state = callbackState(url);
  const pending = state === undefined ? undefined : await options.store.getPending(state);
  if (pending === undefined) {
    throw oauthError(
      "No pending authorization matches this callback (unknown, expired or already used state)",
      "unknown_state",
    );
  }
  await options.store.deletePending(pending.state);
  const metadata = pending.metadata as Parameters<typeof chooseAuthMethod>[2];
  let clientSecret: string | undefined;
  if (options.client !== undefined && options.client.clientId === pending.clientId) {
    clientSecret = options.client.clientSecret;
  } else {
    const kept = await options.store.getClient(pending.issuer);
    if (kept !== undefined && kept.clientId === pending.clientId) clientSecret = kept.clientSecret;
  }
  const method = chooseAuthMethod(
    pending.tokenEndpointAuthMethod,
    clientSecret !== undefined,
    metadata,
  );
  const tokens = await exchangeCode(pending, url, {
    clientId: pending.clientId,
    clientSecret,
    method,
  }, { fetch: options.fetch, now: options.now });
  await options.store.setTokens(
    { principal: pending.principal, issuer: pending.issuer, resource: pending.resource },
    tokens,
  );
  try {
    options.mcpClient?.authorized();
  } catch (cause) {
    throw new McpError("The client could not be told about the new tokens", {
      kind: "auth",
      reason: "authorized_failed",
      cause,
    });
  }
}

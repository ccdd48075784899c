/**
 * Private: the interactive part of the authorization code flow. It picks the client and
 * the scopes, starts the authorization (keeping the pending record in the store), hands
 * the URL to the host, and waits for whichever comes first: the URL `onAuthorizationUrl`
 * returns, the loopback receiver, `handleCallback()`, or `authorized()` finding tokens in
 * the store. Then it checks the response and exchanges the code, once.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { loginScopes, startAuthorization, validateCallback } from "./authorize.ts";
import type { Discovery } from "./discovery.ts";
import type { DpopSigner } from "./dpop.ts";
import type { OAuthOptions } from "./options.ts";
import { type PreRegisteredClient, resolveClient } from "./registration.ts";
import type { PendingAuthorization, TokenKey, TokenSet, TokenStore } from "./store.ts";
import { chooseAuthMethod, type TokenClient } from "./client_auth.ts";
import { authorizationCodeRequest, type TokenContext, withNonceRetry } from "./token.ts";
import { processTokenResponse } from "./token_response.ts";
import { type FetchLike, oauthError } from "./_util.ts";
import type { AuthTracker } from "./auth_status.ts";

/** An authorization waiting for its response, by `state`. */
export interface Waiter {
  key: TokenKey;
  /** Hands over the callback URL; resolves once its code is exchanged. */
  deliver(callback: URL): Promise<void>;
  /** Checks the store for tokens the host put there. */
  recheck(): void;
}

/** What the interactive flow needs from the engine. */
export interface InteractiveContext {
  options: OAuthOptions;
  /** The pre-registered client, bound to its issuer. */
  client?: PreRegisteredClient;
  configured?: string[];
  store: TokenStore;
  principal: string;
  timeout: number;
  waiters: Map<string, Waiter>;
  fetch: FetchLike | undefined;
  now: () => number;
  fresh(tokens: TokenSet | undefined): boolean;
  /** Told that the login is pending, with its URL. */
  auth?: AuthTracker;
  /** The account profile, when one is named. */
  profile?: string;
}

/** What a recovery asks of the flow (see the engine's `Need`). */
export interface InteractiveNeed {
  failed?: TokenSet;
  challenge: { scope?: string[] };
  stepUp?: boolean;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Exchanges an authorization response for tokens (the pending record must be current). */
export async function exchangeCode(
  pending: PendingAuthorization,
  callback: URL | string,
  client: TokenClient,
  http: { fetch?: FetchLike; signal?: AbortSignal; dpop?: DpopSigner; now?: () => number },
): Promise<TokenSet> {
  const params = validateCallback(pending, callback);
  const ctx: TokenContext = {
    metadata: pending.metadata as unknown as TokenContext["metadata"],
    client,
    resource: pending.resource,
    fetch: http.fetch,
    signal: http.signal,
    dpop: http.dpop?.handle,
    now: http.now,
  };
  const tokens = await withNonceRetry(
    () => authorizationCodeRequest(ctx, params, pending.redirectUri, pending.codeVerifier),
    (response) =>
      processTokenResponse(ctx, response, { grant: "authorization_code", scope: pending.scope }),
  );
  return { ...tokens, issuer: pending.issuer, clientId: client.clientId };
}

/**
 * What both user flows settle before they ask the user: the client (pre-registered, by
 * metadata document or registered now), how it authenticates at the token endpoint, and the
 * scopes to ask for.
 */
export async function prepareLogin(
  ctx: InteractiveContext,
  session: { scopes?: string[] },
  d: Discovery,
  need: InteractiveNeed,
  login: { redirectUri: string; flow?: "device"; signal: AbortSignal },
): Promise<{ client: TokenClient; scopes?: string[] }> {
  const o = ctx.options;
  const registration = await resolveClient({
    issuer: d.issuer,
    metadata: d.metadata,
    redirectUri: login.redirectUri,
    store: ctx.store,
    client: ctx.client,
    clientMetadataUrl: o.clientMetadataUrl,
    clientMetadata: o.clientMetadata,
    fetch: ctx.fetch,
    signal: login.signal,
    now: ctx.now,
    flow: login.flow,
  });
  const client: TokenClient = {
    clientId: registration.clientId,
    clientSecret: registration.clientSecret,
    method: chooseAuthMethod(
      registration.tokenEndpointAuthMethod,
      registration.clientSecret !== undefined,
      d.metadata,
    ),
  };
  const scopes = loginScopes({
    configured: ctx.configured,
    need,
    session,
    discovery: d,
    offlineAccess: o.offlineAccess,
  });
  return { client, scopes };
}

/** Runs one interactive authorization at `d`; resolves with the tokens and scopes asked. */
export async function authorizeInteractively(
  ctx: InteractiveContext,
  session: { scopes?: string[] },
  d: Discovery,
  need: InteractiveNeed,
  signal: AbortSignal,
  dpop: DpopSigner | undefined,
): Promise<{ tokens: TokenSet; scopes?: string[] }> {
  const { options: o, store, now } = ctx;
  const open = o.onAuthorizationUrl;
  if (open === undefined || (o.callback === undefined && o.redirectUri === undefined)) {
    throw oauthError(
      "A browser login is needed, but no onAuthorizationUrl and callback (or redirectUri) are " +
        "configured (and the authorization server offers no device flow)",
      "browser_unavailable",
    );
  }
  const listener = o.callback ? await o.callback.listen({ signal }) : undefined;
  try {
    const redirectUri = listener?.redirectUri ?? o.redirectUri!;
    const { client, scopes } = await prepareLogin(ctx, session, d, need, { redirectUri, signal });
    const { url, pending } = await startAuthorization({
      issuer: d.issuer,
      metadata: d.metadata,
      clientId: client.clientId,
      tokenEndpointAuthMethod: client.method,
      redirectUri,
      resource: d.resource,
      scopes,
      principal: ctx.principal,
      now,
    });
    if (ctx.profile !== undefined) pending.profile = ctx.profile;
    await store.setPending(pending.state, pending, ctx.timeout);
    const key: TokenKey = { principal: ctx.principal, issuer: d.issuer, resource: d.resource };
    if (ctx.profile !== undefined) key.profile = ctx.profile;
    const outcome = deferred<URL | "stored">();
    const exchanged = deferred<void>();
    ctx.waiters.set(pending.state, {
      key,
      deliver(callback) {
        outcome.resolve(callback);
        return exchanged.promise;
      },
      recheck() {
        Promise.resolve(store.getTokens(key)).then((stored) => {
          if (stored !== undefined && ctx.fresh(stored)) outcome.resolve("stored");
        }, () => {});
      },
    });
    const onAbort = () => outcome.reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      Promise.resolve()
        .then(() => {
          ctx.auth?.set("pending", { url: url.href });
          return open(new URL(url.href), { signal, redirectUri });
        })
        .then((returned) => {
          if (returned !== undefined && returned !== null) {
            outcome.resolve(new URL(String(returned)));
          }
        }, (cause) =>
          outcome.reject(
            new McpError("The onAuthorizationUrl callback failed", {
              kind: "auth",
              reason: "authorization_failed",
              cause,
            }),
          ));
      listener?.wait(pending.state, signal).then(outcome.resolve, outcome.reject);
      const result = await outcome.promise;
      if (result === "stored") {
        const stored = await store.getTokens(key);
        if (stored === undefined) {
          throw oauthError("The stored tokens disappeared", "authorization_failed");
        }
        return { tokens: stored, scopes };
      }
      // The pending record is used once: forget it before the exchange.
      await store.deletePending(pending.state);
      try {
        const tokens = await exchangeCode(pending, result, client, {
          fetch: ctx.fetch,
          signal,
          dpop,
          now,
        });
        exchanged.resolve();
        return { tokens, scopes };
      } catch (error) {
        exchanged.reject(error);
        throw error;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      ctx.waiters.delete(pending.state);
      await store.deletePending(pending.state);
    }
  } finally {
    await listener?.close();
  }
}

/**
 * Private: the state machine behind the OAuth middleware. Per MCP endpoint it keeps the
 * last discovery, the current tokens and the scopes asked for; it gets new tokens in one
 * flight at a time (concurrent 401s share one refresh or one authorization), re-reads the
 * store first (another process may have refreshed), refreshes before authorizing again,
 * and re-runs discovery on every recovery (so an authorization server migration is seen).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { selectScopes } from "./authorize.ts";
import type { ResourceChallenge } from "./challenge.ts";
import { clientCredentialsToken, tokenClient } from "./client_credentials.ts";
import { discover, type Discovery } from "./discovery.ts";
import { createDpopSigner, dpopAlgorithm, type DpopSigner } from "./dpop.ts";
import type { ClientCredentialsOptions, OAuthOptions } from "./options.ts";
import { DEFAULT_AUTHORIZATION_TIMEOUT, scopeList } from "./options.ts";
import type { TokenKey, TokenSet, TokenStore } from "./store.ts";
import {
  chooseAuthMethod,
  isFresh,
  processTokenResponse,
  refreshRequest,
  type TokenClient,
  type TokenContext,
  withNonceRetry,
} from "./token.ts";
import { authorizeInteractively, type InteractiveContext, type Waiter } from "./_interactive.ts";
import { type FetchLike, oauthError } from "./_util.ts";

/** The grant that gets brand-new tokens. */
export type Grant =
  | { kind: "authorization_code"; options: OAuthOptions }
  | { kind: "client_credentials"; options: ClientCredentialsOptions };

/** Per-endpoint state. */
export interface Session {
  serverUrl: URL;
  discovery?: Discovery;
  tokens?: TokenSet;
  scopes?: string[];
  flight?: Promise<Recovery>;
  dpop?: DpopSigner;
  reload: boolean;
  /** The last `resource_metadata` a challenge named (used when a later one names none). */
  resourceMetadataUrl?: string;
  /** Step-up authorizations per operation since its last success. */
  stepUps: Map<string, number>;
}

/** How a recovery got its tokens. */
export interface Recovery {
  tokens: TokenSet;
  how: "current" | "stored" | "refreshed" | "authorized";
}

/** What a recovery must do. */
export interface Need {
  /** The tokens that were refused (if any). */
  failed?: TokenSet;
  /** The challenge of the refusal. */
  challenge: ResourceChallenge;
  /** Step-up: authorize again with the union of scopes (no refresh, no stored tokens). */
  stepUp?: boolean;
  /** Skip stored tokens and refresh: authorize again. */
  reauthorize?: boolean;
  /**
   * Proactive (the tokens are about to expire): refresh if possible, using the discovery
   * already made, but never start a user's login; the stale tokens come back otherwise.
   */
  refreshOnly?: boolean;
}

/** The engine of one middleware instance. */
export interface Engine {
  readonly store: TokenStore;
  readonly principal: string;
  readonly maxStepUps: number;
  session(url: URL): Session;
  usableTokens(session: Session, signal?: AbortSignal): Promise<TokenSet | undefined>;
  recover(session: Session, need: Need, signal?: AbortSignal): Promise<Recovery>;
  attach(
    session: Session,
    headers: Headers,
    tokens: TokenSet | undefined,
    method: string,
    url: URL,
  ): Promise<void>;
  deliver(callback: URL): Promise<boolean>;
  authorized(): void;
  abort(): void;
  sessions(): Session[];
}

function race<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Creates the engine.
 *
 * @param grant How brand-new tokens are obtained.
 * @param store Where tokens live.
 * @param defaultFetch The wrapped fetch, for metadata and token requests without `options.fetch`.
 */
export function createEngine(
  grant: Grant,
  store: TokenStore,
  defaultFetch: () => FetchLike | undefined,
): Engine {
  const options = grant.options;
  const principal = options.principal ?? "default";
  const now = options.now ?? Date.now;
  const timeout = options.authorizationTimeout ?? DEFAULT_AUTHORIZATION_TIMEOUT;
  const maxStepUps = options.maxStepUps ?? 2;
  const skew = options.expirySkew ?? 30_000;
  const fresh = (tokens: TokenSet | undefined) => isFresh(tokens, now(), skew);
  const configured = scopeList(options.scope);
  const sessions = new Map<string, Session>();
  const waiters = new Map<string, Waiter>();
  let life = new AbortController();
  let boundIssuer: string | undefined = grant.kind === "client_credentials"
    ? grant.options.issuer
    : grant.options.client?.issuer;
  const http = () => options.fetch ?? defaultFetch();

  function keyOf(d: Discovery): TokenKey {
    return { principal, issuer: d.issuer, resource: d.resource };
  }

  function checkBinding(issuer: string): void {
    if (grant.kind === "authorization_code" && grant.options.client === undefined) return;
    if (boundIssuer === undefined) {
      boundIssuer = issuer;
      return;
    }
    if (boundIssuer !== issuer) {
      throw oauthError(
        `The configured client credentials belong to ${boundIssuer}, but the server now uses ` +
          `the authorization server ${issuer}; refusing to present them there`,
        "client_mismatch",
        { expected: boundIssuer, issuer },
      );
    }
  }

  /**
   * The DPoP signer to bind new tokens with: always with `dpop: true` (or a key pair); with
   * `"auto"` only when the resource asks for DPoP (a `DPoP` challenge, or
   * `dpop_bound_access_tokens_required`) and the authorization server lists ES256, so a
   * Bearer-only resource never gets tokens it cannot accept.
   */
  async function dpopFor(
    session: Session,
    d: Discovery,
    challenge: ResourceChallenge | undefined,
  ): Promise<DpopSigner | undefined> {
    const setting = options.dpop ?? "auto";
    if (setting === false) return undefined;
    if (setting === "auto" && challenge !== undefined) {
      const listed = d.metadata.dpop_signing_alg_values_supported;
      const wanted = challenge.dpop === true ||
        d.resourceMetadata?.dpop_bound_access_tokens_required === true;
      if (!wanted || !Array.isArray(listed) || dpopAlgorithm(listed) === undefined) {
        return undefined;
      }
    }
    if (session.dpop === undefined) {
      session.dpop = typeof setting === "object"
        ? await createDpopSigner({ keyPair: setting.keyPair, algorithm: setting.algorithm, now })
        : await createDpopSigner({ now });
    }
    return session.dpop;
  }

  async function clientFor(d: Discovery, tokens: TokenSet): Promise<TokenClient | undefined> {
    if (grant.kind === "client_credentials") return await tokenClient(grant.options, d.metadata);
    const clientId = tokens.clientId;
    if (clientId === undefined) return undefined;
    const pre = grant.options.client;
    if (pre !== undefined && pre.clientId === clientId) {
      return {
        clientId,
        clientSecret: pre.clientSecret,
        method: chooseAuthMethod(
          pre.tokenEndpointAuthMethod,
          pre.clientSecret !== undefined,
          d.metadata,
        ),
      };
    }
    const kept = await store.getClient(d.issuer);
    if (kept !== undefined && kept.clientId === clientId) {
      return {
        clientId,
        clientSecret: kept.clientSecret,
        method: chooseAuthMethod(
          kept.tokenEndpointAuthMethod,
          kept.clientSecret !== undefined,
          d.metadata,
        ),
      };
    }
    if (clientId === grant.options.clientMetadataUrl) return { clientId, method: "none" };
    return undefined;
  }

  async function refresh(session: Session, d: Discovery, tokens: TokenSet, signal: AbortSignal) {
    const client = await clientFor(d, tokens);
    if (client === undefined || tokens.refreshToken === undefined) return undefined;
    // A DPoP-bound token is refreshed with the same key (no challenge: no auto decision).
    const dpop = tokens.tokenType === "DPoP" ? await dpopFor(session, d, undefined) : undefined;
    const ctx: TokenContext = {
      metadata: d.metadata,
      client,
      resource: d.resource,
      fetch: http(),
      signal,
      dpop: dpop?.handle,
      now,
    };
    const refreshToken = tokens.refreshToken;
    try {
      const next = await withNonceRetry(
        () => refreshRequest(ctx, refreshToken),
        (response) =>
          processTokenResponse(ctx, response, { grant: "refresh_token", previous: tokens }),
      );
      return { ...next, clientId: client.clientId };
    } catch (error) {
      // A refused refresh (expired, revoked, rotated elsewhere) means: authorize again.
      if (error instanceof McpError && error.reason === "refresh_failed") return undefined;
      throw error;
    }
  }

  function interactive(): InteractiveContext {
    const o = (grant as Extract<Grant, { kind: "authorization_code" }>).options;
    return {
      options: o,
      client: o.client === undefined ? undefined : { ...o.client, issuer: boundIssuer },
      configured,
      store,
      principal,
      timeout,
      waiters,
      fetch: http(),
      now,
      fresh,
    };
  }

  async function obtainCredentials(
    session: Session,
    d: Discovery,
    need: Need,
    signal: AbortSignal,
  ): Promise<{ tokens: TokenSet; scopes?: string[] }> {
    const o = (grant as Extract<Grant, { kind: "client_credentials" }>).options;
    checkBinding(d.issuer);
    const scopes = selectScopes({
      configured: need.stepUp ? undefined : configured,
      challenged: need.challenge.scope,
      resourceScopes: d.resourceMetadata?.scopes_supported,
      previous: need.stepUp ? session.scopes : undefined,
      offlineAccess: false,
    });
    const dpop = await dpopFor(session, d, need.challenge);
    const client = await tokenClient(o, d.metadata);
    const tokens = await clientCredentialsToken({
      metadata: d.metadata,
      client,
      resource: d.resource,
      fetch: http(),
      signal,
      dpop: dpop?.handle,
      now,
    }, { scope: scopes?.join(" "), assertion: o.assertion });
    return { tokens: { ...tokens, clientId: client.clientId }, scopes };
  }

  async function run(session: Session, need: Need): Promise<Recovery> {
    const signal = AbortSignal.any([AbortSignal.timeout(timeout), life.signal]);
    if (need.challenge.resourceMetadata !== undefined) {
      session.resourceMetadataUrl = need.challenge.resourceMetadata;
    }
    // Every refusal runs discovery again (the resource may have moved to another
    // authorization server); a proactive refresh uses the last one.
    const d = need.refreshOnly && session.discovery !== undefined
      ? session.discovery
      : await discover(session.serverUrl, {
        resourceMetadataUrl: session.resourceMetadataUrl,
        fetch: http(),
        signal,
        selectAuthorizationServer: options.selectAuthorizationServer,
      });
    session.discovery = d;
    const key = keyOf(d);
    if (!need.stepUp && !need.reauthorize) {
      const stored = await store.getTokens(key);
      if (
        stored !== undefined && stored.accessToken !== need.failed?.accessToken &&
        fresh(stored) && (stored.tokenType !== "DPoP" || session.dpop !== undefined)
      ) {
        session.tokens = stored;
        return { tokens: stored, how: "stored" };
      }
      const candidates = [stored, session.tokens].filter((t): t is TokenSet =>
        t !== undefined && t.refreshToken !== undefined && t.issuer === d.issuer &&
        t.resource === d.resource
      );
      for (const candidate of candidates) {
        const refreshed = await refresh(session, d, candidate, signal);
        if (refreshed !== undefined) {
          await store.setTokens(key, refreshed);
          session.tokens = refreshed;
          return { tokens: refreshed, how: "refreshed" };
        }
      }
      if (stored !== undefined) await store.deleteTokens(key);
    }
    if (need.refreshOnly && grant.kind === "authorization_code" && need.failed !== undefined) {
      return { tokens: need.failed, how: "current" };
    }
    let obtained: { tokens: TokenSet; scopes?: string[] };
    if (grant.kind === "authorization_code") {
      checkBinding(d.issuer);
      const dpop = await dpopFor(session, d, need.challenge);
      obtained = await authorizeInteractively(interactive(), session, d, need, signal, dpop);
    } else obtained = await obtainCredentials(session, d, need, signal);
    session.scopes = obtained.scopes;
    await store.setTokens(key, obtained.tokens);
    session.tokens = obtained.tokens;
    return { tokens: obtained.tokens, how: "authorized" };
  }

  const engine: Engine = {
    store,
    principal,
    maxStepUps,
    session(url) {
      const id = `${url.origin}${url.pathname}`;
      let session = sessions.get(id);
      if (session === undefined) {
        session = { serverUrl: new URL(id), reload: false, stepUps: new Map() };
        sessions.set(id, session);
      }
      return session;
    },
    async usableTokens(session, signal) {
      if (session.reload && session.discovery !== undefined) {
        session.reload = false;
        session.tokens = await store.getTokens(keyOf(session.discovery)) ?? session.tokens;
      }
      const tokens = session.tokens;
      if (tokens === undefined || fresh(tokens)) return tokens;
      if (session.discovery === undefined) return tokens;
      try {
        const need: Need = { failed: tokens, challenge: { scheme: "" }, refreshOnly: true };
        return (await engine.recover(session, need, signal)).tokens;
      } catch (error) {
        if (signal?.aborted) throw error;
        return tokens; // sent as they are: a 401 then runs the full recovery
      }
    },
    recover(session, need, signal) {
      if (session.flight !== undefined) return race(session.flight, signal);
      const current = session.tokens;
      if (
        !need.stepUp && !need.reauthorize && current !== undefined &&
        current.accessToken !== need.failed?.accessToken && fresh(current)
      ) {
        return Promise.resolve({ tokens: current, how: "current" });
      }
      const flight = run(session, need);
      session.flight = flight;
      flight.then(() => {}, () => {}).finally(() => {
        if (session.flight === flight) session.flight = undefined;
      });
      return race(flight, signal);
    },
    async attach(session, headers, tokens, method, url) {
      if (tokens === undefined) return;
      if (tokens.tokenType === "DPoP") {
        const signer = session.dpop;
        if (signer === undefined) return; // a DPoP token without its key is useless
        headers.set("authorization", `DPoP ${tokens.accessToken}`);
        headers.set("dpop", await signer.proof(method, url, tokens.accessToken));
        return;
      }
      headers.set("authorization", `Bearer ${tokens.accessToken}`);
    },
    async deliver(callback) {
      const state = callback.searchParams.get("state");
      const waiter = state === null ? undefined : waiters.get(state);
      if (waiter === undefined) return false;
      await waiter.deliver(callback);
      return true;
    },
    authorized() {
      for (const session of sessions.values()) {
        session.reload = true;
        session.stepUps.clear();
      }
      for (const waiter of waiters.values()) waiter.recheck();
    },
    abort() {
      life.abort(
        new McpError("The authorization was abandoned", {
          kind: "auth",
          reason: "authorization_abandoned",
        }),
      );
      life = new AbortController();
    },
    sessions: () => [...sessions.values()],
  };
  return engine;
}

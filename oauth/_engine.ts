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
import { DEFAULT_AUTHORIZATION_TIMEOUT, principalOf, scopeList } from "./options.ts";
import type { TokenSet, TokenStore } from "./store.ts";
import { isFresh } from "./token_response.ts";
import { keyOf, recoverTokens } from "./_recovery.ts";
import type { FetchLike } from "./_util.ts";
import type { Grant, Need, Recovery, RecoveryContext, Session } from "./_engine_types.ts";
import { type TokenObserver, watchTokens } from "../protocol/token_events.ts";
import { type AuthTracker, authTracker, needsReauthError } from "./auth_status.ts";

export type { Grant, Need, Recovery, Session } from "./_engine_types.ts";

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
  /** Starts a new login at every endpoint known (stored tokens and refreshes skipped). */
  login(signal?: AbortSignal): Promise<void>;
  /** Whether requests must fail at once until a new login. */
  needsReauth(): boolean;
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

const noop = () => {};

/** Whether a step-up flight to `flight` scopes also brings every scope in `wanted`. */
function covers(flight: string[] | undefined, wanted: string[] | undefined): boolean {
  return flight !== undefined && (wanted ?? []).every((scope) => flight.includes(scope));
}

/**
 * Creates the engine.
 *
 * @param grant How brand-new tokens are obtained.
 * @param store Where tokens live.
 * @param defaultFetch The wrapped fetch, for metadata and token requests without `options.fetch`.
 * @param observers Told of each fetch of tokens (a traced client's spans).
 */
export function createEngine(
  grant: Grant,
  store: TokenStore,
  defaultFetch: () => FetchLike | undefined,
  observers?: ReadonlySet<TokenObserver>,
  auth: AuthTracker = authTracker(),
): Engine {
  const options = grant.options;
  const now = options.now ?? Date.now;
  const skew = options.expirySkew ?? 30_000;
  const ctx: RecoveryContext = {
    grant,
    store,
    principal: principalOf(options),
    now,
    timeout: options.authorizationTimeout ?? DEFAULT_AUTHORIZATION_TIMEOUT,
    configured: scopeList(options.scope),
    waiters: new Map(),
    fresh: (tokens) => isFresh(tokens, now(), skew),
    http: () => options.fetch ?? defaultFetch(),
    boundIssuer: grant.kind === "client_credentials"
      ? grant.options.issuer
      : grant.options.client?.issuer,
    profile: options.profile,
    auth,
    forceLogin: false,
  };
  const { principal, fresh, waiters } = ctx;
  const maxStepUps = options.maxStepUps ?? 2;
  const sessions = new Map<string, Session>();
  let life = new AbortController();

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
        session.tokens = await store.getTokens(keyOf(ctx, session.discovery)) ?? session.tokens;
      }
      const tokens = session.tokens;
      if (tokens === undefined || fresh(tokens)) return tokens;
      if (session.discovery === undefined) return tokens;
      try {
        const need: Need = { failed: tokens, challenge: { scheme: "" }, refreshOnly: true };
        return (await engine.recover(session, need, signal)).tokens;
      } catch (error) {
        if (signal?.aborted || engine.needsReauth()) throw error;
        return tokens; // sent as they are: a 401 then runs the full recovery
      }
    },
    recover(session, need, signal) {
      if (engine.needsReauth()) return Promise.reject(needsReauthError());
      const running = session.flight;
      if (running !== undefined) {
        if (!need.stepUp || covers(session.flightScopes, need.challenge.scope)) {
          return race(running, signal);
        }
        // A step-up for other scopes would get tokens without them: it waits for this
        // flight to land, then steps up itself (to the union with what that one got).
        const after = running.then(noop, noop).then(() => engine.recover(session, need, signal));
        return race(after, signal);
      }
      const current = session.tokens;
      if (
        !need.stepUp && !need.reauthorize && current !== undefined &&
        current.accessToken !== need.failed?.accessToken && fresh(current)
      ) {
        return Promise.resolve({ tokens: current, how: "current" });
      }
      const flight = recoverTokens(ctx, session, need, life.signal);
      if (observers !== undefined && observers.size > 0) {
        watchTokens(observers, need.refreshOnly === true, flight);
      }
      session.flight = flight;
      session.flightScopes = need.stepUp
        ? [...session.scopes ?? [], ...need.challenge.scope ?? []]
        : undefined;
      flight.then(noop, noop).finally(() => {
        if (session.flight !== flight) return;
        session.flight = undefined;
        session.flightScopes = undefined;
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
    async login(signal) {
      ctx.auth.set("none");
      ctx.forceLogin = true;
      for (const session of sessions.values()) {
        if (session.discovery === undefined) continue;
        session.tokens = undefined;
        await engine.recover(session, { challenge: { scheme: "" }, reauthorize: true }, signal);
      }
    },
    needsReauth: () => ctx.auth.status().state === "needs_reauth",
    authorized() {
      // The host stored new tokens: a login is no longer needed before reading them.
      if (engine.needsReauth()) ctx.auth.set("none");
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

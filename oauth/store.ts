/**
 * Where OAuth state lives: the {@linkcode TokenStore} contract and an in-memory store.
 *
 * Tokens are kept per principal (whom the client acts for), authorization server
 * (`issuer`) and resource (the MCP server), so a token is only ever sent to the server it
 * was issued for, by the server it came from. Client registrations are kept per issuer:
 * after the protected resource names another authorization server the old ones are never
 * used there. Pending authorizations (PKCE verifier, `state`, expected `iss`) are kept per
 * `state` until the callback arrives.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";

/** A value or a promise of it (store methods may return either). */
export type MaybePromise<T> = T | Promise<T>;

/** Tokens for one principal, issuer and resource. Never logged or put in errors. */
export interface TokenSet {
  /** The access token. */
  accessToken: string;
  /** `"Bearer"`, or `"DPoP"` for a sender-constrained token. */
  tokenType: "Bearer" | "DPoP";
  /** The refresh token, when the authorization server issued one. */
  refreshToken?: string;
  /** When the access token expires (ms since the epoch), when known. */
  expiresAt?: number;
  /** The granted scopes (or the requested ones when the server did not say). */
  scope?: string;
  /** The authorization server that issued them. */
  issuer: string;
  /** The resource they are for. */
  resource: string;
  /** The `client_id` they were issued to (a refresh must use the same client). */
  clientId?: string;
  /**
   * The account they name (`sub` of the ID token or of a JWT access token), when known.
   * Not a credential: `whoami` shows it.
   */
  subject?: string;
}

/** The key of a {@linkcode TokenSet}. */
export interface TokenKey {
  /** Whom the client acts for (default `"default"`). */
  principal: string;
  /** The authorization server's issuer identifier. */
  issuer: string;
  /** The resource identifier (the MCP server). */
  resource: string;
  /** The account profile (`"work"`); absent for the default one. */
  profile?: string;
}

/** A client registration (dynamic, or pre-registered and bound), kept per issuer. */
export interface ClientRegistration {
  /** The authorization server it is valid at. */
  issuer: string;
  /** The `client_id`. */
  clientId: string;
  /** The `client_secret`, for a confidential client. */
  clientSecret?: string;
  /** When the secret expires (ms since the epoch); `undefined` for never. */
  clientSecretExpiresAt?: number;
  /** The token endpoint authentication method it was registered with. */
  tokenEndpointAuthMethod?: string;
  /** The registered redirect URIs. */
  redirectUris: string[];
  /** The registered grant types, when known (the device flow needs its own). */
  grantTypes?: string[];
}

/** An authorization the client started and waits to complete (by `state`). */
export interface PendingAuthorization {
  /** The `state` sent (and expected back). */
  state: string;
  /** The PKCE code verifier. */
  codeVerifier: string;
  /** The issuer recorded before redirecting (RFC 9207: `iss` must equal it). */
  issuer: string;
  /** The authorization server metadata the request was built from. */
  metadata: Record<string, unknown>;
  /** The `redirect_uri` sent. */
  redirectUri: string;
  /** The `resource` sent. */
  resource: string;
  /** The `scope` sent, if any. */
  scope?: string;
  /** The `client_id` sent. */
  clientId: string;
  /** The token endpoint authentication method to use for the code exchange. */
  tokenEndpointAuthMethod: string;
  /** Whom the tokens are for. */
  principal: string;
  /** The account profile the tokens are for, when one is named. */
  profile?: string;
  /** When it was created (ms since the epoch). */
  createdAt: number;
}

/**
 * The storage contract for OAuth state. Methods may return values or promises; a store
 * must keep values as given (structured-clone-able plain objects).
 *
 * @example A store that logs writes (but never values) around the memory store
 * ```ts
 * import { memoryTokenStore, type TokenStore } from "./store.ts";
 *
 * const inner = memoryTokenStore();
 * const writes: string[] = [];
 * const store: TokenStore = {
 *   ...inner,
 *   setTokens(key, tokens) {
 *     writes.push(`${key.principal}@${key.issuer}`);
 *     return inner.setTokens(key, tokens);
 *   },
 * };
 * await store.setTokens(
 *   { principal: "alice", issuer: "https://auth.example.com", resource: "https://mcp.example.com/mcp" },
 *   { accessToken: "a", tokenType: "Bearer", issuer: "https://auth.example.com", resource: "https://mcp.example.com/mcp" },
 * );
 * if (writes[0] !== "alice@https://auth.example.com") throw new Error();
 * ```
 */
export interface TokenStore {
  /** The tokens for `key`, if any. */
  getTokens(key: TokenKey): MaybePromise<TokenSet | undefined>;
  /** Stores (replaces) the tokens for `key`. */
  setTokens(key: TokenKey, tokens: TokenSet): MaybePromise<void>;
  /** Forgets the tokens for `key`. */
  deleteTokens(key: TokenKey): MaybePromise<void>;
  /** The client registration at `issuer`, if any. */
  getClient(issuer: string): MaybePromise<ClientRegistration | undefined>;
  /** Stores (replaces) the client registration at `issuer`. */
  setClient(issuer: string, client: ClientRegistration): MaybePromise<void>;
  /** Forgets the client registration at `issuer`. */
  deleteClient(issuer: string): MaybePromise<void>;
  /** The pending authorization with this `state`, if it has not expired. */
  getPending(state: string): MaybePromise<PendingAuthorization | undefined>;
  /** Stores a pending authorization for `ttlMs` milliseconds. */
  setPending(state: string, pending: PendingAuthorization, ttlMs: number): MaybePromise<void>;
  /** Forgets a pending authorization. */
  deletePending(state: string): MaybePromise<void>;
}

/** Options for {@linkcode memoryTokenStore}. */
export interface MemoryTokenStoreOptions {
  /** The clock (ms since the epoch) for pending-authorization expiry (default `Date.now`). */
  now?: () => number;
}

/** A stable string for a {@linkcode TokenKey}. */
export function tokenKeyString(key: TokenKey): string {
  const parts = [key.principal, key.issuer, key.resource];
  return JSON.stringify(key.profile === undefined ? parts : [...parts, key.profile]);
}

/**
 * A {@linkcode TokenStore} in memory: tokens last as long as the process. Values are
 * copied in and out, so callers cannot change what is stored by accident.
 *
 * @param options The clock.
 * @returns The store.
 *
 * @example
 * ```ts
 * import { memoryTokenStore } from "./store.ts";
 *
 * const store = memoryTokenStore();
 * const key = { principal: "default", issuer: "https://auth.example.com", resource: "https://mcp.example.com/mcp" };
 * await store.setTokens(key, { accessToken: "at", tokenType: "Bearer", issuer: key.issuer, resource: key.resource });
 * if ((await store.getTokens(key))?.accessToken !== "at") throw new Error();
 * await store.deleteTokens(key);
 * if (await store.getTokens(key) !== undefined) throw new Error();
 * ```
 */
export function memoryTokenStore(options: MemoryTokenStoreOptions = {}): TokenStore {
  checkKeys(options, ["now"], "memoryTokenStore options");
  const now = options.now ?? Date.now;
  const tokens = new Map<string, TokenSet>();
  const clients = new Map<string, ClientRegistration>();
  const pending = new Map<string, { value: PendingAuthorization; expiresAt: number }>();
  const copy = <T>(value: T | undefined): T | undefined =>
    value === undefined ? undefined : structuredClone(value);
  return {
    getTokens: (key) => copy(tokens.get(tokenKeyString(key))),
    setTokens(key, value) {
      tokens.set(tokenKeyString(key), structuredClone(value));
    },
    deleteTokens(key) {
      tokens.delete(tokenKeyString(key));
    },
    getClient: (issuer) => copy(clients.get(issuer)),
    setClient(issuer, value) {
      clients.set(issuer, structuredClone(value));
    },
    deleteClient(issuer) {
      clients.delete(issuer);
    },
    getPending(state) {
      const entry = pending.get(state);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now()) {
        pending.delete(state);
        return undefined;
      }
      return copy(entry.value);
    },
    setPending(state, value, ttlMs) {
      for (const [key, entry] of pending) if (entry.expiresAt <= now()) pending.delete(key);
      pending.set(state, { value: structuredClone(value), expiresAt: now() + ttlMs });
    },
    deletePending(state) {
      pending.delete(state);
    },
  };
}

/**
 * The key part a profile adds to a store's token key: none for the default profile (so
 * keys written before profiles still read), else `["profile", name]`.
 *
 * @param key The token key.
 * @returns The parts to append.
 *
 * @example
 * ```ts
 * import { profilePart } from "./store.ts";
 *
 * const key = { principal: "default", issuer: "https://as.example.com", resource: "https://mcp.example.com/mcp" };
 * if (profilePart(key).length !== 0) throw new Error();
 * if (profilePart({ ...key, profile: "work" }).join() !== "profile,work") throw new Error();
 * ```
 */
export function profilePart(key: TokenKey): string[] {
  return key.profile === undefined ? [] : ["profile", key.profile];
}

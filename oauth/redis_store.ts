/**
 * {@linkcode redisTokenStore}: a {@linkcode TokenStore} in Redis, so N workers on many hosts
 * share one login and one refresh. It is built on the cache's store contract
 * (`cache/store.ts`, with `redisStore`): `cache/` sits below `oauth/` in the layering (it
 * imports only `protocol/` and `clock/`), so the one contract backs both the result cache
 * and the token stores, and a Redis command function is adapted in one place.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import { type RedisCommand, redisStore } from "../cache/redis.ts";
import { profilePart } from "./store.ts";
import type { CacheStore } from "../cache/store.ts";
import type {
  ClientRegistration,
  PendingAuthorization,
  TokenKey,
  TokenSet,
  TokenStore,
} from "./store.ts";

/** Options of {@linkcode redisTokenStore}. */
export interface RedisTokenStoreOptions {
  /** The prefix of every key (default `"conduit_mcp:oauth"`). */
  prefix?: string;
  /** The clock, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/**
 * A {@linkcode TokenStore} over any cache store: tokens and registrations without expiry,
 * pending authorizations for their `ttlMs`.
 *
 * @param store The store.
 * @returns The token store.
 */
export function cacheTokenStore(store: CacheStore): TokenStore {
  const tokenKey = (
    key: TokenKey,
  ) => ["tokens", key.principal, key.issuer, key.resource, ...profilePart(key)];
  const read = async <T>(key: string[]) => (await store.get(key)) as T | undefined;
  return {
    getTokens: (key) => read<TokenSet>(tokenKey(key)),
    setTokens: (key, tokens) => store.set(tokenKey(key), tokens, Infinity),
    deleteTokens: (key) => store.delete(tokenKey(key)),
    getClient: (issuer) => read<ClientRegistration>(["clients", issuer]),
    setClient: (issuer, client) => store.set(["clients", issuer], client, Infinity),
    deleteClient: (issuer) => store.delete(["clients", issuer]),
    getPending: (state) => read<PendingAuthorization>(["pending", state]),
    setPending: (state, pending, ttlMs) => store.set(["pending", state], pending, ttlMs),
    deletePending: (state) => store.delete(["pending", state]),
  };
}

/**
 * A {@linkcode TokenStore} in Redis, through a function that sends one command (the same
 * one-liners as `redisStore`). Keys: `<prefix>:tokens:<principal>:<issuer>:<resource>` (then `:profile:<name>` for a profile),
 * `<prefix>:clients:<issuer>`, `<prefix>:pending:<state>` (with `PX`).
 *
 * @param command Sends one Redis command and returns its reply.
 * @param options The key prefix and the clock.
 * @returns The token store.
 *
 * @example Over a Map standing in for Redis
 * ```ts
 * import { redisTokenStore } from "./redis_store.ts";
 *
 * const data = new Map<string, string>();
 * const store = redisTokenStore(async ([name, key, value]) => {
 *   if (name === "SET") return void data.set(key, value);
 *   if (name === "GET") return data.get(key) ?? null;
 *   if (name === "DEL") return data.delete(key) ? 1 : 0;
 *   return null;
 * });
 * const key = { principal: "default", issuer: "https://auth.example.com", resource: "https://mcp.example.com/mcp" };
 * await store.setTokens(key, { accessToken: "at", tokenType: "Bearer", issuer: key.issuer, resource: key.resource });
 * if ((await store.getTokens(key))?.accessToken !== "at") throw new Error();
 * ```
 */
export function redisTokenStore(
  command: RedisCommand,
  options: RedisTokenStoreOptions = {},
): TokenStore {
  checkKeys(options, ["prefix", "now"], "redisTokenStore options");
  const prefix = options.prefix ?? "conduit_mcp:oauth";
  return cacheTokenStore(redisStore(command, { prefix, now: options.now }));
}

/**
 * A {@linkcode TokenStore} over a Deno.Kv-shaped database, so tokens and client
 * registrations survive a restart. The caller opens the database and passes it in; this
 * file only needs the three methods of {@linkcode KvLike}.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import { profilePart } from "./store.ts";
import type {
  ClientRegistration,
  PendingAuthorization,
  TokenKey,
  TokenSet,
  TokenStore,
} from "./store.ts";

/** A key part, as a Deno KV database takes them. */
export type KvKeyPart = string | number | bigint | boolean | Uint8Array;

/** The part of a Deno KV database the store uses (any database with this shape works). */
export interface KvLike {
  /** Reads a value (`null` when absent). */
  get(key: KvKeyPart[]): Promise<{ value: unknown }>;
  /** Writes a value, optionally expiring after `expireIn` ms. */
  set(key: KvKeyPart[], value: unknown, options?: { expireIn?: number }): Promise<unknown>;
  /** Deletes a value. */
  delete(key: KvKeyPart[]): Promise<void>;
}

/** Options for {@linkcode kvTokenStore}. */
export interface KvTokenStoreOptions {
  /** The key prefix (default `["conduit_mcp", "oauth"]`). */
  prefix?: KvKeyPart[];
  /** The clock (ms since the epoch) for pending-authorization expiry (default `Date.now`). */
  now?: () => number;
}

/**
 * A {@linkcode TokenStore} in a Deno.Kv database (or anything {@linkcode KvLike}). Keys:
 * `[...prefix, "tokens", principal, issuer, resource]` (then `"profile", name` for a profile), `[...prefix, "clients", issuer]`,
 * `[...prefix, "pending", state]` (written with `expireIn`).
 *
 * @param kv The database, e.g. `await Deno.openKv("./tokens.db")`.
 * @param options The key prefix.
 * @returns The store.
 *
 * @example With a Map standing in for Deno.Kv
 * ```ts
 * import { kvTokenStore, type KvLike } from "./kv_store.ts";
 *
 * const map = new Map<string, unknown>();
 * const kv: KvLike = {
 *   get: (key) => Promise.resolve({ value: map.get(JSON.stringify(key)) ?? null }),
 *   set: (key, value) => Promise.resolve(map.set(JSON.stringify(key), value)),
 *   delete: (key) => Promise.resolve(void map.delete(JSON.stringify(key))),
 * };
 * const store = kvTokenStore(kv);
 * const key = { principal: "default", issuer: "https://auth.example.com", resource: "https://mcp.example.com/mcp" };
 * await store.setTokens(key, { accessToken: "at", tokenType: "Bearer", issuer: key.issuer, resource: key.resource });
 * if ((await kvTokenStore(kv).getTokens(key))?.accessToken !== "at") throw new Error();
 * ```
 */
export function kvTokenStore(kv: KvLike, options: KvTokenStoreOptions = {}): TokenStore {
  if (
    typeof kv !== "object" || kv === null || typeof kv.get !== "function" ||
    typeof kv.set !== "function" || typeof kv.delete !== "function"
  ) {
    throw new TypeError("kv must have get, set and delete methods (a Deno KV database)");
  }
  checkKeys(options, ["prefix", "now"], "kvTokenStore options");
  const prefix = options.prefix ?? ["conduit_mcp", "oauth"];
  const now = options.now ?? Date.now;
  const tokenKey = (
    key: TokenKey,
  ) => [...prefix, "tokens", key.principal, key.issuer, key.resource, ...profilePart(key)];
  const clientKey = (issuer: string) => [...prefix, "clients", issuer];
  const pendingKey = (state: string) => [...prefix, "pending", state];
  const read = async <T>(key: KvKeyPart[]): Promise<T | undefined> => {
    const { value } = await kv.get(key);
    return value === null || value === undefined ? undefined : value as T;
  };
  return {
    getTokens: (key) => read<TokenSet>(tokenKey(key)),
    async setTokens(key, tokens) {
      await kv.set(tokenKey(key), tokens);
    },
    deleteTokens: (key) => kv.delete(tokenKey(key)),
    getClient: (issuer) => read<ClientRegistration>(clientKey(issuer)),
    async setClient(issuer, client) {
      await kv.set(clientKey(issuer), client);
    },
    deleteClient: (issuer) => kv.delete(clientKey(issuer)),
    async getPending(state) {
      const entry = await read<{ value: PendingAuthorization; expiresAt: number }>(
        pendingKey(state),
      );
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now()) {
        await kv.delete(pendingKey(state));
        return undefined;
      }
      return entry.value;
    },
    async setPending(state, pending, ttlMs) {
      await kv.set(pendingKey(state), { value: pending, expiresAt: now() + ttlMs }, {
        expireIn: ttlMs,
      });
    },
    deletePending: (state) => kv.delete(pendingKey(state)),
  };
}

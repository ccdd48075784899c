/**
 * The one store contract every cache and shared token store is built on:
 * {@linkcode CacheStore}. A store keeps JSON values under keys made of string parts; every
 * entry carries its own expiry, and the store checks it on every read, so an expired entry
 * is never returned whatever the backend does with it (Deno KV's `expireIn` only deletes
 * eventually; Redis `PX` hides it at once; the memory store has no timers at all).
 *
 * Three stores implement it: `memoryStore()` (the default: bounded, in this process),
 * `denoKvStore(kv)` (a Deno KV database: one file shared by local processes, or Deno
 * Deploy's KV shared by every isolate) and `redisStore(command)` (any Redis client, for
 * processes on many hosts). The contract sits in `cache/`, below `oauth/` in the layering,
 * so the OAuth token stores can be built on it too (`redisTokenStore`).
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";

/**
 * A key: its parts, each kept distinct by every store (Deno KV as key parts; the memory
 * store and Redis join them with {@linkcode encodeKey}), so no part a server names can
 * spell another key.
 */
export type CacheKey = readonly string[];

/**
 * A key as one string without ambiguity: in each part `%` becomes `%25` and `:` becomes
 * `%3A`, and the parts (empty ones too) are joined with `:`. Two keys are equal only when
 * their parts are, and the keys under a prefix are exactly those starting with the
 * prefix's text followed by `:`.
 *
 * @param key The parts.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { encodeKey } from "./store.ts";
 *
 * if (encodeKey(["g", "", "p:alice:x"]) === encodeKey(["g", "p:alice", "x"])) throw new Error();
 * if (encodeKey(["a:b", "c"]) !== "a%3Ab:c") throw new Error();
 * ```
 */
export function encodeKey(key: CacheKey): string {
  return key.map((part) => part.replaceAll("%", "%25").replaceAll(":", "%3A")).join(":");
}

/**
 * The store contract: asynchronous get, set with expiry, delete, and delete by prefix.
 * Values are JSON (objects, arrays, strings, numbers, booleans, `null`); a store may keep
 * the very value it was given, so callers treat what they read as read-only.
 *
 * @example A store that counts reads around the memory store
 * ```ts
 * import type { CacheStore } from "./store.ts";
 * import { memoryStore } from "./memory.ts";
 *
 * const inner = memoryStore();
 * let reads = 0;
 * const store: CacheStore = { ...inner, get: (key) => (reads++, inner.get(key)) };
 * await store.set(["a"], { n: 1 }, 60_000);
 * const value = await store.get(["a"]) as { n: number };
 * if (value.n !== 1 || reads !== 1) throw new Error("unexpected");
 * ```
 */
export interface CacheStore {
  /** The value at `key`, or `undefined` when there is none or it has expired. */
  get(key: CacheKey): Promise<unknown>;
  /**
   * Stores `value` at `key` for `ttlMs` milliseconds (`Infinity`: until deleted). The
   * promise resolves once the write is done.
   */
  set(key: CacheKey, value: unknown, ttlMs: number): Promise<void>;
  /** Deletes the value at `key`. */
  delete(key: CacheKey): Promise<void>;
  /** Deletes every value whose key starts with the parts of `prefix`. */
  deletePrefix(prefix: CacheKey): Promise<void>;
  /**
   * Optional: the values at `keys`, in order, each as `get` returns it, read in one round
   * trip where the backend has one (Redis `MGET`, Deno KV `getMany`). Callers read through
   * {@linkcode readMany}, which falls back to `get` per key.
   */
  getMany?(keys: readonly CacheKey[]): Promise<unknown[]>;
  /**
   * `true` when the store drops entries before their expiry to make room (the bounded
   * `memoryStore()`): governance then keeps its pins and "always" grants out of it, where
   * cache traffic cannot push them out.
   */
  readonly evicts?: boolean;
  /**
   * Optional: a bound on every value the store has returned, in characters of its JSON text
   * (a store that reads all its values from one text of known length knows it). A reader
   * that must bound what it reads (the hub's stored catalogues) then skips measuring each
   * value.
   */
  readonly maxValueChars?: number;
}

/**
 * Reads several keys: through the store's `getMany` when it has one, else with `get` per key
 * (in parallel).
 *
 * @param store The store.
 * @param keys The keys.
 * @returns Their values, in order (`undefined` for none).
 *
 * @example
 * ```ts
 * import { readMany } from "./store.ts";
 * import { memoryStore } from "./memory.ts";
 *
 * const store = memoryStore();
 * await store.set(["a"], 1, 60_000);
 * const [a, b] = await readMany(store, [["a"], ["b"]]);
 * if (a !== 1 || b !== undefined) throw new Error("unexpected");
 * ```
 */
export async function readMany(store: CacheStore, keys: readonly CacheKey[]): Promise<unknown[]> {
  if (keys.length === 0) return [];
  if (store.getMany !== undefined) {
    const values = await store.getMany(keys);
    if (Array.isArray(values) && values.length === keys.length) return values;
  }
  return await Promise.all(keys.map((key) => store.get(key)));
}

/** What a store keeps for one entry: the value and when it expires (`null`: never). */
export interface StoredEntry {
  /** The value. */
  v: unknown;
  /** Expiry in ms since the epoch, or `null` for never. */
  e: number | null;
}

/**
 * Wraps a value with its expiry.
 *
 * @param value The value.
 * @param ttlMs Its lifetime in milliseconds (`Infinity` for never).
 * @param now The current time.
 * @returns The entry to store.
 */
export function entryOf(value: unknown, ttlMs: number, now: number): StoredEntry {
  return { v: value, e: ttlMs === Infinity ? null : now + ttlMs };
}

/**
 * The value of a stored entry while it has not expired.
 *
 * @param raw What the backend returned (an entry, or anything else for none).
 * @param now The current time.
 * @returns The value, or `undefined` when absent, malformed or expired.
 */
export function valueOf(raw: unknown, now: number): unknown {
  if (typeof raw !== "object" || raw === null || !("v" in raw) || !("e" in raw)) return undefined;
  const { v, e } = raw as StoredEntry;
  if (e !== null && !(typeof e === "number" && now < e)) return undefined;
  return v;
}

/**
 * Checks a `set` call's arguments.
 *
 * @param key The key.
 * @param ttlMs The lifetime.
 * @throws {TypeError} When the key is not non-empty string parts or the lifetime is not
 *   a positive number.
 */
export function checkSet(key: CacheKey, ttlMs: number): void {
  checkKey(key);
  if (typeof ttlMs !== "number" || !(ttlMs > 0)) {
    throw new TypeError("ttlMs must be a positive number of milliseconds (or Infinity)");
  }
}

/**
 * Checks a key: an array of strings (non-empty for a full key).
 *
 * @param key The key.
 * @param prefix Whether an empty array is allowed (a prefix of everything).
 * @throws {TypeError} When it is not.
 */
export function checkKey(key: CacheKey, prefix = false): void {
  if (
    !Array.isArray(key) || (!prefix && key.length === 0) ||
    !key.every((part) => typeof part === "string")
  ) {
    throw new TypeError("a cache key must be an array of strings");
  }
}

/** Options of `memoryStore` (`memory.ts`), checked by {@linkcode memoryBounds}. */
export interface MemoryStoreOptions {
  /**
   * The most entries kept (default 1 000); the least recently used goes first. `Infinity`:
   * no bound, nothing is evicted (the store's `evicts` is then `false`).
   */
  maxEntries?: number;
  /**
   * The most bytes kept (default 32 MiB), counted as the JSON text of each entry's key and
   * value; the least recently used entries go first. `Infinity`: no bound.
   */
  maxBytes?: number;
  /** The clock, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** The default byte bound of `memoryStore`: 32 MiB. */
export const MEMORY_STORE_BYTES = 32 * 1024 * 1024;

/**
 * The checked bounds and clock of a memory store: what `memoryStore` checks at once, before
 * its code loads (the entries' `memoryStore` makes it on first use).
 *
 * @param options The options.
 * @returns The most entries and bytes kept, and the clock.
 * @throws {TypeError} On a bad option.
 */
export function memoryBounds(
  options: MemoryStoreOptions,
): { max: number; maxBytes: number; now: () => number } {
  checkKeys(options, ["maxEntries", "maxBytes", "now"], "memoryStore options");
  const max = options.maxEntries ?? 1_000;
  if (max !== Infinity && (!Number.isInteger(max) || max < 1)) {
    throw new TypeError("memoryStore: maxEntries must be a positive integer");
  }
  const maxBytes = options.maxBytes ?? MEMORY_STORE_BYTES;
  if (maxBytes !== Infinity && (!Number.isInteger(maxBytes) || maxBytes < 1)) {
    throw new TypeError("memoryStore: maxBytes must be a positive integer");
  }
  if (options.now !== undefined && typeof options.now !== "function") {
    throw new TypeError("memoryStore: now must be a function");
  }
  return { max, maxBytes, now: options.now ?? Date.now };
}

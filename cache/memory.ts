/**
 * The default store: {@linkcode memoryStore}, in this process only, bounded by entry count
 * (the least recently used entry goes first), with no timers: an expired entry is dropped
 * when it is read, or when it is the oldest and room is needed.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import {
  type CacheKey,
  type CacheStore,
  checkKey,
  checkSet,
  encodeKey,
  entryOf,
  valueOf,
} from "./store.ts";

/** Options of {@linkcode memoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The most entries kept (default 1 000); the least recently used goes first. `Infinity`:
   * no bound, nothing is evicted (the store's `evicts` is then `false`).
   */
  maxEntries?: number;
  /** The clock, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

const SEPARATOR = ":";

/**
 * A {@linkcode CacheStore} in memory, shared by every client given the same store. Values
 * are kept as given (callers treat what they read as read-only).
 *
 * @param options The bound and the clock.
 * @returns The store.
 * @throws {TypeError} On a bad option.
 *
 * @example Share one listing cache between two clients of the same server
 * ```ts
 * import { memoryStore } from "./memory.ts";
 *
 * const store = memoryStore({ maxEntries: 2 });
 * await store.set(["a"], 1, 60_000);
 * await store.set(["b"], 2, 60_000);
 * await store.get(["a"]); // "a" is now the most recently used
 * await store.set(["c"], 3, 60_000); // so "b" goes
 * if (await store.get(["b"]) !== undefined || await store.get(["a"]) !== 1) throw new Error();
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): CacheStore {
  checkKeys(options, ["maxEntries", "now"], "memoryStore options");
  const max = options.maxEntries ?? 1_000;
  if (max !== Infinity && (!Number.isInteger(max) || max < 1)) {
    throw new TypeError("memoryStore: maxEntries must be a positive integer");
  }
  if (options.now !== undefined && typeof options.now !== "function") {
    throw new TypeError("memoryStore: now must be a function");
  }
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order: re-inserting on use keeps the oldest use first.
  const entries = new Map<string, ReturnType<typeof entryOf>>();
  // Parts are encoded (`encodeKey`): a part holding the separator is not two parts.
  const name = (key: CacheKey) => encodeKey(key);
  return {
    evicts: max !== Infinity,
    get(key) {
      checkKey(key);
      const id = name(key);
      const entry = entries.get(id);
      if (entry === undefined) return Promise.resolve(undefined);
      const value = valueOf(entry, now());
      entries.delete(id);
      if (value !== undefined) entries.set(id, entry);
      return Promise.resolve(value);
    },
    set(key, value, ttlMs) {
      checkSet(key, ttlMs);
      const id = name(key);
      entries.delete(id);
      entries.set(id, entryOf(value, ttlMs, now()));
      for (const oldest of entries.keys()) {
        if (entries.size <= max) break;
        entries.delete(oldest);
      }
      return Promise.resolve();
    },
    delete(key) {
      checkKey(key);
      entries.delete(name(key));
      return Promise.resolve();
    },
    deletePrefix(prefix) {
      checkKey(prefix, true);
      const whole = name(prefix);
      const start = prefix.length === 0 ? "" : whole + SEPARATOR;
      for (const id of [...entries.keys()]) {
        if (id === whole || id.startsWith(start)) entries.delete(id);
      }
      return Promise.resolve();
    },
  };
}

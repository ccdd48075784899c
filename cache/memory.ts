/**
 * The default store: {@linkcode memoryStore}, in this process only, bounded by entry count
 * and by bytes (the least recently used entries go first), with no timers: an expired entry
 * is dropped when it is read, or when it is the oldest and room is needed. An entry's size
 * is the length of its key's and its value's JSON text (UTF-16 units, about bytes); an entry
 * larger than the whole bound is not kept (the write resolves, the key reads as absent) and
 * pushes nothing out.
 *
 * @module
 */

import { jsonLength } from "../protocol/json_length.ts";
import {
  type CacheKey,
  type CacheStore,
  checkKey,
  checkSet,
  encodeKey,
  entryOf,
  memoryBounds,
  type MemoryStoreOptions,
  valueOf,
} from "./store.ts";

export { MEMORY_STORE_BYTES, type MemoryStoreOptions } from "./store.ts";

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
  const { max, maxBytes, now } = memoryBounds(options);
  // A Map iterates in insertion order: re-inserting on use keeps the oldest use first.
  const entries = new Map<string, { entry: ReturnType<typeof entryOf>; bytes: number }>();
  let bytes = 0;
  const drop = (id: string) => {
    const found = entries.get(id);
    if (found === undefined) return;
    bytes -= found.bytes;
    entries.delete(id);
  };
  // Parts are encoded (`encodeKey`): a part holding the separator is not two parts.
  const name = (key: CacheKey) => encodeKey(key);
  return {
    evicts: max !== Infinity || maxBytes !== Infinity,
    get(key) {
      checkKey(key);
      const id = name(key);
      const found = entries.get(id);
      if (found === undefined) return Promise.resolve(undefined);
      const value = valueOf(found.entry, now());
      entries.delete(id);
      if (value !== undefined) entries.set(id, found);
      else bytes -= found.bytes;
      return Promise.resolve(value);
    },
    set(key, value, ttlMs) {
      checkSet(key, ttlMs);
      const id = name(key);
      drop(id);
      const size = id.length + jsonLength(value);
      // Larger than the whole bound: not kept, and nothing else pushed out for it.
      if (size > maxBytes) return Promise.resolve();
      entries.set(id, { entry: entryOf(value, ttlMs, now()), bytes: size });
      bytes += size;
      for (const oldest of entries.keys()) {
        if (entries.size <= max && bytes <= maxBytes) break;
        drop(oldest);
      }
      return Promise.resolve();
    },
    delete(key) {
      checkKey(key);
      drop(name(key));
      return Promise.resolve();
    },
    deletePrefix(prefix) {
      checkKey(prefix, true);
      const whole = name(prefix);
      const start = prefix.length === 0 ? "" : whole + SEPARATOR;
      for (const id of [...entries.keys()]) {
        if (id === whole || id.startsWith(start)) drop(id);
      }
      return Promise.resolve();
    },
  };
}

/**
 * A store that is made on its first operation ({@linkcode lazyStore}): the client's own memory
 * store, a spill store and the entries' `memoryStore()` are such shells, so the code of the
 * store they stand for loads only when something is kept. It names the store contract as a
 * type only: a client that never keeps anything loads no store code.
 *
 * @module
 */

import type { CacheStore } from "./store.ts";

/**
 * A {@linkcode CacheStore} that becomes `make()`'s store on its first operation. A failed
 * `make()` fails that operation, and the next one tries again.
 *
 * @param make Loads and makes the store (called once it succeeds).
 * @param evicts What the store's `evicts` will be (read before it is made).
 * @returns The store.
 *
 * @example A memory store whose code loads with the first write
 * ```ts
 * import { lazyStore } from "./lazy_store.ts";
 *
 * const made: string[] = [];
 * const store = lazyStore(async () => {
 *   made.push("memory");
 *   return (await import("./memory.ts")).memoryStore();
 * }, true);
 * if (made.length !== 0) throw new Error("made too early");
 * await store.set(["a"], 1, 60_000);
 * await store.get(["a"]);
 * if (made.join() !== "memory") throw new Error("made once, by the first operation");
 * ```
 */
export function lazyStore(make: () => Promise<CacheStore>, evicts: boolean): CacheStore {
  let inner: Promise<CacheStore> | undefined;
  const get = () =>
    inner ??= make().catch((error) => {
      inner = undefined;
      throw error;
    });
  return {
    evicts,
    get: (key) => get().then((s) => s.get(key)),
    set: (key, value, ttl) => get().then((s) => s.set(key, value, ttl)),
    delete: (key) => get().then((s) => s.delete(key)),
    deletePrefix: (prefix) => get().then((s) => s.deletePrefix(prefix)),
  };
}

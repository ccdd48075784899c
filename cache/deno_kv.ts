/**
 * {@linkcode denoKvStore}: the {@linkcode CacheStore} over a Deno KV database the caller
 * opens and passes in. Locally that is one SQLite file that several processes on the
 * machine share; on Deno Deploy it is the FoundationDB-backed KV every isolate shares. This
 * file never opens a database itself, so nothing needs `--unstable-kv` unless a store is
 * made (and Deno asks for that flag only for `openKv`).
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import { type CacheStore, checkKey, checkSet, entryOf, valueOf } from "./store.ts";

/** The part of a Deno KV database the cache store uses (any database of this shape works). */
export interface CacheKvLike {
  /** Reads a value (`null` when absent). */
  get(key: string[]): Promise<{ value: unknown }>;
  /** Optional: reads up to 10 values at once, in order (Deno KV's `getMany`). */
  getMany?(keys: string[][]): Promise<{ value: unknown }[]>;
  /** Writes a value, deleted after `expireIn` ms at the latest. */
  set(key: string[], value: unknown, options?: { expireIn?: number }): Promise<unknown>;
  /** Deletes a value. */
  delete(key: string[]): Promise<void>;
  /** Lists the entries under a prefix. */
  list(selector: { prefix: string[] }): AsyncIterable<{ key: readonly unknown[] }>;
}

/** Options of {@linkcode denoKvStore}. */
export interface DenoKvStoreOptions {
  /** The key parts every entry is stored under (default `["conduit_mcp", "cache"]`). */
  prefix?: string[];
  /** The clock, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** The most keys Deno KV's `getMany` reads at once. */
const KV_BATCH = 10;

/**
 * A {@linkcode CacheStore} in a Deno KV database. Each entry is written with its expiry and
 * with `expireIn`, and the expiry is checked on read (KV deletes expired keys only
 * eventually). Two processes that open the same database file share the cache.
 *
 * @param kv The database: `await Deno.openKv("./cache.db")` (run with `--unstable-kv`).
 * @param options The key prefix and the clock.
 * @returns The store.
 * @throws {TypeError} When `kv` lacks a method or an option is bad.
 *
 * @example Over a Map standing in for the database
 * ```ts
 * import { type CacheKvLike, denoKvStore } from "./deno_kv.ts";
 *
 * const map = new Map<string, { key: string[]; value: unknown }>();
 * const kv: CacheKvLike = {
 *   get: (key) => Promise.resolve({ value: map.get(JSON.stringify(key))?.value ?? null }),
 *   set: (key, value) => Promise.resolve(map.set(JSON.stringify(key), { key, value })),
 *   delete: (key) => Promise.resolve(void map.delete(JSON.stringify(key))),
 *   list: async function* ({ prefix }) {
 *     for (const { key } of map.values()) {
 *       if (prefix.every((part, i) => key[i] === part)) yield { key };
 *     }
 *   },
 * };
 * const store = denoKvStore(kv, { prefix: ["my_app"] });
 * await store.set(["tools"], ["echo"], 60_000);
 * if ((await store.get(["tools"]) as string[])[0] !== "echo") throw new Error();
 * await store.deletePrefix([]);
 * if (await store.get(["tools"]) !== undefined) throw new Error();
 * ```
 */
export function denoKvStore(kv: CacheKvLike, options: DenoKvStoreOptions = {}): CacheStore {
  if (
    typeof kv !== "object" || kv === null ||
    !["get", "set", "delete", "list"].every((m) => typeof (kv as never)[m] === "function")
  ) {
    throw new TypeError("denoKvStore: kv must have get, set, delete and list (a Deno KV database)");
  }
  checkKeys(options, ["prefix", "now"], "denoKvStore options");
  const prefix = options.prefix ?? ["conduit_mcp", "cache"];
  checkKey(prefix, true);
  const now = options.now ?? Date.now;
  const full = (key: readonly string[]) => [...prefix, ...key];
  // An entry read: its value while fresh; an expired one is deleted.
  const read = async (key: readonly string[], value: unknown) => {
    const found = valueOf(value, now());
    if (found === undefined && value !== null && value !== undefined) await kv.delete(full(key));
    return found;
  };
  return {
    async get(key) {
      checkKey(key);
      const { value } = await kv.get(full(key));
      return await read(key, value);
    },
    async getMany(keys) {
      keys.forEach((key) => checkKey(key));
      const getMany = kv.getMany?.bind(kv);
      if (getMany === undefined) {
        return await Promise.all(
          keys.map(async (key) => read(key, (await kv.get(full(key))).value)),
        );
      }
      // Deno KV reads at most 10 keys at once: batches of 10, in parallel.
      const batches: Promise<unknown[]>[] = [];
      for (let i = 0; i < keys.length; i += KV_BATCH) {
        const batch = keys.slice(i, i + KV_BATCH);
        batches.push(
          getMany(batch.map(full)).then((entries) => {
            if (!Array.isArray(entries) || entries.length !== batch.length) {
              throw new TypeError("denoKvStore: getMany must return one entry per key");
            }
            return Promise.all(entries.map((entry, k) => read(batch[k], entry?.value)));
          }),
        );
      }
      return (await Promise.all(batches)).flat();
    },
    async set(key, value, ttlMs) {
      checkSet(key, ttlMs);
      const entry = entryOf(value, ttlMs, now());
      // KV takes plain data; a round trip through JSON keeps the value JSON, as on Redis.
      const stored = JSON.parse(JSON.stringify(entry));
      await kv.set(full(key), stored, ttlMs === Infinity ? undefined : { expireIn: ttlMs });
    },
    async delete(key) {
      checkKey(key);
      await kv.delete(full(key));
    },
    async deletePrefix(start) {
      checkKey(start, true);
      const selector = full(start);
      if (selector.length > 0) await kv.delete(selector); // the key equal to the prefix
      const keys: string[][] = [];
      for await (const entry of kv.list({ prefix: selector })) keys.push(entry.key as string[]);
      for (const key of keys) await kv.delete(key);
    },
  };
}

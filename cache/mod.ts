/**
 * `@conduit/mcp/cache`: the cache stores kept outside the process, for a client's `cache`
 * option (listings, results, stored hub catalogues, spilled results).
 *
 * - {@linkcode denoKvStore}: over a `Deno.Kv` (or anything shaped like it);
 * - {@linkcode redisStore}: over one function that sends a Redis command;
 * - {@linkcode memoryStore}: in memory (also exported by the root entry).
 *
 * Nothing here needs a runtime: the edge entry's clients take these stores too. The root
 * entry (`@conduit/mcp`) keeps `memoryStore`, `fileStore` and the store types.
 *
 * @example Over a Map standing in for Redis
 * ```ts
 * import { redisStore } from "./mod.ts";
 *
 * const data = new Map<string, string>();
 * const store = redisStore(async ([name, key, value]) => {
 *   if (name === "SET") return void data.set(key, value);
 *   if (name === "GET") return data.get(key) ?? null;
 *   return null;
 * });
 * await store.set(["greeting"], "hello", 60_000);
 * if (await store.get(["greeting"]) !== "hello") throw new Error("unexpected");
 * ```
 *
 * @module
 */

export { type CacheKey, type CacheStore } from "./store.ts";
export { memoryStore, type MemoryStoreOptions } from "./memory.ts";
export { type CacheKvLike, denoKvStore, type DenoKvStoreOptions } from "./deno_kv.ts";
export { type RedisCommand, redisStore, type RedisStoreOptions } from "./redis.ts";

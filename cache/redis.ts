/**
 * {@linkcode redisStore}: the {@linkcode CacheStore} over Redis, reached through one
 * function that sends one command, so any Redis client fits in one line and none is a
 * dependency:
 *
 * - Bun: `const redis = new RedisClient(url); redisStore((args) => redis.send(args[0], args.slice(1)))`
 * - ioredis: `redisStore((args) => r.call(...args))`
 * - node-redis: `redisStore((args) => r.sendCommand(args))`
 *
 * Entries are JSON strings written with `SET … PX` (Redis hides them once expired) and
 * carry their own expiry, checked on read as well. Processes on many hosts that use one
 * Redis share the cache.
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

/** Sends one Redis command (`["SET", key, value, "PX", "1000"]`) and returns its reply. */
export type RedisCommand = (args: string[]) => Promise<unknown>;

/** Options of {@linkcode redisStore}. */
export interface RedisStoreOptions {
  /**
   * The prefix of every key (default `"conduit_mcp:cache"`), as given; the key's parts follow
   * it, each with `%` and `:` escaped (`%25`, `%3A`), joined with `:` (empty parts kept).
   */
  prefix?: string;
  /** The clock, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

const decoder = new TextDecoder();

/** A bulk-string reply as text (clients return strings, or bytes when asked for buffers). */
function text(reply: unknown): string | undefined {
  if (typeof reply === "string") return reply;
  if (reply instanceof Uint8Array) return decoder.decode(reply);
  return undefined;
}

/**
 * Checks a command function.
 *
 * @param command What the caller passed.
 * @param who The factory, for the error.
 * @throws {TypeError} When it is not a function.
 */
export function checkCommand(command: unknown, who: string): asserts command is RedisCommand {
  if (typeof command !== "function") {
    throw new TypeError(`${who}: command must be a function sending one Redis command`);
  }
}

/**
 * A {@linkcode CacheStore} in Redis, through `command`.
 *
 * @param command Sends one command: `(args) => client.send(args[0], args.slice(1))` (Bun),
 *   `(args) => r.call(...args)` (ioredis), `(args) => r.sendCommand(args)` (node-redis).
 * @param options The key prefix and the clock.
 * @returns The store.
 * @throws {TypeError} When `command` is not a function or an option is bad.
 *
 * @example Over a Map standing in for Redis
 * ```ts
 * import { redisStore } from "./redis.ts";
 *
 * const data = new Map<string, string>();
 * const store = redisStore(async ([name, key, value]) => {
 *   if (name === "SET") return void data.set(key, value);
 *   if (name === "GET") return data.get(key) ?? null;
 *   if (name === "DEL") return data.delete(key) ? 1 : 0;
 *   if (name === "SCAN") return ["0", [...data.keys()]];
 *   return null;
 * });
 * await store.set(["tools"], ["echo"], 60_000);
 * if ((await store.get(["tools"]) as string[])[0] !== "echo") throw new Error();
 * if (!data.has("conduit_mcp:cache:tools")) throw new Error();
 * ```
 */
export function redisStore(command: RedisCommand, options: RedisStoreOptions = {}): CacheStore {
  checkCommand(command, "redisStore");
  checkKeys(options, ["prefix", "now"], "redisStore options");
  const prefix = options.prefix ?? "conduit_mcp:cache";
  if (typeof prefix !== "string") throw new TypeError("redisStore: prefix must be a string");
  const now = options.now ?? Date.now;
  // Parts are encoded (`encodeKey`): a part holding `:`, or an empty one, is never read as
  // another key's parts.
  const name = (key: CacheKey) =>
    key.length === 0 ? prefix : prefix === "" ? encodeKey(key) : `${prefix}:${encodeKey(key)}`;
  // A reply read as an entry: JSON text, its expiry checked.
  const read = (reply: unknown) => {
    const raw = text(reply);
    if (raw === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return undefined;
    }
    return valueOf(parsed, now());
  };
  return {
    async get(key) {
      checkKey(key);
      return read(await command(["GET", name(key)]));
    },
    async getMany(keys) {
      keys.forEach((key) => checkKey(key));
      if (keys.length === 0) return [];
      const replies = await command(["MGET", ...keys.map(name)]);
      // A reply that is not one value per key: read each key alone.
      if (!Array.isArray(replies) || replies.length !== keys.length) {
        return await Promise.all(keys.map(async (key) => read(await command(["GET", name(key)]))));
      }
      return replies.map(read);
    },
    async set(key, value, ttlMs) {
      checkSet(key, ttlMs);
      const json = JSON.stringify(entryOf(value, ttlMs, now()));
      const ttl = ttlMs === Infinity ? [] : ["PX", String(Math.max(1, Math.ceil(ttlMs)))];
      await command(["SET", name(key), json, ...ttl]);
    },
    async delete(key) {
      checkKey(key);
      await command(["DEL", name(key)]);
    },
    async deletePrefix(start) {
      checkKey(start, true);
      const whole = name(start);
      // Key parts are escaped for the MATCH pattern: `*?[]\` stand for themselves.
      const pattern = whole === "" ? "*" : `${whole.replace(/[*?[\]\\]/g, "\\$&")}:*`;
      await command(["DEL", whole]);
      let cursor = "0";
      do {
        const reply = await command(["SCAN", cursor, "MATCH", pattern, "COUNT", "200"]);
        if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) {
          throw new TypeError("redisStore: SCAN returned an unexpected reply");
        }
        cursor = text(reply[0]) ?? "0";
        const keys = (reply[1] as unknown[]).map(text).filter((k): k is string => k !== undefined);
        if (keys.length > 0) await command(["DEL", ...keys]);
      } while (cursor !== "0");
    },
  };
}

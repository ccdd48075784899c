// The store contract, on every store: JSON values, expiry checked on read (whatever the
// backend does), delete and delete by prefix; the memory store's bound; a real Deno KV
// (under Deno) and a real redis-server.
import { type CacheKvLike, denoKvStore } from "../../cache/deno_kv.ts";
import { memoryStore } from "../../cache/memory.ts";
import { redisStore } from "../../cache/redis.ts";
import { redisTokenStore } from "../../oauth/redis_store.ts";
import { type CacheStore, readMany } from "../../cache/store.ts";
import { assertEquals, assertThrows, test } from "../_harness.ts";
import { startRedis } from "./_redis.ts";

/**
 * A KV stand-in that, like Deno KV, keeps expired keys until read (no expireIn at all); with
 * `getMany` (at most 10 keys, as Deno KV's) when `many` is set.
 */
function mapKv(many = false): CacheKvLike {
  const map = new Map<string, { key: string[]; value: unknown }>();
  const getMany = (keys: string[][]) => {
    if (keys.length > 10) return Promise.reject(new TypeError("too many ranges (max 10)"));
    return Promise.resolve(
      keys.map((key) => ({ value: map.get(JSON.stringify(key))?.value ?? null })),
    );
  };
  return {
    ...(many ? { getMany } : {}),
    get: (key) => Promise.resolve({ value: map.get(JSON.stringify(key))?.value ?? null }),
    set: (key, value) => Promise.resolve(map.set(JSON.stringify(key), { key, value })),
    delete: (key) => Promise.resolve(void map.delete(JSON.stringify(key))),
    list: async function* ({ prefix }) {
      for (const { key } of [...map.values()]) {
        if (prefix.every((part, i) => key[i] === part)) yield { key };
      }
    },
  };
}

async function contract(make: (now: () => number) => CacheStore): Promise<void> {
  let now = 1_000_000;
  const store = make(() => now);
  await store.set(["a", "1"], { tools: ["x"] }, 1_000);
  await store.set(["a", "2"], [1, 2], 60_000);
  await store.set(["b"], "kept", Infinity);
  assertEquals(await store.get(["a", "1"]), { tools: ["x"] });
  now += 999;
  assertEquals(await store.get(["a", "1"]), { tools: ["x"] }, "fresh until its expiry");
  now += 1;
  assertEquals(await store.get(["a", "1"]), undefined, "expired on read, by the entry's clock");
  assertEquals(await store.get(["a", "2"]), [1, 2]);
  // Several keys at once, in order: absent and expired ones as none.
  const keys = [["a", "2"], ["none"], ["b"], ["a", "1"]];
  const values = [[1, 2], undefined, "kept", undefined];
  assertEquals(await readMany(store, keys), values);
  if (store.getMany !== undefined) assertEquals(await store.getMany(keys), values);
  const many = Array.from({ length: 23 }, (_, i) => [`m${i}`]);
  for (const key of many.slice(0, 20)) await store.set(key, key[0], 60_000);
  assertEquals(
    await readMany(store, many),
    many.map((key, i) => i < 20 ? key[0] : undefined),
    "more keys than one batch",
  );
  await store.deletePrefix(["a"]);
  assertEquals(await store.get(["a", "2"]), undefined);
  assertEquals(await store.get(["b"]), "kept", "another prefix stays");
  await store.delete(["b"]);
  assertEquals(await store.get(["b"]), undefined);
  await assertThrowsAsync(() => store.set(["c"], 1, 0));
}

async function assertThrowsAsync(fn: () => Promise<unknown>): Promise<void> {
  let threw = false;
  try {
    await fn();
  } catch (error) {
    threw = error instanceof TypeError;
  }
  assertEquals(threw, true, "a TypeError");
}

test("memoryStore: the contract, expiry checked on read", () =>
  contract((now) => memoryStore({ now })));

test("memoryStore: bounded, the least recently used entry goes first", async () => {
  const store = memoryStore({ maxEntries: 3 });
  for (const key of ["a", "b", "c"]) await store.set([key], key, 60_000);
  await store.get(["a"]);
  await store.set(["d"], "d", 60_000);
  assertEquals(await store.get(["b"]), undefined, "b was the least recently used");
  for (const key of ["a", "c", "d"]) assertEquals(await store.get([key]), key);
  for (let i = 0; i < 100; i++) await store.set([`k${i}`], i, 60_000);
  let kept = 0;
  for (let i = 0; i < 100; i++) if (await store.get([`k${i}`]) !== undefined) kept++;
  assertEquals(kept, 3);
  assertThrows(() => memoryStore({ maxEntries: 0 }), TypeError, "maxEntries");
});

test("denoKvStore: the contract over a KV that keeps expired keys", () =>
  contract((now) => denoKvStore(mapKv(), { now })));

test("denoKvStore: the contract over a KV with getMany (10 keys a call)", () =>
  contract((now) => denoKvStore(mapKv(true), { now })));

test("redisStore: the contract over a real redis-server, expiry checked on read", async () => {
  const redis = await startRedis();
  try {
    const client = await redis.client();
    await contract((now) => redisStore(client.command, { now, prefix: "t" }));
    // Redis itself hides an entry once its PX passed.
    const store = redisStore(client.command);
    await store.set(["short"], 1, 30);
    await new Promise((resolve) => setTimeout(resolve, 80));
    assertEquals(await client.command(["GET", "conduit_mcp:cache:short"]), null);
  } finally {
    await redis.close();
  }
});

test("redisStore: the README's one-liners for Bun, ioredis and node-redis fit the command", async () => {
  const redis = await startRedis();
  try {
    const { command } = await redis.client();
    // Stand-ins with each client's method shape, over the real server.
    const bun = { send: (name: string, args: string[]) => command([name, ...args]) };
    const ioredis = { call: (...args: string[]) => command(args) };
    const nodeRedis = { sendCommand: (args: string[]) => command(args) };
    const stores = [
      redisStore((args) => bun.send(args[0], args.slice(1)), { prefix: "bun" }),
      redisStore((args) => ioredis.call(...args), { prefix: "ioredis" }),
      redisStore((args) => nodeRedis.sendCommand(args), { prefix: "node" }),
    ];
    for (const store of stores) {
      await store.set(["tools"], { n: 1 }, 60_000);
      assertEquals(await store.get(["tools"]), { n: 1 });
    }
    assertEquals(await command(["DBSIZE"]), 3);
  } finally {
    await redis.close();
  }
});

test("redisTokenStore: two stores on one redis-server share tokens; pending ones expire", async () => {
  const redis = await startRedis();
  try {
    const [one, two] = [await redis.client(), await redis.client()];
    let now = 1_000;
    const a = redisTokenStore(one.command, { now: () => now });
    const b = redisTokenStore(two.command, { now: () => now });
    const key = {
      principal: "p",
      issuer: "https://as.example",
      resource: "https://mcp.example/mcp",
    };
    const tokens = {
      accessToken: "at",
      tokenType: "Bearer" as const,
      issuer: key.issuer,
      resource: key.resource,
    };
    await a.setTokens(key, tokens);
    assertEquals(await b.getTokens(key), tokens, "the other worker sees the login");
    await b.deleteTokens(key);
    assertEquals(await a.getTokens(key), undefined);
    const pending = {
      state: "s",
      codeVerifier: "v",
      issuer: key.issuer,
      metadata: {},
      redirectUri: "http://127.0.0.1/cb",
      resource: key.resource,
      clientId: "c",
      tokenEndpointAuthMethod: "none",
      principal: "p",
      createdAt: now,
    };
    await a.setPending("s", pending, 1_000);
    assertEquals((await b.getPending("s"))?.state, "s");
    now += 1_000;
    assertEquals(await b.getPending("s"), undefined, "expired on read");
  } finally {
    await redis.close();
  }
});

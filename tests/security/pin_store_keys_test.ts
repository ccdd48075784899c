// Store keys (issue 24, item 5): key parts are encoded without ambiguity in every store, so a
// server-chosen name can never spell another key, and an "always" grant given for a call
// made for nobody in particular is never another principal's grant.
import { type CacheKvLike, denoKvStore } from "../../cache/deno_kv.ts";
import { memoryStore } from "../../cache/memory.ts";
import { redisStore } from "../../cache/redis.ts";
import type { CacheKey, CacheStore } from "../../cache/store.ts";
import { createGovernance } from "../../governance/pipeline.ts";
import type { Tool } from "../../governance/types.ts";
import { assertEquals, runtime, test } from "../_harness.ts";
import { startRedis } from "../cache/_redis.ts";

// Pairs of keys that a naive join (`:` or NUL, empty parts dropped) makes equal.
const PAIRS: [CacheKey, CacheKey][] = [
  [["g", "s", "", "p:alice:delete_repo"], ["g", "s", "p:alice", "delete_repo"]],
  [["g", "a:b"], ["g", "a", "b"]],
  [["g", "a\u0000b"], ["g", "a", "b"]],
  [["g", "a%3Ab"], ["g", "a:b"]],
  [["g", "", "x"], ["g", "x"]],
  [["g", "x", ""], ["g", "x"]],
];

async function noCollision(store: CacheStore, where: string): Promise<void> {
  for (const [one, two] of PAIRS) {
    await store.deletePrefix([]);
    await store.set(one, "one", 60_000);
    assertEquals(
      await store.get(two),
      undefined,
      `${where}: ${JSON.stringify(one)} is not ${JSON.stringify(two)}`,
    );
    await store.set(two, "two", 60_000);
    assertEquals(
      await store.get(one),
      "one",
      `${where}: writing ${JSON.stringify(two)} kept the other`,
    );
  }
  // A prefix deletes only what is under its own parts.
  await store.deletePrefix([]);
  await store.set(["g", "a:b", "x"], 1, 60_000);
  await store.set(["g", "a", "b:x"], 2, 60_000);
  await store.deletePrefix(["g", "a"]);
  assertEquals(await store.get(["g", "a:b", "x"]), 1, `${where}: a prefix is not a longer part`);
  assertEquals(await store.get(["g", "a", "b:x"]), undefined, `${where}: the prefix's own keys go`);
}

async function kv(): Promise<{ kv: CacheKvLike; close(): Promise<void> }> {
  if (runtime === "deno") {
    const deno = (globalThis as unknown as {
      Deno: {
        makeTempDir(): Promise<string>;
        openKv(path: string): Promise<CacheKvLike & { close(): void }>;
        remove(path: string, options: { recursive: boolean }): Promise<void>;
      };
    }).Deno;
    const dir = await deno.makeTempDir();
    const db = await deno.openKv(`${dir}/kv.db`);
    return {
      kv: db,
      close: async () => {
        db.close();
        await deno.remove(dir, { recursive: true });
      },
    };
  }
  // Bun has no Deno KV: a stand-in with KV's tuple keys.
  const map = new Map<string, { key: string[]; value: unknown }>();
  return {
    kv: {
      get: (key) => Promise.resolve({ value: map.get(JSON.stringify(key))?.value ?? null }),
      set: (key, value) => Promise.resolve(map.set(JSON.stringify(key), { key, value })),
      delete: (key) => Promise.resolve(void map.delete(JSON.stringify(key))),
      list: async function* ({ prefix }) {
        for (const { key } of [...map.values()]) {
          if (prefix.every((part, i) => key[i] === part)) yield { key };
        }
      },
    },
    close: () => Promise.resolve(),
  };
}

test("item 5: key parts never collide in the memory store, Deno KV and Redis", async () => {
  await noCollision(memoryStore(), "memory");
  const db = await kv();
  try {
    await noCollision(denoKvStore(db.kv), "deno kv");
  } finally {
    await db.close();
  }
  const redis = await startRedis();
  try {
    const client = await redis.client();
    await noCollision(redisStore(client.command), "redis");
  } finally {
    await redis.close();
  }
});

test("item 5: an anonymous 'always' grant for a server-named tool 'p:alice:delete_repo' is not Alice's grant for delete_repo", async () => {
  const redis = await startRedis();
  try {
    const client = await redis.client();
    for (const store of [redisStore(client.command), memoryStore()]) {
      const asked: (string | undefined)[] = [];
      const governance = createGovernance({
        store,
        policy: {
          default: "ask",
          approver: (request) => {
            asked.push(request.principal);
            return request.principal === undefined ? "always" : "deny";
          },
        },
      });
      const tools: Tool[] = [
        { name: "p:alice:delete_repo", inputSchema: { type: "object" } },
        { name: "delete_repo", inputSchema: { type: "object" } },
      ];
      const lookup = (name: string) => tools.find((tool) => tool.name === name);
      const send = () => Promise.resolve({ content: [], isError: false });
      const scope = { server: "git" };
      await governance.callTool({
        name: "p:alice:delete_repo",
        arguments: {},
        scope,
        lookup,
        send,
      });
      const refused = await governance.callTool({
        name: "delete_repo",
        arguments: {},
        scope: { server: "git", principal: "alice" },
        lookup,
        send,
      }).then(() => "sent", (error) => error.reason);
      assertEquals(refused, "approver_denied", "Alice's call went to the approver");
      assertEquals(asked, [undefined, "alice"]);
    }
  } finally {
    await redis.close();
  }
});

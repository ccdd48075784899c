// Pin bounds (issue 24, item 4): pins expire (a long lifetime, refreshed on use), a server
// has at most 2 000 of them, and a complete listing drops the pins of tools it no longer has.
import { memoryStore } from "../../cache/memory.ts";
import type { CacheKey, CacheStore } from "../../cache/store.ts";
import type { MockTool } from "../../testing/types.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { governed, server } from "../governance/_helpers.ts";

const DAY = 86_400_000;

/** A store that never evicts and reports its keys and the lifetimes they were written with. */
function recording(): CacheStore & { keys: Set<string>; ttls: Map<string, number[]> } {
  const inner = memoryStore({ maxEntries: Infinity });
  const keys = new Set<string>();
  const ttls = new Map<string, number[]>();
  const id = (key: CacheKey) => JSON.stringify(key);
  return {
    keys,
    ttls,
    get: (key) => inner.get(key),
    async set(key, value, ttlMs) {
      keys.add(id(key));
      ttls.set(id(key), [...ttls.get(id(key)) ?? [], ttlMs]);
      await inner.set(key, value, ttlMs);
    },
    async delete(key) {
      keys.delete(id(key));
      await inner.delete(key);
    },
    async deletePrefix(prefix) {
      for (const key of [...keys]) {
        if (prefix.every((part, i) => JSON.parse(key)[i] === part)) keys.delete(key);
      }
      await inner.deletePrefix(prefix);
    },
  };
}

test("item 4: pins are written with a long lifetime, refreshed when used", async () => {
  const store = recording();
  const mock = server();
  await using client = governed(mock, { pin: store });
  await client.listAllTools();
  assertEquals(store.keys.size, 4);
  for (const ttls of store.ttls.values()) {
    assertEquals(ttls.length, 1);
    assert(ttls[0] !== Infinity && ttls[0] >= 30 * DAY, `a finite, long lifetime: ${ttls[0]}`);
  }
  const realNow = Date.now;
  try {
    Date.now = () => realNow() + 2 * DAY;
    await client.listAllTools({ refresh: true });
  } finally {
    Date.now = realNow;
  }
  for (const ttls of store.ttls.values()) assertEquals(ttls.length, 2, "refreshed on use");
});

test("item 4: a server that invents names gets at most 2 000 pins, and the rest are not shown", async () => {
  const store = recording();
  const many = (round: number): MockTool[] =>
    Array.from({ length: 2_100 }, (_, i) => ({ name: `t${round}_${i}` }));
  const mock = server({ tools: many(0) });
  await using client = governed(mock, { pin: store });
  const shown = await client.listAllTools();
  assertEquals(shown.length, 2_000, "tools past the cap are held");
  assertEquals(store.keys.size, 2_000);
  // New names in a complete listing: the old names' pins go, so the count stays bounded.
  mock.definition.tools = many(1);
  await client.listAllTools({ refresh: true });
  assert(store.keys.size <= 2_000, `at most 2 000 pins: ${store.keys.size}`);
});

test("item 4: a complete listing drops the pins of the tools it no longer has", async () => {
  const store = recording();
  const mock = server();
  await using client = governed(mock, { pin: store });
  await client.listAllTools();
  assertEquals(store.keys.size, 4);
  mock.definition.tools = mock.definition.tools!.filter((tool) => tool.name !== "rm");
  await client.listAllTools({ refresh: true });
  assertEquals(store.keys.size, 3);
  assert(![...store.keys].some((key) => key.includes('"rm"')), "rm's pin is gone");
});

// The hub's catalogue snapshot (hub/_snapshot.ts, hub/_tool_search.ts): a search over stored
// catalogues keeps one small value naming each server's catalogue, its tools' names and the
// stored index, under a digest of the hub's entries; a second hub of the same entries ranks
// from it and reads only the catalogues of the servers it returns tools of, spawning
// nothing, with the answer the whole search gives. A snapshot that is not well-formed, or
// that a catalogue no longer agrees with, is passed over (the whole search runs and keeps a
// new one); hubs of other entries, or of entries that are not plain stdio ones, keep none.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStore } from "../../cache/memory.ts";
import type { CacheStore } from "../../cache/store.ts";
import { hub } from "../../hub/hub.ts";
import { SEARCH_TOOLS } from "../../hub/lazy.ts";
import { checkSnapshot, snapshotName } from "../../hub/_snapshot.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { startsIn, weatherServer } from "./_stdio.ts";

const SNAPSHOT = "hub-catalogue-snapshot";

interface Found {
  name: string;
  description?: string;
  inputSchema: unknown;
}

function recording() {
  const inner = memoryStore();
  const read: (readonly string[])[] = [];
  const written: (readonly string[])[] = [];
  const store: CacheStore = {
    ...inner,
    get: (key) => (read.push(key), inner.get(key)),
    getMany: (keys) => (read.push(...keys), Promise.all(keys.map((key) => inner.get(key)))),
    set: (key, value, ttl) => (written.push(key), inner.set(key, value, ttl)),
  };
  return { store, inner, read, written };
}

async function withServers(fn: (dir: string) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), "conduit-snapshot-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function weatherHub(dir: string, store: CacheStore, warnings: string[] = []) {
  const entry = weatherServer(dir);
  return hub({
    servers: { w1: entry, w2: entry, w3: entry },
    lazy: true,
    cache: store,
    onWarning: (message) => warnings.push(message),
  });
}

async function search(servers: ReturnType<typeof hub>, query: string, limit = 10) {
  const found = await servers.callTool(SEARCH_TOOLS, { query, limit });
  return (found.structuredContent as { tools: Found[] }).tools;
}

const catalogueReads = (read: readonly (readonly string[])[]) =>
  read.filter((key) => key[0] === "hub-catalogue").map((key) => key[1]);

test("snapshot: a second hub ranks from it, reading only the matched server's catalogue", async () => {
  await withServers(async (dir) => {
    const { store, inner, read } = recording();
    let whole: Found[];
    {
      await using first = weatherHub(dir, store);
      await first.warm();
      whole = await search(first, "forecast", 1);
      assertEquals(whole.map((t) => t.name), ["w1__forecast"]);
    }
    assertEquals(startsIn(dir).length, 3, "warm() learnt each catalogue once");
    const entry = weatherServer(dir);
    const name = await snapshotName([["w1", entry], ["w2", entry], ["w3", entry]]);
    const kept = await inner.get([SNAPSHOT, name!]) as { servers: { names: string[] }[] };
    assertEquals(kept.servers.map((s) => s.names), [
      ["forecast", "alerts"],
      ["forecast", "alerts"],
      ["forecast", "alerts"],
    ]);
    read.length = 0;
    {
      await using second = weatherHub(dir, store);
      const found = await search(second, "forecast", 1);
      assertEquals(found, whole, "the same answer, definitions included");
      assertEquals(catalogueReads(read), ["w1"], "only the matched server's catalogue was read");
      assertEquals(startsIn(dir).length, 3, "nothing spawned");
      // The names it gave lead where the whole catalogue's do.
      assertEquals(second.resolveTool("w3__alerts"), { server: "w3", name: "alerts" });
      // A listing reads every catalogue, and names them alike.
      const listed = (await second.listCatalogue()).tools.map((t) => t.name);
      assertEquals(listed.length, 6);
      assert(listed.includes("w2__forecast"), listed.join());
    }
  });
});

test("snapshot: one a catalogue no longer agrees with, or a malformed one, is passed over and kept anew", async () => {
  await withServers(async (dir) => {
    const { store, inner, read } = recording();
    {
      await using first = weatherHub(dir, store);
      await first.warm();
      await search(first, "forecast", 1);
    }
    const entry = weatherServer(dir);
    const key = [SNAPSHOT, (await snapshotName([["w1", entry], ["w2", entry], ["w3", entry]]))!];
    const kept = await inner.get(key) as { servers: { key: string[]; takenAt: number }[] };
    // w1's catalogue taken again since (another process refreshed it): not the snapshot's.
    const w1 = await inner.get(kept.servers[0].key) as { takenAt: number };
    await inner.set(kept.servers[0].key, { ...w1, takenAt: w1.takenAt + 1 }, 60_000);
    read.length = 0;
    {
      await using second = weatherHub(dir, store);
      assertEquals((await search(second, "forecast", 1)).map((t) => t.name), ["w1__forecast"]);
      assertEquals(catalogueReads(read).sort(), ["w1", "w2", "w3"], "read through");
    }
    const again = await inner.get(key) as { servers: { takenAt: number }[] };
    assertEquals(again.servers[0].takenAt, w1.takenAt + 1, "kept anew");

    // Malformed: a name with a control character, a key naming another server.
    for (
      const spoil of [
        (s: Record<string, unknown>[]) => (s[1].names = ["for\u0007cast", "alerts"]),
        (s: Record<string, unknown>[]) => (s[2].key = ["hub-catalogue", "w1", "x", "y"]),
      ]
    ) {
      const value = structuredClone(await inner.get(key)) as { servers: Record<string, unknown>[] };
      spoil(value.servers);
      await inner.set(key, value, 60_000);
      const warnings: string[] = [];
      read.length = 0;
      await using third = weatherHub(dir, store, warnings);
      assertEquals((await search(third, "alerts", 1)).map((t) => t.name), ["w1__alerts"]);
      assert(warnings.some((w) => w.includes("snapshot is ignored")), warnings.join("\n"));
      assertEquals(catalogueReads(read).length, 3, "every catalogue read");
      assertEquals(
        typeof checkSnapshot(await inner.get(key), ["w1", "w2", "w3"], Date.now()),
        "object",
      );
    }
    assertEquals(startsIn(dir).length, 3, "nothing spawned");
  });
});

test("snapshot: checked like any stored value", () => {
  const servers = ["a", "b"];
  const good = {
    v: 1,
    index: "0".repeat(32),
    servers: [
      { key: ["hub-catalogue", "a", "x", "y"], takenAt: 1, ttlMs: 10, names: ["one", "two"] },
      { key: ["hub-catalogue", "b", "x", ""], takenAt: 1, ttlMs: 10, names: [] },
    ],
  };
  assertEquals(checkSnapshot(good, servers, 2) as unknown, good);
  const bad: [string, (value: typeof good) => unknown][] = [
    ["an unknown version", (v) => ({ ...v, v: 2 })],
    ["no valid index name", (v) => ({ ...v, index: "../x" })],
    ["another number of servers", (v) => ({ ...v, servers: v.servers.slice(1) })],
    ["server 0: no valid key", (v) => (v.servers[0].key = ["hub-catalogue", "b", "x", "y"], v)],
    ["server 0: no valid key", (v) => (v.servers[0].key = ["other", "a", "x", "y"], v)],
    ["server 1: no valid takenAt", (v) => ((v.servers[1].takenAt = 1e15), v)],
    ["server 1: no valid ttlMs", (v) => ((v.servers[1].ttlMs = -1), v)],
    ["server 0: no valid names", (v) => ((v.servers[0].names = ["one", "one"]), v)],
    ["server 0: no valid names", (v) => ((v.servers[0].names = ["x".repeat(300)]), v)],
    ["server 1: not an object", (v) => ((v.servers[1] = null as never), v)],
  ];
  for (const [why, spoil] of bad) {
    assertEquals(checkSnapshot(spoil(structuredClone(good)), servers, 2), why);
  }
  assertEquals(checkSnapshot("x", servers, 2), "not an object");
});

test("snapshot: named by the entries; none for entries that are not plain stdio ones", async () => {
  await withServers(async (dir) => {
    const entry = weatherServer(dir);
    const a = await snapshotName([["w1", entry], ["w2", entry]]);
    assert(/^[0-9a-f]{32}$/.test(a!), String(a));
    assertEquals(await snapshotName([["w1", entry], ["w2", entry]]), a);
    assert(await snapshotName([["w1", entry], ["w3", entry]]) !== a, "another server name");
    const env = { ...entry, env: { ...entry.env, TOKEN: "t" } };
    assert(await snapshotName([["w1", entry], ["w2", env]]) !== a, "another env");
    assertEquals(await snapshotName([["w1", "http://127.0.0.1:1/mcp"]]), undefined);
    assertEquals(await snapshotName([["w1", { ...entry, cwd: new URL("file:///") }]]), undefined);
    assertEquals(await snapshotName([["w1", { url: "http://127.0.0.1:1/mcp" }]]), undefined);
  });
  // A hub of in-process servers keeps no snapshot, and searches as before.
  const { store, written } = recording();
  const server = mockServer({ tools: [{ name: "send_email", description: "Send an email" }] });
  await using servers = hub({
    servers: { m: { transport: server.transport(), start: "eager" } },
    lazy: true,
    cache: store,
  });
  assertEquals((await search(servers, "email")).map((t) => t.name), ["m__send_email"]);
  assert(written.some((key) => key[0] === "hub-catalogue"), "its catalogue was kept");
  assert(!written.some((key) => key[0] === SNAPSHOT), "no snapshot kept");
});

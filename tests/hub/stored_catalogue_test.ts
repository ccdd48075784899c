// The stored catalogue: a hub keeps each server's last complete tools/list in its `cache`
// store, so a second process with the same store (one Deno KV file, one redis-server)
// searches without spawning anything, and a third from the snapshot the second kept, reading
// only the matched server's catalogue; a store's value is checked like a server's answer.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { memoryStore } from "../../cache/memory.ts";
import type { CacheStore } from "../../cache/store.ts";
import { hub } from "../../hub/hub.ts";
import { SEARCH_TOOLS } from "../../hub/lazy.ts";
import { checkStored, createCatalogueStore, MAX_STORED_BYTES } from "../../hub/_stored.ts";
import type { Transport } from "../../transports/transport.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { runJsonProcess } from "../_json_process.ts";
import { startRedis } from "../cache/_redis.ts";
import { startsIn, weatherServer } from "./_stdio.ts";

const SCRIPT = new URL("../fixtures/hub_catalogue_client.ts", import.meta.url);
const DENO = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));

interface Report {
  first?: string;
  ms: number;
  starts: number;
  states: string[];
  catalogueReads: number;
}

function run(
  command: { command: string; args: string[] },
  env: Record<string, string>,
): Promise<Report> {
  return runJsonProcess<Report>(command, env, "hub");
}

async function twoProcesses(command: { command: string; args: string[] }, store: string) {
  const dir = mkdtempSync(join(tmpdir(), "conduit-catalogue-"));
  try {
    const env = { HUB_STORE: store, HUB_STARTS_FILE: join(dir, "starts") };
    writeFileSync(env.HUB_STARTS_FILE, "");
    const first = await run(command, { ...env, HUB_MODE: "warm" });
    assertEquals(first.starts, 3, "warm() started each server once to learn its catalogue");
    const second = await run(command, { ...env, HUB_MODE: "search" });
    assertEquals(second.first, "w1__forecast");
    assertEquals(second.starts, 3, "the second process spawned nothing to search");
    assertEquals(second.states, ["stopped", "stopped", "stopped"]);
    assertEquals(second.catalogueReads, 3, "the second process read every catalogue");
    // It kept the hub's snapshot: a third process reads only the matched server's catalogue.
    const third = await run(command, { ...env, HUB_MODE: "search" });
    assertEquals([third.first, third.starts, third.catalogueReads], ["w1__forecast", 3, 1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("stored catalogue: two processes on one Deno KV file, the second spawning nothing", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-kv-"));
  try {
    const deno = { command: DENO, args: ["run", "-A", "--unstable-kv", fileURLToPath(SCRIPT)] };
    await twoProcesses(deno, `kv:${join(dir, "catalogue.db")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stored catalogue: two processes on one redis-server, the second spawning nothing", async () => {
  const redis = await startRedis();
  try {
    await twoProcesses(scriptCommand(SCRIPT), `redis:${redis.port}`);
  } finally {
    await redis.close();
  }
});

test("stored catalogue: a stored value that is not a catalogue is ignored, the server asked", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-catalogue-"));
  const inner = memoryStore();
  const keys: (readonly string[])[] = [];
  const store: CacheStore = {
    ...inner,
    set: (key, value, ttl) => (keys.push(key), inner.set(key, value, ttl)),
  };
  const warnings: string[] = [];
  const make = () =>
    hub({
      servers: { w: weatherServer(dir) },
      lazy: true,
      cache: store,
      onWarning: (message) => warnings.push(message),
    });
  const search = async (servers: ReturnType<typeof hub>) => {
    const found = await servers.callTool(SEARCH_TOOLS, { query: "forecast" });
    return (found.structuredContent as { tools: { name: string }[] }).tools[0]?.name;
  };
  try {
    {
      await using first = make();
      await first.warm();
    }
    assertEquals([startsIn(dir).length, keys.length], [1, 1]);
    {
      await using warm = make();
      assertEquals(await search(warm), "w__forecast");
      assertEquals(startsIn(dir).length, 1, "answered from the store");
    }
    // A store someone else can write to: a hostile value is not taken as a catalogue.
    const stored = await store.get(keys[0]) as Record<string, unknown>;
    await inner.set(
      keys[0],
      { ...stored, tools: [{ name: "w\u0000evil", inputSchema: {} }] },
      60_000,
    );
    {
      await using spoilt = make();
      assertEquals(await search(spoilt), "w__forecast");
      assertEquals(startsIn(dir).length, 2, "the server was asked again");
      assert(warnings.some((w) => w.includes("is ignored")), warnings.join("\n"));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stored catalogue: what a store holds is checked like a server's answer", () => {
  const now = Date.now();
  const good = {
    v: 1,
    takenAt: now,
    ttlMs: 60_000,
    tookMs: 5,
    tools: [{ name: "a", inputSchema: { type: "object" } }],
    fingerprints: ["0".repeat(64)],
  };
  assertEquals(typeof checkStored(good, now), "object");
  const print = "0".repeat(64);
  const table: [string, unknown][] = [
    ["not an object", "x"],
    ["an unknown version", { ...good, v: 2 }],
    ["no valid takenAt", { ...good, takenAt: now + 3_600_000 }],
    ["no valid ttlMs", { ...good, ttlMs: -1 }],
    ["no valid tookMs", { ...good, tookMs: "5" }],
    ["no valid tools list", { ...good, tools: {} }],
    ["fingerprints that do not match its tools", { ...good, fingerprints: [] }],
    ["tool 0: not an object", { ...good, tools: [7] }],
    ["tool 0: no valid name", { ...good, tools: [{ name: "", inputSchema: {} }] }],
    ["tool 0: no valid name", { ...good, tools: [{ name: "a\u0000b", inputSchema: {} }] }],
    ["tool 0: no valid name", { ...good, tools: [{ name: "a\u007fb", inputSchema: {} }] }],
    ["tool 0: no valid name", { ...good, tools: [{ name: "a\u0085b", inputSchema: {} }] }],
    ["tool 0: no valid name", { ...good, tools: [{ name: "n".repeat(300), inputSchema: {} }] }],
    ["tool 0: no input schema object", { ...good, tools: [{ name: "a", inputSchema: [] }] }],
    [
      "tool 0: no valid description",
      { ...good, tools: [{ name: "a", inputSchema: {}, description: 5 }] },
    ],
    ["tool 0: no valid fingerprint", { ...good, fingerprints: ["zz"] }],
    [
      "tool 1: a repeated name",
      { ...good, tools: [good.tools[0], good.tools[0]], fingerprints: [print, print] },
    ],
  ];
  for (const [why, value] of table) assertEquals(checkStored(value, now), why, why);
  // Its size is bounded without writing it as JSON: past 16 MiB (in a schema, any field) it
  // is refused, at any depth; a deep schema within the bound passes without overflowing.
  const schema = (inner: unknown) => ({ ...good, tools: [{ name: "a", inputSchema: inner }] });
  const wide = { type: "object", enum: Array.from({ length: 300 }, () => "x".repeat(60_000)) };
  assertEquals(checkStored(schema(wide), now), `more than ${MAX_STORED_BYTES} bytes`);
  let deep: Record<string, unknown> = { big: "y".repeat(MAX_STORED_BYTES) };
  for (let i = 0; i < 100_000; i++) deep = { items: deep };
  assertEquals(checkStored(schema(deep), now), `more than ${MAX_STORED_BYTES} bytes`);
  let nested: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 100_000; i++) nested = { items: nested };
  assertEquals(typeof checkStored(schema(nested), now), "object");
  const near = { type: "object", enum: Array.from({ length: 200 }, () => "x".repeat(60_000)) };
  assertEquals(typeof checkStored(schema(near), now), "object", "12 MB is within the bound");
  // Letters of any script, and spaces, are names; only control characters are refused.
  const named = { ...good, tools: [{ name: "météo ü 天气", inputSchema: {} }] };
  assertEquals(typeof checkStored(named, now), "object");
});

test("stored catalogue: a store that bounds its values spares the measuring; one that does not is measured", async () => {
  const print = "0".repeat(64);
  const big = { type: "object", enum: Array.from({ length: 300 }, () => "x".repeat(60_000)) };
  const catalogue = {
    v: 1,
    takenAt: Date.now(),
    ttlMs: 60_000,
    tookMs: 1,
    tools: [{ name: "a", inputSchema: big }],
    fingerprints: [print],
  };
  assertEquals(typeof checkStored(catalogue, Date.now(), true), "object", "not measured");
  const transport = {
    cacheTarget: () => Promise.resolve({ server: "s", identity: "i" }),
  } as unknown as Transport;
  const loaded = async (maxValueChars: number | undefined) => {
    const inner = memoryStore();
    await inner.set(["hub-catalogue", "w", "s", "i"], catalogue, 60_000);
    const warnings: string[] = [];
    const store = createCatalogueStore({
      store: { ...inner, maxValueChars } as CacheStore,
      ttlMs: 60_000,
      transports: new Map([["w", transport]]),
      warn: (message) => warnings.push(message),
    });
    return { found: await store.load("w"), warnings };
  };
  // Bounded within the limit (as the CLI's catalogue file is, by its length): taken as is.
  assertEquals((await loaded(1_000)).found?.tools.length, 1);
  // No bound, or one past the limit: measured, and refused.
  for (const bound of [undefined, MAX_STORED_BYTES + 1]) {
    const { found, warnings } = await loaded(bound);
    assertEquals(found, undefined, String(bound));
    assert(
      warnings.some((w) => w.includes(`more than ${MAX_STORED_BYTES} bytes`)),
      warnings.join(),
    );
  }
});

test("stored catalogue: past its ttl a catalogue is learnt again; within it, not", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-catalogue-"));
  const store = memoryStore();
  const make = () =>
    hub({ servers: { w: weatherServer(dir) }, lazy: true, cache: store, catalogueTtlMs: 1_500 });
  const search = async (servers: ReturnType<typeof hub>) => {
    const found = await servers.callTool(SEARCH_TOOLS, { query: "alerts" });
    return (found.structuredContent as { tools: { name: string }[] }).tools[0]?.name;
  };
  try {
    {
      await using first = make();
      assertEquals(await search(first), "w__alerts");
    }
    assertEquals(startsIn(dir).length, 1, "a server never seen is started once");
    {
      await using second = make();
      assertEquals(await search(second), "w__alerts");
      assertEquals(startsIn(dir).length, 1, "within its ttl");
    }
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    {
      await using third = make();
      assertEquals(await search(third), "w__alerts");
      assertEquals(startsIn(dir).length, 2, "past its ttl it was learnt again");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stored catalogue: a running server's list_changed refreshes its stored catalogue", async () => {
  const definition = { tools: [{ name: "first", description: "The first tool" }] };
  const server = mockServer(definition);
  const inner = memoryStore();
  const writes: unknown[] = [];
  const store: CacheStore = {
    ...inner,
    set: (key, value, ttl) => (writes.push(value), inner.set(key, value, ttl)),
  };
  await using servers = hub({
    servers: { m: { transport: server.transport(), start: "eager" } },
    lazy: true,
    cache: store,
  });
  assertEquals((await servers.listCatalogue()).tools.map((t) => t.name), ["m__first"]);
  assertEquals(writes.length, 1);
  definition.tools.push({ name: "second", description: "A tool added later" });
  server.changeList("tools");
  await new Promise((resolve) => setTimeout(resolve, 100)); // the notification arrives
  const names = (await servers.listCatalogue()).tools.map((t) => t.name);
  assertEquals(names, ["m__first", "m__second"]);
  assertEquals(writes.length, 2, "the changed listing was stored");
  const stored = writes[1] as { tools: { name: string }[] };
  assertEquals(stored.tools.map((t) => t.name), ["first", "second"]);
  assertEquals(servers.status().servers.m.catalogue?.tools, 2);
});

test("stored catalogue: the catalogues of the servers not running are read in one getMany", async () => {
  const inner = memoryStore();
  const gets: (readonly string[])[] = [];
  const many: (readonly (readonly string[])[])[] = [];
  const store: CacheStore = {
    ...inner,
    get: (key) => (gets.push(key), inner.get(key)),
    getMany: (keys) => (many.push(keys), Promise.all(keys.map((key) => inner.get(key)))),
  };
  const servers = () =>
    Object.fromEntries(["a", "b", "c"].map((name) => [name, {
      transport: mockServer({ tools: [{ name: `${name}_tool`, description: `The ${name} tool` }] })
        .transport(),
    }]));
  // In-process servers have a name in this process only: both hubs get the same transports.
  const given = servers();
  const warm = hub({ servers: given, lazy: true, cache: store });
  await warm.warm();
  await warm.close();
  gets.length = 0;
  many.length = 0;
  await using second = hub({ servers: given, lazy: true, cache: store });
  const found = await second.callTool(SEARCH_TOOLS, { query: "b tool" });
  assertEquals(
    (found.structuredContent as { tools: { name: string }[] }).tools[0].name,
    "b__b_tool",
  );
  const catalogueKeys = (keys: readonly (readonly string[])[]) =>
    keys.filter((key) => key[0] === "hub-catalogue").length;
  assertEquals(many.map(catalogueKeys), [3], "one read of the three catalogues");
  assertEquals(catalogueKeys(gets), 0, "none read alone");
  assertEquals(
    Object.values(second.status().servers).map((s) => s.state),
    ["stopped", "stopped", "stopped"],
  );
});

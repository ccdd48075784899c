// What is cached, for whom and until when: single-flight, ttl and scope, the no-identity
// rule, new credentials, list_changed refreshes, resources/updated, legacy freshness, an
// invalid cursor, stale-if-error, MRTR retries, and a failing store.
import { memoryStore } from "../../cache/memory.ts";
import type { CacheStore } from "../../cache/store.ts";
import { McpError } from "../../protocol/errors.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { createClient } from "../../client/client.ts";
import { inProcess } from "../../transports/in_process.ts";
import { FAST, fixtureClient, mcpError, requests, waitFor } from "../client/_helpers.ts";
import { cacheOver, fakeRequester, toolsPage } from "./_helpers.ts";

const PUBLIC = { ttlMs: 60_000, cacheScope: "public" };
const PRIVATE = { ttlMs: 60_000, cacheScope: "private" };

test("cache: 50 concurrent listAllTools callers make one request at the server", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  const lists = await Promise.all(Array.from({ length: 50 }, () => client.listAllTools()));
  assertEquals(requests(server, "tools/list").length, 1);
  assert(lists.every((tools) => tools.length === 7));
});

test("cache: a ttlMs of 0 is never kept; a ttlMs is kept until it passes", async () => {
  const { client, server } = fixtureClient({ ttlMs: 0 });
  await using _ = client;
  await client.listAllTools();
  await client.listAllTools();
  await client.readResource("test://resource1");
  await client.readResource("test://resource1");
  assertEquals(requests(server, "tools/list").length, 2);
  assertEquals(requests(server, "resources/read").length, 2);
  server.knobs.ttlMs = 60_000;
  await client.listAllTools();
  await client.listAllTools();
  await client.readResource("test://resource1");
  await client.readResource("test://resource1");
  assertEquals(requests(server, "tools/list").length, 3);
  assertEquals(requests(server, "resources/read").length, 3);
});

test("cache: public results are shared by identities; private ones only within one", async () => {
  const store = memoryStore();
  for (const [scope, shared] of [[PUBLIC, true], [PRIVATE, false]] as const) {
    const alice = fakeRequester(() => toolsPage(["a"], scope));
    const bob = fakeRequester(() => toolsPage(["a"], scope));
    const server = `s-${scope.cacheScope}`;
    await cacheOver(alice, { store, identity: "alice", server }).listAll("tools");
    await cacheOver(bob, { store, identity: "bob", server }).listAll("tools");
    assertEquals(bob.calls.length, shared ? 0 : 1, scope.cacheScope);
    const alice2 = fakeRequester(() => toolsPage(["a"], scope));
    await cacheOver(alice2, { store, identity: "alice", server }).listAll("tools");
    assertEquals(alice2.calls.length, 0, "the same identity shares its private entries");
  }
});

test("cache: without a known identity, private results are never served; public ones are", async () => {
  const store = memoryStore();
  const privately = fakeRequester(() => toolsPage(["a"], PRIVATE));
  const anonymous = cacheOver(privately, { store, identity: undefined });
  await anonymous.listAll("tools");
  await anonymous.listAll("tools");
  await anonymous.readResource("r://1").catch(() => {});
  assertEquals(privately.calls.filter((m) => m === "tools/list").length, 2);
  const other = fakeRequester(() => toolsPage(["a"], PRIVATE));
  await cacheOver(other, { store, identity: "me" }).listAll("tools");
  assertEquals(other.calls.length, 1, "nothing private was stored without an identity");
  const publicly = fakeRequester(() => toolsPage(["a"], PUBLIC));
  const cache = cacheOver(publicly, { store, identity: undefined, server: "p" });
  await cache.listAll("tools");
  await cache.listAll("tools");
  assertEquals(publicly.calls.length, 1);
});

test("cache: new credentials delete the old identity's private entries, not public ones", async () => {
  const store = memoryStore();
  let identity = "alice";
  const requester = fakeRequester((method) =>
    method === "tools/list" ? toolsPage(["a"], PRIVATE) : { prompts: [{ name: "p" }], ...PUBLIC }
  );
  const cache = cacheOver(requester, { store, identity: () => identity });
  await cache.listAll("tools");
  await cache.listAll("prompts");
  // Another process with alice's identity sees her private listing until it is deleted.
  const peer = fakeRequester(() => toolsPage(["a"], PRIVATE));
  await cacheOver(peer, { store, identity: "alice" }).listAll("tools");
  assertEquals(peer.calls.length, 0);
  const before = await cache.identity();
  identity = "bob";
  await cache.credentialsChanged(before);
  assertEquals(await cache.identity(), "bob");
  const later = fakeRequester(() => toolsPage(["a"], PRIVATE));
  await cacheOver(later, { store, identity: "alice" }).listAll("tools");
  assertEquals(later.calls.length, 1, "alice's private listing is gone");
  const prompts = fakeRequester(() => ({ prompts: [{ name: "p" }], ...PUBLIC }));
  await cacheOver(prompts, { store, identity: "carol" }).listAll("prompts");
  assertEquals(prompts.calls.length, 0, "the public listing stays");
});

test("cache: list_changed refreshes the listing in the background, once, into cachedTools()", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  assertEquals((await client.listAllTools()).length, 7);
  await waitFor(() => server.changeList("tools") === 1, "the listen for tool changes");
  // (the first changeList above already sent one notification)
  server.knobs.extraTools = 2;
  assertEquals(server.changeList("tools"), 1);
  assertEquals(server.changeList("tools"), 1);
  await waitFor(() => client.cachedTools().length === 9, "the refreshed listing");
  assertEquals(client.tool("tool_1").name, "tool_1");
  await client.ping();
  await new Promise((resolve) => setTimeout(resolve, 30));
  const refreshes = requests(server, "tools/list").length;
  assert(
    refreshes >= 2 && refreshes <= 4,
    `one refresh per burst, not one per caller: ${refreshes}`,
  );
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, refreshes, "the refresh filled the cache");
});

test("cache: resources/updated invalidates that resource's cached read", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.readResource("test://resource1");
  await client.readResource("test://resource2");
  await client.readResource("test://resource1");
  assertEquals(requests(server, "resources/read").length, 2);
  const updated = new Promise<void>((resolve) =>
    client.subscribeNotifications((n) => {
      if (n.method === "notifications/resources/updated") resolve();
    })
  );
  await client.subscribe("test://resource1");
  assertEquals(server.updateResource("test://resource1"), 1);
  await updated;
  await client.readResource("test://resource1");
  await client.readResource("test://resource2");
  assertEquals(requests(server, "resources/read").length, 3, "only resource1 was read again");
  await client.readResource("test://resource2", { cache: "refresh" });
  await client.readResource("test://resource2", { cache: "bypass" });
  assertEquals(requests(server, "resources/read").length, 5);
});

test("cache: a legacy listing with listChanged is fresh until list_changed; else legacyTtlMs", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.listAllTools();
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 1, "fresh until the change");
  server.changeList("tools");
  await waitFor(() => requests(server, "tools/list").length === 2, "the refresh after the change");
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 2);
  server.dropAll("crash"); // a reconnect ends the session's freshness
  await waitFor(() => server.connections === 2 && client.status().state === "ready", "reconnect");
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 3);

  const other = fixtureClient({ mode: "legacy-only", listChanged: false }, { legacyTtlMs: 60_000 });
  await using _other = other.client;
  await other.client.listAllTools();
  await other.client.listAllTools();
  assertEquals(requests(other.server, "tools/list").length, 1, "kept for legacyTtlMs");
});

test("cache: an invalid cursor drops every page of the list and lists again", async () => {
  let now = 0;
  let scheme = "old";
  const requester = fakeRequester((_method, params) => {
    const cursor = params?.cursor;
    if (cursor === undefined) return toolsPage(["a"], { nextCursor: scheme, ...PUBLIC });
    if (cursor !== scheme) {
      throw new McpError("Invalid cursor", {
        kind: "server",
        reason: "server_error",
        code: -32602,
      });
    }
    return toolsPage([`b-${scheme}`], { ttlMs: 10, cacheScope: "public" });
  });
  const cache = cacheOver(requester, { store: memoryStore({ now: () => now }) });
  assertEquals((await cache.listAll("tools")).map((t) => t.name), ["a", "b-old"]);
  now += 100; // the second page expired; the first still says "old"
  scheme = "new";
  assertEquals((await cache.listAll("tools")).map((t) => t.name), ["a", "b-new"]);
  assertEquals(requester.calls.length, 5, "p1, p2; p2 (refused), then p1 and p2 again");
  await cache.listAll("tools");
  assertEquals(requester.calls.length, 5, "the new pages are cached");
});

test("cache: staleIfError returns the last listing when the refresh fails with a transport error", async () => {
  let down = false;
  const requester = fakeRequester(() => {
    if (down) throw new McpError("unreachable", { kind: "transport", reason: "network" });
    return toolsPage(["a"], { ttlMs: 0 });
  });
  const cache = cacheOver(requester);
  await cache.listAll("tools");
  down = true;
  assertEquals((await mcpError(cache.listAll("tools"))).kind, "transport");
  const stale = await cache.listAll("tools", { staleIfError: true });
  assertEquals(stale.map((t) => t.name), ["a"]);
  assert(requester.warnings.some((w) => w.includes("last listing")), "and says so");
});

test("cache: a read answered after input_required (an MRTR retry) is never cached", async () => {
  const { client, server } = fixtureClient({}, {
    handler: { listRoots: () => [{ uri: "file:///r", name: "r" }] },
  });
  await using _ = client;
  await client.readResource("mrtr://roots");
  await client.readResource("mrtr://roots");
  assertEquals(requests(server, "resources/read").length, 4, "two rounds each time");
});

test("cache: a failing store degrades to no cache with one warning, never a failed call", async () => {
  const broken: CacheStore = {
    get: () => Promise.reject(new Error("connection refused")),
    set: () => Promise.reject(new Error("connection refused")),
    delete: () => Promise.reject(new Error("connection refused")),
    deletePrefix: () => Promise.reject(new Error("connection refused")),
  };
  const { client, server, warnings } = fixtureClient({}, { cache: broken });
  await using _ = client;
  assertEquals((await client.listAllTools()).length, 7);
  assertEquals((await client.listAllTools()).length, 7);
  await client.readResource("test://resource1");
  assertEquals(requests(server, "tools/list").length, 2);
  assertEquals(warnings.filter((w) => w.includes("cache store failed")).length, 1);
  assertEquals(client.cachedTools().length, 7);
});

test("cache: two clients sharing a store see each other's refreshes", async () => {
  const store = memoryStore();
  const { client: a, server } = fixtureClient({ listChanged: false }, { cache: store });
  await using _a = a;
  const b = createClient({ transport: inProcess(server), cache: store, reconnect: FAST });
  await using _b = b;
  assertEquals((await a.listAllTools()).length, 7);
  assertEquals((await b.listAllTools()).length, 7);
  assertEquals(requests(server, "tools/list").length, 1, "b used a's listing");
  server.knobs.extraTools = 1;
  assertEquals((await a.listAllTools({ refresh: true })).length, 8);
  assertEquals((await b.listAllTools()).length, 8, "b sees a's refresh");
  assertEquals(b.cachedTools().length, 8);
  assertEquals(requests(server, "tools/list").length, 2);
  // Refreshing at once, the two do not share a load: both fetch; the last write wins.
  await Promise.all([a.listAllTools({ refresh: true }), b.listAllTools({ refresh: true })]);
  assertEquals(requests(server, "tools/list").length, 4);
});

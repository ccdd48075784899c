// The client's cache loads on first use: before it loads it answers as an empty cache, and
// what the server announces while it loads is replayed, in order, before any waiting call
// goes on.
import { memoryStore } from "../../cache/memory.ts";
import type { CacheStore } from "../../cache/store.ts";
import { lazyClientCache } from "../../client/changes/_cache_lazy.ts";
import type { Requester } from "../../client/requests/requests.ts";
import { assertEquals, test } from "../_harness.ts";
import { cacheOver, fakeRequester, READS, toolsPage } from "../cache/_helpers.ts";

/** A lazily loaded client cache over `requester` and `store`, as a client builds it. */
function lazyOver(requester: Requester, store: CacheStore, ownStore: boolean) {
  return lazyClientCache({
    store,
    ownStore,
    legacyTtlMs: 0,
    requester,
    transport: {
      cacheTarget: () => Promise.resolve({ server: "server", identity: "me" }),
    },
    capabilities: () => ({ tools: { listChanged: true } }),
    waitTimeout: 60_000,
    reads: READS,
  });
}

const PUBLIC = { ttlMs: 60_000, cacheScope: "public" };

test("lazy cache: before it loads, an empty cache's answers and nothing sent", async () => {
  const requester = fakeRequester(() => toolsPage(["a"], PUBLIC));
  const cache = lazyOver(requester, memoryStore(), true);
  for (const view of [() => cache.cachedTools(), () => cache.tool("a")]) {
    try {
      view();
      throw new Error("expected not_cached");
    } catch (error) {
      const e = error as { kind?: string; reason?: string };
      assertEquals([e.kind, e.reason], ["not_found", "not_cached"]);
    }
  }
  cache.notification("notifications/tools/list_changed", {});
  cache.endSession();
  await cache.warm();
  await cache.credentialsChanged("someone");
  assertEquals(requester.calls, [], "nothing to warm, refresh or purge in a store of its own");
  assertEquals((await cache.listAll("tools")).map((t) => t.name), ["a"]);
  assertEquals(cache.cachedTools().map((t) => t.name), ["a"], "the listing is kept once loaded");
  assertEquals(requester.calls, ["tools/list"]);
});

test("lazy cache: a shared store's listing is warmed on ready", async () => {
  const store = memoryStore();
  await cacheOver(fakeRequester(() => toolsPage(["kept"], PUBLIC)), { store }).listAll("tools");
  const requester = fakeRequester(() => toolsPage(["new"], PUBLIC));
  const cache = lazyOver(requester, store, false);
  await cache.warm();
  assertEquals(cache.cachedTools().map((t) => t.name), ["kept"]);
  assertEquals(requester.calls, []);
});

test("lazy cache: a list_changed that arrives while the cache loads is not lost", async () => {
  // Another client of the same server kept a fresh listing in the shared store.
  const store = memoryStore();
  await cacheOver(fakeRequester(() => toolsPage(["old"], PUBLIC)), { store }).listAll("tools");
  const requester = fakeRequester(() => toolsPage(["new"], PUBLIC));
  const cache = lazyOver(requester, store, false);
  // The change starts the load; the listing asked right after waits for it.
  cache.notification("notifications/tools/list_changed", {});
  const listed = await cache.listAll("tools");
  assertEquals(listed.map((t) => t.name), ["new"], "the stored listing was dropped first");
  assertEquals(requester.calls, ["tools/list"]);
});

test("lazy cache: events that arrive while it loads are replayed in order", async () => {
  const store = memoryStore();
  await cacheOver(fakeRequester(() => toolsPage(["old"], PUBLIC)), { store }).listAll("tools");
  const requester = fakeRequester((method) =>
    method === "resources/read"
      ? { contents: [{ uri: "test://r", text: "r" }], ...PUBLIC }
      : toolsPage(["new"], PUBLIC)
  );
  const cache = lazyOver(requester, store, false);
  const read = cache.readResource("test://r"); // starts the load
  cache.notification("notifications/tools/list_changed", {}); // while it loads
  cache.notification("notifications/resources/updated", { uri: "test://r" });
  await read;
  assertEquals((await cache.listAll("tools")).map((t) => t.name), ["new"]);
  assertEquals(requester.calls, ["resources/read", "tools/list"]);
});

test("lazy cache: a call before the first listing loads it and checks its options", async () => {
  const cache = lazyOver(fakeRequester(() => toolsPage(["a"], PUBLIC)), memoryStore(), true);
  const error = await cache.listAll("tools", { refresh: "yes" } as never).then(
    () => undefined,
    (e) => e,
  );
  assertEquals(error instanceof TypeError, true, `a misuse still fails: ${error}`);
  const noUri = await cache.readResource("").then(() => undefined, (e) => e);
  assertEquals(String(noUri), "TypeError: uri must be a non-empty string");
});

// Issue 24, the cache identities: who a private result is kept for and served to (a custom
// or OAuth `fetch`, client credentials, answers that arrive after new credentials, the
// configuration in a server's key), and `setAuth` during an OAuth login.
import { memoryStore } from "../../cache/memory.ts";
import { createClientCache } from "../../client/changes/cache.ts";
import type { Transport } from "../../transports/transport.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { cacheOver, fakeRequester, toolsPage } from "../cache/_helpers.ts";

const PRIVATE = { ttlMs: 60_000, cacheScope: "private" };

/** A requester whose answers wait until `release()`; `sent` resolves at the first request. */
function heldRequester(answer: (method: string) => JsonObject) {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  let sent = () => {};
  const first = new Promise<void>((resolve) => sent = resolve);
  const requester = fakeRequester(async (method) => {
    sent();
    await held;
    return answer(method);
  });
  return { requester, release: () => release(), sent: first };
}

test("item 14: a readResource answer that arrives after new credentials is not kept for the new identity", async () => {
  const store = memoryStore();
  let identity = "alice";
  const { requester, release, sent } = heldRequester(() => ({
    contents: [{ uri: "test://r", text: "alice's secret" }],
    ...PRIVATE,
  }));
  const cache = cacheOver(requester, { store, identity: () => identity });
  const reading = cache.readResource("test://r");
  await sent;
  const before = await cache.identity();
  identity = "bob";
  await cache.credentialsChanged(before);
  release();
  await reading;
  const bob = fakeRequester(() => ({ contents: [{ uri: "test://r", text: "bob's" }], ...PRIVATE }));
  const read = await cacheOver(bob, { store, identity: "bob" }).readResource("test://r");
  assertEquals(bob.calls.length, 1, "bob's read goes to the server");
  assertEquals(read.contents[0], { uri: "test://r", text: "bob's" });
});

test("item 14: a listing that arrives after new credentials is not kept for the new identity", async () => {
  const store = memoryStore();
  let identity = "alice";
  const { requester, release, sent } = heldRequester(() => toolsPage(["alices_tool"], PRIVATE));
  // Asking who the new credentials are takes a while (a digest, a token store).
  const transport: Transport = {
    kind: "in_process",
    open: () => Promise.reject(new Error("not opened")),
    cacheTarget: async () => {
      const now = identity;
      if (now === "bob") await new Promise((resolve) => setTimeout(resolve, 30));
      return { server: "server", identity: now };
    },
  };
  const cache = createClientCache({
    store,
    legacyTtlMs: 0,
    requester,
    transport,
    capabilities: () => ({ tools: { listChanged: false } }),
    waitTimeout: 60_000,
  });
  const listing = cache.listAll("tools");
  await sent;
  const before = await cache.identity();
  identity = "bob";
  const changed = cache.credentialsChanged(before);
  release();
  await Promise.all([changed, listing]);
  const bob = fakeRequester(() => toolsPage(["bobs_tool"], PRIVATE));
  const tools = await cacheOver(bob, { store, identity: "bob" }).listAll("tools");
  assertEquals(bob.calls.length, 1, "bob's listing goes to the server");
  assert(tools.every((tool) => tool.name !== "alices_tool"));
});

import { assert, assertEquals, test } from "../_harness.ts";
import { memoryStore } from "../../cache/memory.ts";
import { cacheOver, fakeRequester } from "../cache/_helpers.ts";
import { PAGINATION_CAPS } from "../../client/requests/pagination.ts";
import { fixtureClient, mcpError, requests } from "./_helpers.ts";

test("listAll* follow nextCursor across pages", async () => {
  const { client, server } = fixtureClient({ pageSize: 2, extraTools: 3 });
  await using _ = client;
  const tools = await client.listAllTools();
  assertEquals(tools.length, 10);
  assertEquals(tools.at(-1)?.name, "tool_2");
  assertEquals(requests(server, "tools/list").length, 5);
  assertEquals((await client.listAllPrompts()).map((p) => p.name), ["greeting", "args"]);
  assertEquals((await client.listAllResources()).map((r) => r.uri), [
    "test://resource1",
    "test://resource2",
    "test://resource3",
  ]);
  assertEquals((await client.listAllResourceTemplates())[0].uriTemplate, "item://{id}");
});

test("a repeated cursor is a pagination_cycle", async () => {
  const { client, server } = fixtureClient({ pageSize: 3, cursorLoop: true });
  await using _ = client;
  const error = await mcpError(client.listAllTools());
  assertEquals(error.kind, "pagination_cycle");
  assertEquals(error.reason, "repeated_cursor");
  assertEquals(requests(server, "tools/list").length, 2);
  assertEquals(
    (await mcpError(Promise.resolve().then(() => client.cachedTools()))).reason,
    "not_cached",
  );
});

test("a cursor over 1 KiB is a pagination_cycle", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only", pageSize: 2, cursorPad: 1_025 });
  await using _ = client;
  const error = await mcpError(client.listAllTools());
  assertEquals(error.kind, "pagination_cycle");
  assertEquals(error.reason, "cursor_too_long");
  assertEquals(requests(server, "tools/list").length, 1);
  const fine = fixtureClient({ pageSize: 2, cursorPad: 1_024 });
  await using __ = fine.client;
  assertEquals((await fine.client.listAllTools()).length, 7);
});

test("more than 100 pages is a pagination_cycle", async () => {
  const { client, server } = fixtureClient({ pageSize: 1, extraTools: 100 });
  await using _ = client;
  const error = await mcpError(client.listAllTools());
  assertEquals(error.kind, "pagination_cycle");
  assertEquals(error.reason, "too_many_pages");
  assertEquals(requests(server, "tools/list").length, PAGINATION_CAPS.pages);
});

test("exactly 100 pages is fine", async () => {
  const { client } = fixtureClient({ pageSize: 1, extraTools: 93 });
  await using _ = client;
  assertEquals((await client.listAllTools()).length, 100);
});

test("more than 10 000 items is a pagination_cycle", async () => {
  const { client } = fixtureClient({ pageSize: 4_000, extraTools: 10_000 });
  await using _ = client;
  const error = await mcpError(client.listAllTools());
  assertEquals(error.kind, "pagination_cycle");
  assertEquals(error.reason, "too_many_items");
});

test("cachedTools() and tool(name) read the last listing", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const before = await mcpError(Promise.resolve().then(() => client.tool("echo")));
  assertEquals([before.kind, before.reason], ["not_found", "not_cached"]);
  await client.listAllTools();
  assertEquals(client.cachedTools().length, 7);
  assertEquals(client.tool("add").name, "add");
  const missing = await mcpError(Promise.resolve().then(() => client.tool("nope")));
  assertEquals(missing.kind, "not_found");
  const sent = server.received.length;
  client.cachedTools();
  assertEquals(server.received.length, sent, "no request");
});

test("a modern listing stays fresh for its ttlMs unless refresh or list_changed", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.listAllTools();
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 1, "fresh: served from the listing");
  await client.listAllTools({ refresh: true });
  assertEquals(requests(server, "tools/list").length, 2);
  await client.callTool("notify");
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 3, "list_changed made it stale");
});

test("a legacy listing (no ttlMs) without listChanged is fetched every time", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only", listChanged: false });
  await using _ = client;
  await client.listAllTools();
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 2);
});

test("each page of a listing keeps its own ttlMs, on the store's clock", async () => {
  let now = 1_000;
  const requester = fakeRequester((_method, params) =>
    params?.cursor === undefined
      ? {
        tools: [{ name: "a", inputSchema: {} }],
        nextCursor: "n",
        ttlMs: 500,
        cacheScope: "public",
      }
      : { tools: [{ name: "b", inputSchema: {} }], ttlMs: 100, cacheScope: "public" }
  );
  const cache = cacheOver(requester, { store: memoryStore({ now: () => now }) });
  assertEquals((await cache.listAll("tools")).map((t) => t.name), ["a", "b"]);
  now += 99;
  await cache.listAll("tools");
  assertEquals(requester.calls.length, 2, "both pages fresh");
  now += 1;
  await cache.listAll("tools");
  assertEquals(requester.calls.length, 3, "only the second page expired");
  now += 400;
  await cache.listAll("tools");
  assertEquals(requester.calls.length, 5, "both expired");
  assert(cache.tool("b"));
});

test("malformed list entries are left out with a warning", async () => {
  const requester = fakeRequester(() => ({
    tools: [{ name: "ok", inputSchema: {} }, { name: 5 }, "junk", { name: "x" }],
  }), "legacy");
  const tools = await cacheOver(requester).listAll("tools");
  assertEquals(tools.map((t) => t.name), ["ok"]);
  assertEquals(requester.warnings.length, 1);
});

// Issue 24, item 31: behaviours that were built but untested. A page of `listTools({ cursor })`
// always comes from the server and never touches the cached listing; the same notification
// listener subscribed twice hears each notification once; `setAuth` ends the legacy session
// (DELETE) and reopens the modern listen with the new credentials.
import { connectClient } from "../../client/client.ts";
import type { ServerNotification } from "../../client/types.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { fixtureClient, mcpError, requests, waitFor } from "../client/_helpers.ts";

const reconnect = { attempts: 2, initialDelay: 5, maxDelay: 20, jitter: 0 };

test("item 31: a listTools({ cursor }) page is asked of the server each time and never cached", async () => {
  const { client, server } = fixtureClient({ pageSize: 2, extraTools: 3 });
  await using _ = client;
  const first = await client.listTools();
  assert(first.nextCursor !== undefined, "the fixture pages");
  const again = await client.listTools({ cursor: first.nextCursor });
  const twice = await client.listTools({ cursor: first.nextCursor });
  assertEquals(twice, again);
  assertEquals(requests(server, "tools/list").length, 3, "every page call reached the server");
  // Pages are not a listing: cachedTools() has none yet.
  assertEquals(
    (await mcpError(Promise.resolve().then(() => client.cachedTools()))).reason,
    "not_cached",
  );
  const all = await client.listAllTools();
  const listed = requests(server, "tools/list").length;
  // A fresh cached listing does not answer a page either, and a page leaves the listing alone.
  server.knobs.extraTools = 0;
  const fresh = await client.listTools({ cursor: first.nextCursor });
  assertEquals(requests(server, "tools/list").length, listed + 1);
  assert(fresh.tools.length > 0, "the page came back");
  assertEquals(client.cachedTools(), all);
  assertEquals(await client.listAllTools(), all);
  assertEquals(requests(server, "tools/list").length, listed + 1, "the listing is still fresh");
});

test("item 31: the same listener subscribed twice hears each notification once; either unsubscribe ends it", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const seen: ServerNotification[] = [];
  const listener = (n: ServerNotification) => seen.push(n);
  const one = client.subscribeNotifications(listener);
  const two = client.subscribeNotifications(listener);
  await client.callTool("notify");
  assertEquals(seen.length, 1);
  two();
  await client.callTool("notify");
  assertEquals(seen.length, 1, "unsubscribed");
  one(); // the other handle: harmless
  const three = client.subscribeNotifications(listener);
  await client.callTool("notify");
  assertEquals(seen.length, 2, "subscribed again");
  three();
});

test("item 31: setAuth ends the legacy session with DELETE, then starts one with the new credentials", async () => {
  await using fixture = await startHttpFixture({
    core: { mode: "legacy-only" },
    http: { requireToken: "token-a" },
  });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { auth: { bearer: "token-a" } }),
    reconnect,
  });
  assertEquals(client.era(), "legacy");
  const [old] = fixture.sessions();
  fixture.knobs.requireToken = "token-b";
  const sentBefore = fixture.requests.length;
  await client.setAuth({ bearer: "token-b" });
  await waitFor(() => fixture.deleted.includes(old), "the DELETE of the old session");
  assertEquals((await client.callTool("echo", { message: "b" })).content[0].text, "b");
  const after = fixture.requests.slice(sentBefore);
  const deletes = after.filter((r) => r.method === "DELETE");
  assertEquals(deletes.map((r) => r.headers["mcp-session-id"]), [old]);
  const posts = after.filter((r) => r.method === "POST");
  assert(
    posts.some((r) => (r.body as { method?: string }).method === "initialize"),
    "a new session",
  );
  for (const post of posts) {
    assertEquals(post.headers["authorization"], "Bearer token-b");
    assert(post.headers["mcp-session-id"] !== old, "nothing more on the old session");
  }
  assert(fixture.sessions().length >= 1 && !fixture.sessions().includes(old), "a new session id");
});

test("item 31: setAuth reopens the modern listen with the new credentials", async () => {
  await using fixture = await startHttpFixture({ http: { requireToken: "token-a" } });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { auth: { bearer: "token-a" } }),
    reconnect,
  });
  assertEquals(client.era(), "modern");
  const listens = () =>
    fixture.requests.filter((r) =>
      (r.body as { method?: string })?.method === "subscriptions/listen"
    );
  const unsubscribe = client.subscribeNotifications(() => {});
  await waitFor(() => listens().length === 1, "the listen");
  assertEquals(listens()[0].headers["authorization"], "Bearer token-a");
  fixture.knobs.requireToken = "token-b";
  await client.setAuth({ bearer: "token-b" });
  await waitFor(() => listens().length === 2, "the listen again");
  assertEquals(listens()[1].headers["authorization"], "Bearer token-b");
  unsubscribe();
});

// Issue 24, the cache identities: who a private result is kept for and served to (a custom
// or OAuth `fetch`, client credentials, answers that arrive after new credentials, the
// configuration in a server's key), and `setAuth` during an OAuth login.
import { memoryStore } from "../../cache/memory.ts";
import { createClientCache } from "../../client/changes/cache.ts";
import { listAll, LISTS } from "../../client/requests/pagination.ts";
import type { Transport } from "../../transports/transport.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { redisStore } from "../../cache/redis.ts";
import { connectClient, createClient } from "../../client/client.ts";
import { stdio } from "../../transports/stdio.ts";
import { type FetchLike, streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertNotEquals, test } from "../_harness.ts";
import { withClientCredentials } from "../../oauth/middleware.ts";
import { startRedis } from "../cache/_redis.ts";
import { FAST } from "../client/_helpers.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import { cacheOver, fakeRequester, READS, toolsPage } from "../cache/_helpers.ts";

const PRIVATE = { ttlMs: 60_000, cacheScope: "private" as const };

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
    pages: { listAll, LISTS },
    reads: READS,
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

/** Counts the requests of `methods` the fixture's server received. */
function counter(fixture: { core: { methods(): string[] } }, ...methods: string[]) {
  return () => fixture.core.methods().filter((m) => methods.includes(m)).length;
}

/** A custom `fetch` that carries a user's credentials in a header of its own. */
function userFetch(user: string): FetchLike {
  return (input, init) => {
    const request = new Request(input, init);
    request.headers.set("x-user-token", `token-of-${user}`);
    return fetch(request);
  };
}

test("item 12: a custom fetch that carries credentials never serves Bob Alice's private readResource", async () => {
  await using fixture = await startHttpFixture({ core: PRIVATE });
  const store = memoryStore();
  const reads = counter(fixture, "resources/read");
  const connect = (user: string) =>
    connectClient({
      transport: streamableHttp(fixture.url, { fetch: userFetch(user) }),
      reconnect: FAST,
      cache: store,
    });
  await using alice = await connect("alice");
  await alice.readResource("test://resource1");
  await alice.readResource("test://resource1");
  assertEquals(reads(), 2, "no identity is known: alice's private read is not kept either");
  await using bob = await connect("bob");
  await bob.readResource("test://resource1");
  assertEquals(reads(), 3, "bob's read goes to the server");
  // Named, the identity is the caller's to give.
  await using named = await connectClient({
    transport: streamableHttp(fixture.url, { fetch: userFetch("carol"), credentialId: "carol" }),
    reconnect: FAST,
    cache: store,
  });
  await named.readResource("test://resource1");
  await named.readResource("test://resource1");
  assertEquals(reads(), 4);
});

test("item 13: two client-credentials tenants on one Redis never share private results", async () => {
  await using upstream = await startHttpFixture({ core: PRIVATE });
  await using as = await startOAuthFixture({
    clients: { "tenant-a": "secret-a", "tenant-b": "secret-b" },
  }, {
    upstream: upstream.url,
  });
  const redis = await startRedis();
  try {
    const { command } = await redis.client();
    const store = redisStore(command);
    const listed = counter(upstream, "tools/list");
    const connect = (clientId: string, clientSecret: string) =>
      connectClient({
        transport: streamableHttp(as.url, {
          auth: { clientCredentials: { clientId, clientSecret } },
        }),
        reconnect: FAST,
        cache: store,
      });
    {
      await using a = await connect("tenant-a", "secret-a");
      await a.listAllTools();
      assertEquals(listed(), 1);
    }
    {
      await using b = await connect("tenant-b", "secret-b");
      await b.listAllTools();
      assertEquals(listed(), 2, "tenant b's listing goes to the server");
    }
    {
      await using again = await connect("tenant-a", "secret-a");
      await again.listAllTools();
      assertEquals(listed(), 2, "tenant a, in another client, is served its own listing");
    }
  } finally {
    await redis.close();
  }
});

test("item 12: a fetch made by the OAuth middleware is named by its tokens, per tenant", async () => {
  await using upstream = await startHttpFixture({ core: PRIVATE });
  await using as = await startOAuthFixture({
    clients: { "tenant-a": "secret-a", "tenant-b": "secret-b" },
  }, {
    upstream: upstream.url,
  });
  const store = memoryStore();
  const listed = counter(upstream, "tools/list");
  const connect = (clientId: string, clientSecret: string) =>
    connectClient({
      transport: streamableHttp(as.url, {
        fetch: withClientCredentials({ clientId, clientSecret })((input, init) =>
          fetch(input, init)
        ),
      }),
      reconnect: FAST,
      cache: store,
    });
  {
    await using a = await connect("tenant-a", "secret-a");
    await a.listAllTools();
  }
  {
    await using b = await connect("tenant-b", "secret-b");
    await b.listAllTools();
    assertEquals(listed(), 2, "tenant b's listing goes to the server");
  }
  {
    await using again = await connect("tenant-a", "secret-a");
    await again.listAllTools();
    assertEquals(listed(), 2, "the middleware's tokens name tenant a again");
  }
});

test("item 15: static headers are part of the server's key: a public result is not another configuration's", async () => {
  await using fixture = await startHttpFixture({ core: { ttlMs: 60_000, cacheScope: "public" } });
  const store = memoryStore();
  const listed = counter(fixture, "tools/list");
  const connect = (team: string) =>
    connectClient({
      transport: streamableHttp(fixture.url, { headers: { "x-team": team } }),
      reconnect: FAST,
      cache: store,
    });
  await using docs = await connect("docs");
  await docs.listAllTools();
  await using ops = await connect("ops");
  await ops.listAllTools();
  assertEquals(listed(), 2, "another header, another server");
  const a = await streamableHttp(fixture.url, { headers: { "x-team": "docs" } }).cacheTarget!();
  assert(!JSON.stringify(a).includes("docs"), "the key holds digests only");
});

test("item 15: a stdio server's env and cwd are part of its key, and inheriting everything has no identity", async () => {
  const target = (options: Parameters<typeof stdio>[0]) => stdio(options).cacheTarget!();
  const a = await target({ command: "srv", env: { REGION: "eu" } });
  const b = await target({ command: "srv", env: { REGION: "us" } });
  assertNotEquals(a.server, b.server, "the env changes what the server returns");
  const here = await target({ command: "srv", cwd: "/srv/a" });
  const there = await target({ command: "srv", cwd: "/srv/b" });
  assertNotEquals(here.server, there.server);
  const all = await target({ command: "srv", inheritEnv: "all" });
  assertEquals(all.identity, undefined, "the whole environment is unseen credentials");
  assert(!JSON.stringify(a).includes("eu"));
});

test("item 28: setAuth during an interactive OAuth login abandons it and logs in with the new credentials", async () => {
  await using upstream = await startHttpFixture();
  await using as = await startOAuthFixture({}, { upstream: upstream.url });
  const redirectUri = "http://127.0.0.1:9/callback";
  const waiting: URL[] = [];
  const client = createClient({
    transport: streamableHttp(as.url, {
      auth: { oauth: { redirectUri, onAuthorizationUrl: (url) => void waiting.push(url) } },
    }),
    reconnect: FAST,
  });
  try {
    while (waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
    const followed: URL[] = [];
    await client.setAuth({
      oauth: {
        redirectUri,
        principal: "bob",
        onAuthorizationUrl: async (url) => {
          followed.push(url);
          const response = await fetch(url, { redirect: "manual" });
          await response.body?.cancel();
          return new URL(response.headers.get("location")!, url).href;
        },
      },
    });
    assertEquals(client.status().state, "ready");
    assertEquals(followed.length, 1, "a login started for the new credentials");
    const result = await client.callTool("echo", { message: "as bob" });
    assertEquals(result.content[0].text, "as bob");
  } finally {
    await client.close();
  }
});

test("item 32: without a known identity a legacy listing is never served again, even with listChanged", async () => {
  const requester = fakeRequester(() => toolsPage(["private_tool"]), "legacy");
  const cache = cacheOver(requester, {
    identity: undefined,
    listChanged: true,
    legacyTtlMs: 60_000,
  });
  await cache.listAll("tools");
  await cache.listAll("tools");
  assertEquals(requester.calls.length, 2, "whoever the auth function names now is asked for");
  const known = fakeRequester(() => toolsPage(["private_tool"]), "legacy");
  const named = cacheOver(known, { identity: "alice", listChanged: true });
  await named.listAll("tools");
  await named.listAll("tools");
  assertEquals(known.calls.length, 1, "a known identity keeps the session's listing");
});

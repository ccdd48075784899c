// subscribe/unsubscribe in both eras: legacy resources/subscribe, modern subscriptions/listen
// (acknowledgment, routing by subscriptionId, replacement, closing, reopening), over
// in-process, stdio and Streamable HTTP.
import { connectClient, createClient } from "../../client/client.ts";
import { SUBSCRIPTION_ID } from "../../client/changes/subscriptions.ts";
import type { McpClient, ServerNotification } from "../../client/types.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { stdio } from "../../transports/stdio.ts";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import type { FixtureKnobs } from "../fixtures/server.ts";
import { FAST, fixtureClient, mcpError, requests, waitFor, wrapTransport } from "./_helpers.ts";

const URI = "test://resource1";
const OTHER = "test://resource2";

/** The `notifications/resources/updated` a client's listeners receive. */
function updates(client: McpClient): { uris: string[]; all: ServerNotification[] } {
  const all: ServerNotification[] = [];
  const uris: string[] = [];
  client.subscribeNotifications((n) => {
    if (n.method !== "notifications/resources/updated") return;
    all.push(n);
    uris.push(String(n.params.uri));
  });
  return { uris, all };
}

/** The list changes a listen asks for while notification listeners are registered. */
const LISTS = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };

function listenFilter(message: JsonObject): JsonObject {
  return ((message.params as JsonObject).notifications ?? {}) as JsonObject;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

test("legacy subscribe: resources/subscribe, updates to listeners, unsubscribe", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const seen = updates(client);
  await client.subscribe(URI);
  assertEquals(requests(server, "resources/subscribe").map((m) => m.params), [{ uri: URI }]);
  assertEquals(server.updateResource(URI), 1);
  await waitFor(() => seen.uris.length === 1, "the update");
  assertEquals(seen.all[0], { method: "notifications/resources/updated", params: { uri: URI } });
  await client.unsubscribe(URI);
  assertEquals(requests(server, "resources/unsubscribe").map((m) => m.params), [{ uri: URI }]);
  assertEquals(server.updateResource(URI), 0);
});

test("legacy subscribe: a server without resources.subscribe is subscriptions_not_supported", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only", subscribe: false });
  await using _ = client;
  const error = await mcpError(client.subscribe(URI));
  assertEquals([error.kind, error.reason], ["protocol", "subscriptions_not_supported"]);
  assertEquals(requests(server, "resources/subscribe").length, 0, "nothing was sent");
});

test("legacy subscribe: waits for the connection, and is sent again after a reconnect", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const seen = updates(client);
  await client.subscribe(URI); // made before ready: waits for the handshake
  server.dropAll("crash");
  await waitFor(() => server.connections === 2 && client.status().state === "ready", "reconnect");
  await waitFor(() => requests(server, "resources/subscribe").length === 2, "the resubscribe");
  server.updateResource(URI);
  await waitFor(() => seen.uris.length === 1, "the update on the new connection");
});

test("modern subscribe: a listen with the URI, acknowledged; updates routed by subscriptionId", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  const seen = updates(client);
  const all: string[] = [];
  client.subscribeNotifications((n) => all.push(n.method));
  await client.subscribe(URI);
  // The listeners follow list changes too: the listen in force asks for those and the URI
  // (a listen for the lists alone may have come first, when the handshake ended sooner).
  const listens = requests(server, "subscriptions/listen");
  const last = listens[listens.length - 1];
  assertEquals(listenFilter(last), { ...LISTS, resourceSubscriptions: [URI] });
  assertEquals(listens.slice(0, -1).map(listenFilter), listens.length === 2 ? [LISTS] : []);
  assertEquals(server.updateResource(URI), 1);
  await waitFor(() => seen.uris.length === 1, "the update");
  const meta = seen.all[0].params._meta as JsonObject;
  assertEquals(meta[SUBSCRIPTION_ID], last.id);
  assert(!all.includes("notifications/subscriptions/acknowledged"), "acks stay inside");
});

test("modern subscribe: a second URI replaces the listen; updates arrive once", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  const seen = updates(client);
  await client.subscribe(URI);
  await client.subscribe(OTHER);
  const listens = requests(server, "subscriptions/listen");
  const last = listens[listens.length - 1];
  assertEquals(listenFilter(last), { ...LISTS, resourceSubscriptions: [URI, OTHER] });
  assertEquals(listenFilter(listens[listens.length - 2]), {
    ...LISTS,
    resourceSubscriptions: [URI],
  });
  const replaced = listens.slice(0, -1).map((listen) => listen.id);
  const cancelled = () =>
    server.received.flatMap((m) =>
      "method" in m && m.method === "notifications/cancelled"
        ? [(m as JsonRpcMessage & { params: JsonObject }).params.requestId]
        : []
    );
  await waitFor(() => cancelled().length === replaced.length, "the old listens to be cancelled");
  assertEquals(cancelled(), replaced);
  assertEquals(server.updateResource(URI), 1, "only the new listen holds it");
  server.updateResource(OTHER);
  await waitFor(() => seen.uris.length === 2, "both updates");
  await settle();
  assertEquals(seen.uris, [URI, OTHER]);
  await client.subscribe(URI);
  assertEquals(
    requests(server, "subscriptions/listen").length,
    listens.length,
    "already subscribed",
  );
});

test("modern subscribe: messages of a replaced listen the server keeps are dropped", async () => {
  const { client, server } = fixtureClient({ ignoreCancel: true });
  await using _ = client;
  const seen = updates(client);
  await client.subscribe(URI);
  await client.subscribe(OTHER);
  assertEquals(server.updateResource(URI), 2, "the server still sends on both listens");
  await waitFor(() => seen.uris.length >= 1, "the update");
  await settle();
  assertEquals(seen.uris, [URI], "delivered once, from the listen in force");
  const newest = requests(server, "subscriptions/listen").at(-1)!;
  assertEquals((seen.all[0].params._meta as JsonObject)[SUBSCRIPTION_ID], newest.id);
});

test("modern subscribe: an acknowledgment without the URI is subscription_not_acknowledged", async () => {
  const { client } = fixtureClient({ refuseSubscriptions: true });
  await using _ = client;
  const error = await mcpError(client.subscribe(URI));
  assertEquals([error.kind, error.reason], ["protocol", "subscription_not_acknowledged"]);
});

test("modern subscribe: no resources.subscribe is subscriptions_not_supported", async () => {
  const { client, server } = fixtureClient({ subscribe: false });
  await using _ = client;
  const error = await mcpError(client.subscribe(URI));
  assertEquals([error.kind, error.reason], ["protocol", "subscriptions_not_supported"]);
  assertEquals(requests(server, "subscriptions/listen").length, 0);
});

test("modern subscribe: no acknowledgment in time fails with kind timeout", async () => {
  const { client, server } = fixtureClient({ stall: "subscriptions/listen" });
  await using _ = client;
  const error = await mcpError(client.subscribe(URI, { timeout: 50 }));
  assertEquals(error.kind, "timeout");
  await waitFor(
    () => server.received.some((m) => "method" in m && m.method === "notifications/cancelled"),
    "the unacknowledged listen to be closed",
  );
});

test("modern unsubscribe: the last URI closes the listen", async () => {
  // No list changes to follow (the server declares none): the URIs are all the listen holds.
  const { client, server } = fixtureClient({ listChanged: false });
  await using _ = client;
  const seen = updates(client);
  await client.subscribe(URI);
  await client.unsubscribe(URI);
  await waitFor(() => server.updateResource(URI) === 0, "the server to drop the listen");
  await settle();
  assertEquals(seen.uris, []);
  await client.unsubscribe(OTHER); // not subscribed: nothing to do
  assertEquals(requests(server, "subscriptions/listen").length, 1);
});

test("modern subscribe: a listen the server ends, or a reconnect, is opened again", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  const seen = updates(client);
  await client.subscribe(URI);
  server.endListens();
  await waitFor(() => requests(server, "subscriptions/listen").length === 2, "a new listen");
  await waitFor(() => server.updateResource(URI) === 1, "the new listen acknowledged");
  await waitFor(() => seen.uris.length === 1, "the update");
  server.dropAll("crash");
  await waitFor(
    () => requests(server, "subscriptions/listen").length === 3,
    "a listen after reconnect",
  );
  assertEquals(server.connections, 2);
  await waitFor(() => server.updateResource(URI) === 1, "the listen on the new connection");
  await waitFor(() => seen.uris.length === 2, "the update after reconnect");
});

test("subscriptions come back when reconnect() revives a closed client", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  const seen = updates(client);
  await client.subscribe(URI);
  await client.close();
  assertEquals(server.updateResource(URI), 0, "closing ended the listen");
  await client.reconnect();
  await waitFor(() => server.updateResource(URI) === 1, "the listen after reconnect()");
  await waitFor(() => seen.uris.length >= 1, "the update");
});

test("subscribe on a closed client fails with kind closed", async () => {
  const { client } = fixtureClient();
  await client.ready();
  await client.close();
  assertEquals((await mcpError(client.subscribe(URI))).kind, "closed");
});

const fixtureScript = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));

test(
  "stdio subscribe (modern): the listen closes with notifications/cancelled and comes back after a restart",
  async () => {
    const knobs: FixtureKnobs = { announceUpdates: true, exitMidRequest: "add" };
    const sent: JsonRpcMessage[] = [];
    const transport = wrapTransport(
      stdio({ ...fixtureScript, env: { FIXTURE_KNOBS: JSON.stringify(knobs) } }),
      { onSend: (message) => sent.push(message) },
    );
    await using client = createClient({ transport, reconnect: FAST });
    const seen = updates(client);
    await client.subscribe(URI);
    await waitFor(() => seen.uris.length === 1, "the announced update", 5_000);
    assertEquals(client.era(), "modern");
    const listens = () =>
      sent.filter((m) => "method" in m && m.method === "subscriptions/listen" && "id" in m);
    await mcpError(client.callTool("add", { a: 1, b: 2 })); // the server exits
    await waitFor(() => listens().length === 2, "the listen sent to the new process", 5_000);
    await waitFor(() => seen.uris.length === 2, "the update from the new process", 5_000);
    const second = listens()[1] as JsonRpcMessage & { id: number };
    await client.unsubscribe(URI);
    const cancel = sent.find((m) => "method" in m && m.method === "notifications/cancelled");
    assertEquals((cancel as { params: JsonObject }).params.requestId, second.id);
  },
  { timeout: 15_000 },
);

test("http subscribe (modern): the listen is an event stream, closed by aborting it", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect: FAST,
  });
  const seen = updates(client);
  await client.subscribe(URI);
  assertEquals(fixture.core.updateResource(URI), 1);
  await waitFor(() => seen.uris.length === 1, "the update over the stream");
  const listen = fixture.requests.find((r) => r.headers["mcp-method"] === "subscriptions/listen");
  assert(listen !== undefined);
  const cancelledBefore = fixture.cancelledStreams();
  await client.unsubscribe(URI);
  await waitFor(() => fixture.cancelledStreams() > cancelledBefore, "the stream to be closed");
  await waitFor(() => fixture.core.updateResource(URI) === 0, "the server to drop the listen");
  const cancels = fixture.requests.filter((r) =>
    (r.body as { method?: string } | undefined)?.method === "notifications/cancelled"
  );
  assertEquals(cancels.length, 0, "no notifications/cancelled over HTTP");
});

test("http subscribe (legacy): updates on the GET stream, subscribed again after a new session", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect: FAST,
  });
  const seen = updates(client);
  await client.subscribe(URI);
  await waitFor(() => fixture.requests.some((r) => r.method === "GET"), "the GET stream");
  fixture.core.updateResource(URI);
  await waitFor(() => seen.uris.length === 1, "the update");
  fixture.expireSessions();
  await client.ping(); // renews the session
  await waitFor(
    () =>
      fixture.requests.filter((r) =>
        (r.body as { method?: string } | undefined)?.method === "resources/subscribe"
      ).length === 2,
    "the subscription sent again on the new session",
  );
  await waitFor(() => fixture.core.updateResource(URI) === 1, "the new session subscribed");
  await waitFor(() => seen.uris.length === 2, "the update on the new session");
});

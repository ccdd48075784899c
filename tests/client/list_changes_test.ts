// List changes: modern servers send notifications/<list>/list_changed only on a
// subscriptions/listen that asked for them, so a cached listing and notification listeners
// make the client ask (for the lists the server declares); legacy servers send them unasked.
import { connectClient } from "../../client/client.ts";
import type { McpClient, ServerNotification } from "../../client/types.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assertEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { SUBSCRIPTION_ID } from "../fixtures/_handlers.ts";
import { FAST, fixtureClient, requests, waitFor } from "./_helpers.ts";

function filters(messages: JsonObject[]): JsonObject[] {
  return messages.map((m) => (m.params as JsonObject).notifications as JsonObject);
}

function heard(client: McpClient): ServerNotification[] {
  const seen: ServerNotification[] = [];
  client.subscribeNotifications((n) => seen.push(n));
  return seen;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

test("modern: a cached tool listing follows tools/list_changed; a change makes it stale", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.listAllTools();
  await waitFor(() => requests(server, "subscriptions/listen").length === 1, "the listen");
  assertEquals(filters(requests(server, "subscriptions/listen")), [{ toolsListChanged: true }]);
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 1, "fresh: served from the listing");
  assertEquals(server.changeList("tools"), 1, "the listen asked for tool changes");
  assertEquals(server.changeList("prompts"), 0, "and for nothing else");
  await client.ping(); // in order behind the notification on the one channel
  await client.listAllTools();
  assertEquals(requests(server, "tools/list").length, 2, "the change made the listing stale");
  // A second list joins the same listen (replacing it), which keeps asking for the first.
  await client.listAllPrompts();
  await waitFor(() => requests(server, "subscriptions/listen").length === 2, "the new listen");
  assertEquals(filters(requests(server, "subscriptions/listen"))[1], {
    toolsListChanged: true,
    promptsListChanged: true,
  });
  await waitFor(() => server.changeList("tools") === 1, "only the new listen to hold tools");
});

test("modern: notification listeners hear every list change the server declares", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  const seen = heard(client);
  await client.ready();
  await waitFor(() => requests(server, "subscriptions/listen").length === 1, "the listen");
  const [listen] = requests(server, "subscriptions/listen");
  assertEquals(filters([listen]), [{
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: true,
  }]);
  assertEquals(server.changeList("resources"), 1);
  await waitFor(() => seen.length === 1, "the notification");
  assertEquals(seen[0].method, "notifications/resources/list_changed");
  assertEquals((seen[0].params._meta as JsonObject)[SUBSCRIPTION_ID], listen.id);
});

test("modern: a server that declares no listChanged gets no listen for lists", async () => {
  const { client, server } = fixtureClient({ listChanged: false });
  await using _ = client;
  heard(client);
  await client.listAllTools();
  await client.ping();
  await settle();
  assertEquals(requests(server, "subscriptions/listen").length, 0);
});

test("modern: the listen for list changes is opened again after a reconnect", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.listAllTools();
  await waitFor(() => server.changeList("tools") === 1, "the first listen");
  server.dropAll("crash");
  await waitFor(() => server.connections === 2 && client.status().state === "ready", "reconnect");
  await waitFor(() => requests(server, "subscriptions/listen").length === 2, "a new listen");
  await waitFor(() => server.changeList("tools") === 1, "the listen on the new connection");
});

test("legacy: no listen; list changes arrive unasked", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const seen = heard(client);
  await client.listAllTools();
  assertEquals(server.changeList("tools"), 1);
  await waitFor(() => seen.length === 1, "the notification");
  assertEquals(seen[0], { method: "notifications/tools/list_changed", params: {} });
  assertEquals(requests(server, "subscriptions/listen").length, 0);
});

test("http (modern): list changes arrive on the listen's event stream", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect: FAST,
  });
  const seen = heard(client);
  await waitFor(
    () => fixture.requests.some((r) => r.headers["mcp-method"] === "subscriptions/listen"),
    "the listen",
  );
  await waitFor(() => fixture.core.changeList("tools") === 1, "the acknowledged listen");
  await waitFor(() => seen.length === 1, "the notification over the stream");
  assertEquals(seen[0].method, "notifications/tools/list_changed");
});

// subscribe/unsubscribe of one URI, made concurrently, reach the server in call
// order, and the client's set of URIs ends as the server's does.
import type { McpClient } from "../../client/types.ts";
import { assertEquals, test } from "../_harness.ts";
import { fixtureClient, waitFor } from "../client/_helpers.ts";
import type { FixtureServer } from "../fixtures/server.ts";

const URI = "test://resource1";

/** The subscribe/unsubscribe requests the server received for `URI`, in order. */
function order(server: FixtureServer): string[] {
  return server.received.flatMap((m) =>
    "method" in m && m.method.startsWith("resources/") && "id" in m &&
      (m.params as { uri?: string } | undefined)?.uri === URI
      ? [m.method.slice("resources/".length)]
      : []
  );
}

/** What the client believes: after a crash, it subscribes again to the URIs it holds. */
async function resubscribed(client: McpClient, server: FixtureServer): Promise<boolean> {
  const before = order(server).length;
  server.dropAll("crash");
  await waitFor(() => server.connections === 2 && client.status().state === "ready", "reconnect");
  await client.ping(); // anything re-sent on the new connection was sent before this
  return order(server).length > before;
}

test("legacy: concurrent subscribe, unsubscribe, subscribe of one URI run in call order", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.ready();
  await Promise.all([client.subscribe(URI), client.unsubscribe(URI), client.subscribe(URI)]);
  assertEquals(order(server), ["subscribe", "unsubscribe", "subscribe"]);
  assertEquals(server.updateResource(URI), 1, "the server holds the subscription");
  assertEquals(await resubscribed(client, server), true, "so does the client");
});

test("legacy: concurrent subscribe then unsubscribe of one URI leave neither side subscribed", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.ready();
  await Promise.all([client.subscribe(URI), client.unsubscribe(URI)]);
  assertEquals(order(server), ["subscribe", "unsubscribe"]);
  assertEquals(server.updateResource(URI), 0, "the server holds no subscription");
  assertEquals(await resubscribed(client, server), false, "nor does the client");
});

test("legacy: a failed subscribe does not block the next operation on its URI", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only", stall: "resources/subscribe" });
  await using _ = client;
  await client.ready();
  const first = client.subscribe(URI, { timeout: 30 }).then(() => "ok", (e) => e.kind);
  const second = client.unsubscribe(URI);
  assertEquals(await first, "timeout");
  await second;
  assertEquals(order(server), ["subscribe", "unsubscribe"]);
});

test("modern: concurrent subscribe, unsubscribe, subscribe of one URI end subscribed", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.ready();
  await Promise.all([client.subscribe(URI), client.unsubscribe(URI), client.subscribe(URI)]);
  assertEquals(server.updateResource(URI), 1, "the listen in force holds the URI");
  await Promise.all([client.unsubscribe(URI), client.subscribe(URI), client.unsubscribe(URI)]);
  assertEquals(server.updateResource(URI), 0, "and no listen holds it after the last unsubscribe");
});

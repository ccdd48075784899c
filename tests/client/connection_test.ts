import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { createClient } from "../../client/client.ts";
import { isMcpError, McpError } from "../../protocol/errors.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { FAST, fixtureClient, mcpError, requests, waitFor, wrapTransport } from "./_helpers.ts";

test("createClient returns at once in connecting; era() and serverInfo() are unavailable", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  assertEquals(client.status().state, "connecting");
  const era = assertThrows(() => client.era());
  assert(isMcpError(era) && era.kind === "unavailable");
  const info = assertThrows(() => client.serverInfo());
  assert(isMcpError(info) && info.kind === "unavailable" && info.reason === "not_ready");
  await client.ready();
  assertEquals(client.status().state, "ready");
  const before = server.received.length;
  client.status();
  client.status();
  assertEquals(server.received.length, before, "status() does not message the server");
});

test("requests made before ready are queued and sent after the handshake, in order", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const calls = Promise.all(
    [
      client.callTool("echo", { message: "one" }),
      client.callTool("echo", { message: "two" }),
      client.listTools(),
    ] as const,
  );
  assertEquals(server.received.length, 0);
  const [one, two, page] = await calls;
  assertEquals(one.content[0].text, "one");
  assertEquals(two.content[0].text, "two");
  assertEquals(page.tools[0].name, "echo");
  assertEquals(server.methods(), [
    "server/discover",
    "initialize",
    "notifications/initialized",
    "tools/call",
    "tools/call",
    "tools/list",
  ]);
});

test("a queued request honours its timeout and signal while waiting", async () => {
  const { client } = fixtureClient({ mode: "legacy-only", legacyDiscoverError: "none" }, {
    probeTimeout: 500,
  });
  await using _ = client;
  const timedOut = await mcpError(client.callTool("echo", { message: "x" }, { timeout: 20 }));
  assertEquals(timedOut.kind, "timeout");
  assertEquals(timedOut.reason, "not_ready");
  const controller = new AbortController();
  const pending = client.listTools({ signal: controller.signal });
  controller.abort(new Error("user gave up"));
  const cancelled = await mcpError(pending);
  assertEquals(cancelled.kind, "cancelled");
  const waited = await mcpError(client.ready(10));
  assertEquals(waited.kind, "timeout");
});

test("a transport failure fails pending requests with transport, then reconnects", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.ready();
  const slow = client.callTool("slow", { ms: 1_000 });
  await waitFor(() => requests(server, "tools/call").length === 1, "the call");
  server.dropAll("crash");
  const error = await mcpError(slow);
  assertEquals(error.kind, "transport");
  assertEquals(client.status().state, "reconnecting");
  assertEquals(client.era(), "modern", "the era is kept while reconnecting");
  await client.ready();
  assertEquals(client.status().state, "ready");
  assertEquals(server.connections, 2);
  const result = await client.callTool("echo", { message: "back" });
  assertEquals(result.content[0].text, "back");
});

test("reconnecting backs off exponentially and gives up into closed", async () => {
  const server = createFixtureServer();
  let failing = false;
  const transport = wrapTransport(inProcess(server), {
    beforeOpen: () => {
      if (failing) {
        throw new McpError("cannot start", { kind: "transport", reason: "spawn_failed" });
      }
    },
  });
  const client = createClient({
    transport,
    reconnect: { attempts: 3, initialDelay: 10, factor: 2, maxDelay: 1_000, jitter: 0 },
  });
  await client.ready();
  failing = true;
  server.dropAll();
  await waitFor(() => client.status().state === "reconnecting", "reconnecting");
  const queuedLater = mcpError(client.callTool("echo", { message: "x" }));
  const error = await queuedLater;
  assertEquals(error.kind, "transport", "queued requests get the last failure");
  assertEquals(client.status().state, "closed");
  assertEquals(client.status().attempts, 3);
  const gaps = transport.opens.slice(1).map((t, i) => t - transport.opens[i]);
  assertEquals(gaps.length, 3);
  assert(gaps[1] >= 18 && gaps[2] >= 38, `delays grow: ${gaps}`);
  const closed = await mcpError(client.listTools());
  assertEquals(closed.kind, "closed");
  assertEquals(closed.reason, "gave_up");
  assertEquals((await mcpError(client.ready())).kind, "closed");
});

test("reconnect: false goes straight to closed when the link fails", async () => {
  const { client, server } = fixtureClient({}, { reconnect: false });
  await client.ready();
  server.dropAll();
  await waitFor(() => client.status().state === "closed", "closed");
  assertEquals(server.connections, 1);
  assertEquals((await mcpError(client.ping())).kind, "closed");
});

test("reconnect() fails pending with transport, resets the count and revives a closed client", async () => {
  const { client, server } = fixtureClient({}, { reconnect: false });
  await client.ready();
  const slow = client.callTool("slow", { ms: 1_000 });
  await waitFor(() => requests(server, "tools/call").length === 1, "the call");
  await client.reconnect();
  assertEquals((await mcpError(slow)).kind, "transport");
  assertEquals(client.status(), {
    state: "ready",
    era: "modern",
    version: "2026-07-28",
    attempts: 0,
  });
  assertEquals(server.connections, 2);
  assertEquals(server.open(), 1, "the old connection was closed");
  await client.close();
  assertEquals(client.status().state, "closed");
  await client.reconnect();
  assertEquals(client.status().state, "ready");
  assertEquals((await client.callTool("add", { a: 1, b: 2 })).content[0].text, "3");
  await client.close();
});

test("close() fails pending with closed, closes the transport, and later requests fail at once", async () => {
  const { client, server } = fixtureClient();
  await client.ready();
  const slow = client.callTool("slow", { ms: 1_000 });
  await waitFor(() => requests(server, "tools/call").length === 1, "the call");
  await client.close();
  const error = await mcpError(slow);
  assertEquals(error.kind, "closed");
  assertEquals(server.open(), 0);
  assertEquals(client.status().state, "closed");
  const before = server.received.length;
  const started = Date.now();
  assertEquals((await mcpError(client.callTool("echo", { message: "x" }))).kind, "closed");
  assertEquals((await mcpError(client.ready())).kind, "closed");
  assert(Date.now() - started < 50);
  assertEquals(server.received.length, before);
  assertEquals(client.era(), "modern", "the last era stays readable");
  await client.close();
});

test("close() while connecting rejects waiters and queued requests with closed", async () => {
  const { client, server } = fixtureClient({ stall: "server/discover" });
  const waiting = mcpError(client.ready());
  const queued = mcpError(client.listTools());
  await waitFor(() => server.received.length === 1, "the probe");
  await client.close();
  assertEquals((await waiting).kind, "closed");
  assertEquals((await queued).kind, "closed");
  assertEquals(server.open(), 0);
});

test("await using closes the client", async () => {
  const server = createFixtureServer();
  {
    await using client = createClient({ transport: inProcess(server) });
    await client.ready();
    assertEquals(server.open(), 1);
  }
  assertEquals(server.open(), 0);
});

test("a modern verdict is pinned: a reconnect that finds a legacy server never downgrades", async () => {
  const { client, server } = fixtureClient({}, { reconnect: FAST });
  await client.ready();
  assertEquals(client.era(), "modern");
  server.knobs.mode = "legacy-only";
  server.dropAll();
  await waitFor(() => client.status().state === "closed", "giving up", 1_500);
  const status = client.status();
  assertEquals(status.error?.kind, "protocol");
  assertEquals(status.error?.reason, "downgrade_refused");
  assertEquals(server.methods().includes("initialize"), false, "never initialize");
  assertEquals(requests(server, "server/discover").length, 1 + FAST.attempts);
  assertEquals(status.era, "modern");
});

test("a legacy reconnect goes straight to initialize (no second probe)", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.ready();
  server.dropAll();
  await waitFor(() => server.connections === 2 && client.status().state === "ready", "reconnect");
  assertEquals(requests(server, "server/discover").length, 1);
  assertEquals(requests(server, "initialize").length, 2);
});

test("a legacy reconnect restores the log level", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.setLogLevel("warning");
  server.dropAll();
  await waitFor(() => requests(server, "logging/setLevel").length === 2, "the restored level");
  const levels = requests(server, "logging/setLevel").map((m) =>
    (m.params as { level: string }).level
  );
  assertEquals(levels, ["warning", "warning"]);
});

test("a fatal handshake error closes without retrying", async () => {
  const server = createFixtureServer({ mode: "modern-only" });
  const transport = wrapTransport(inProcess(server));
  const client = createClient({ transport, protocol: "legacy", reconnect: FAST });
  assertEquals((await mcpError(client.ready())).kind, "protocol");
  assertEquals(transport.opens.length, 1);
  assertEquals(client.status().error?.reason, "no_common_version");
});

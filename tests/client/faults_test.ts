// Every fault the fixture can play: no hang, a clear McpError, and the client recovers.
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { fixtureClient, mcpError, requests, waitFor } from "./_helpers.ts";

for (const mode of ["dual", "legacy-only"] as const) {
  test(`[${mode}] exit mid-request: transport error, then a reconnect and a working call`, async () => {
    const { client, server } = fixtureClient({ mode, exitMidRequest: "crash" });
    await using _ = client;
    await client.ready();
    const error = await mcpError(client.callTool("crash"));
    assertEquals(error.kind, "transport");
    assertStringIncludes(error.message, "closed");
    const result = await client.callTool("echo", { message: "recovered" });
    assertEquals(result.content[0].text, "recovered");
    assertEquals(server.connections, 2);
    assertEquals(client.era(), mode === "dual" ? "modern" : "legacy");
  });

  test(`[${mode}] a garbage line at connect is skipped with a warning`, async () => {
    const { client, warnings } = fixtureClient({ mode, garbageLine: "first" });
    await using _ = client;
    await client.ready();
    assertEquals((await client.callTool("add", { a: 2, b: 3 })).content[0].text, "5");
    assertEquals(warnings.length, 1);
    assertStringIncludes(warnings[0], "not_json");
  });

  test(`[${mode}] garbage before every response is skipped; requests still work`, async () => {
    const { client, warnings } = fixtureClient({ mode, garbageLine: "every" });
    await using _ = client;
    const tools = await client.listAllTools();
    assertEquals(tools.length, 7);
    assert(warnings.length >= 2, "one warning per garbage line");
  });
}

test("a stalled method times out clearly and the client stays usable", async () => {
  const { client, server } = fixtureClient({ stall: "prompts/list" });
  await using _ = client;
  const error = await mcpError(client.listPrompts({ timeout: 30 }));
  assertEquals(error.kind, "timeout");
  assertStringIncludes(error.message, "prompts/list");
  assertEquals((await client.listTools()).tools.length, 7);
  assertEquals(server.connections, 1);
});

test("a stalled handshake times out, is retried on a fresh link, then gives up", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only", stall: "initialize" }, {
    requestTimeout: 20,
    reconnect: { attempts: 1, initialDelay: 1, jitter: 0 },
  });
  const error = await mcpError(client.ready());
  assertEquals(error.kind, "timeout");
  assertEquals(server.connections, 2);
  assertEquals(server.open(), 0, "every link was closed");
  assertEquals(client.status().state, "closed");
});

test("a server that exits on unknown methods: one reopen, legacy, and a later crash recovers", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only", exitOnUnknownMethod: true });
  await using _ = client;
  await client.ready();
  assertEquals(server.connections, 2);
  const error = await mcpError(client.request("no/such/method"));
  assertEquals(error.kind, "transport");
  await client.ready();
  assertEquals(server.connections, 3);
  assertEquals(requests(server, "server/discover").length, 1, "no probe on the legacy reconnect");
  assertEquals((await client.callTool("echo", { message: "ok" })).isError, false);
});

test("a legacy-only server that never answers discover: legacy after probeTimeout", async () => {
  const { client } = fixtureClient({ mode: "legacy-only", legacyDiscoverError: "none" }, {
    probeTimeout: 20,
  });
  await using _ = client;
  await client.ready();
  assertEquals(client.era(), "legacy");
});

test("a cursor loop is a pagination_cycle and the client goes on", async () => {
  const { client } = fixtureClient({ cursorLoop: true, pageSize: 2 });
  await using _ = client;
  assertEquals((await mcpError(client.listAllTools())).kind, "pagination_cycle");
  assertEquals((await client.callTool("echo", { message: "x" })).isError, false);
});

test("legacy server requests: ping is answered {}, anything else -32601", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const ping = await client.callTool("ask_client", { method: "ping" });
  assertEquals(JSON.parse(String(ping.content[0].text)).result, {});
  const roots = await client.callTool("ask_client", { method: "roots/list" });
  assertEquals(JSON.parse(String(roots.content[0].text)).error.code, -32601);
});

test("a server crash while idle is noticed and repaired in the background", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.ready();
  server.dropAll();
  await waitFor(() => server.connections === 2 && client.status().state === "ready", "reconnect");
  assertEquals(client.status().attempts, 0);
});

import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { createClient } from "../../client/client.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { fixtureClient, mcpError, metaOf, requests, wrapTransport } from "./_helpers.ts";

const VERSION = "io.modelcontextprotocol/protocolVersion";

test("auto against a dual-era server settles on modern with one discover and no initialize", async () => {
  const { server, client } = fixtureClient({ instructions: "Use echo." });
  await using _ = client;
  await client.ready();
  assertEquals(client.era(), "modern");
  assertEquals(server.methods(), ["server/discover"]);
  const info = client.serverInfo();
  assertEquals(info.era, "modern");
  assertEquals(info.version, "2026-07-28");
  assertEquals(info.serverInfo?.name, "conduit-fixture");
  assertEquals(info.instructions, "Use echo.");
  assert("tools" in info.capabilities);
  assertEquals(client.status(), {
    state: "ready",
    era: "modern",
    version: "2026-07-28",
    attempts: 0,
  });
});

test("auto against a legacy-only server probes once, then initialize + initialized", async () => {
  const { server, client } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.ready();
  assertEquals(client.era(), "legacy");
  assertEquals(server.methods(), ["server/discover", "initialize", "notifications/initialized"]);
  assertEquals(server.connections, 1);
  const [init] = requests(server, "initialize");
  const params = init.params as Record<string, unknown>;
  assertEquals(params.protocolVersion, "2025-11-25");
  assertEquals(params.clientInfo, { name: "conduit-mcp", version: "0.1.0" });
  assertEquals(params.capabilities, {});
  assertEquals(client.serverInfo().version, "2025-11-25");
  assertEquals(client.serverInfo().serverInfo?.name, "conduit-fixture");
});

test("auto: a legacy server that answers the probe with another error is legacy too", async () => {
  const { client } = fixtureClient({ mode: "legacy-only", legacyDiscoverError: -32602 });
  await using _ = client;
  await client.ready();
  assertEquals(client.era(), "legacy");
});

test("auto: a probe that gets no answer falls back to legacy after probeTimeout", async () => {
  const { server, client } = fixtureClient(
    { mode: "legacy-only", legacyDiscoverError: "none" },
    { probeTimeout: 30 },
  );
  await using _ = client;
  const started = Date.now();
  await client.ready();
  assert(Date.now() - started >= 25, "waited for the probe timeout");
  assertEquals(client.era(), "legacy");
  assertEquals(server.methods(), ["server/discover", "initialize", "notifications/initialized"]);
  assertEquals(
    server.methods().includes("notifications/cancelled"),
    false,
    "the probe is not cancelled",
  );
});

test("auto: a server that exits on the probe is reopened once and spoken to as legacy", async () => {
  const { server, client } = fixtureClient({ mode: "legacy-only", exitOnUnknownMethod: true });
  await using _ = client;
  await client.ready();
  assertEquals(client.era(), "legacy");
  assertEquals(server.connections, 2, "exactly one new connection");
  assertEquals(server.methods(), ["server/discover", "initialize", "notifications/initialized"]);
  assertEquals(server.open(), 1);
});

test('protocol "legacy" skips the probe; "modern" never sends initialize', async () => {
  {
    const { server, client } = fixtureClient({}, { protocol: "legacy" });
    await using _ = client;
    await client.ready();
    assertEquals(client.era(), "legacy");
    assertEquals(server.methods(), ["initialize", "notifications/initialized"]);
  }
  {
    const { server, client } = fixtureClient({}, { protocol: "modern" });
    await using _ = client;
    await client.ready();
    assertEquals(client.era(), "modern");
    assertEquals(server.methods(), ["server/discover"]);
  }
});

test('protocol "modern" against a legacy-only server fails clearly, without initialize', async () => {
  const { server, client } = fixtureClient({ mode: "legacy-only" }, { protocol: "modern" });
  const error = await mcpError(client.ready());
  assertEquals(error.kind, "protocol");
  assertEquals(error.reason, "not_modern");
  assertEquals(server.methods(), ["server/discover"]);
  assertEquals(client.status().state, "closed");
  const later = await mcpError(client.callTool("echo", { message: "x" }));
  assertEquals(later.kind, "closed");
});

test('protocol "legacy" against a modern-only server fails naming its versions', async () => {
  const { server, client } = fixtureClient({ mode: "modern-only" }, { protocol: "legacy" });
  const error = await mcpError(client.ready());
  assertEquals(error.kind, "protocol");
  assertEquals(error.reason, "no_common_version");
  assertStringIncludes(error.message, "2026-07-28");
  assertEquals(server.methods(), ["initialize"]);
  assertEquals(client.status().state, "closed");
});

test("legacy version negotiation takes the server's answer when the client offers it", async () => {
  const { server, client } = fixtureClient({ mode: "legacy-only", versions: ["2025-06-18"] });
  await using _ = client;
  await client.ready();
  assertEquals(client.serverInfo().version, "2025-06-18");
  assertEquals(
    (requests(server, "initialize")[0].params as { protocolVersion: string }).protocolVersion,
    "2025-11-25",
  );
});

test("legacy version negotiation refuses a version the client does not offer", async () => {
  const { server, client } = fixtureClient(
    { mode: "legacy-only", versions: ["2025-06-18"] },
    { versions: ["2026-07-28", "2025-11-25"] },
  );
  const error = await mcpError(client.ready());
  assertEquals(error.kind, "protocol");
  assertEquals(error.reason, "no_common_version");
  assertStringIncludes(error.message, "2025-06-18");
  assertEquals(server.methods().includes("notifications/initialized"), false);
});

test("a pinned legacy version is sent and must be echoed", async () => {
  {
    const { server, client } = fixtureClient({}, { protocol: "2025-06-18" });
    await using _ = client;
    await client.ready();
    assertEquals(client.serverInfo().version, "2025-06-18");
    assertEquals(server.methods()[0], "initialize");
  }
  {
    const { client } = fixtureClient({ versions: ["2026-07-28", "2025-11-25"] }, {
      protocol: "2025-06-18",
    });
    const error = await mcpError(client.ready());
    assertEquals(error.reason, "no_common_version");
  }
});

test("-32022 on the probe: the client retries with the server's version", async () => {
  const { server, client } = fixtureClient(
    { mode: "modern-only", versions: ["2026-07-28"] },
    { versions: ["2027-01-01", "2026-07-28", "2025-11-25"] },
  );
  await using _ = client;
  await client.ready();
  assertEquals(client.era(), "modern");
  assertEquals(client.serverInfo().version, "2026-07-28");
  const probes = requests(server, "server/discover").map((m) => metaOf(m)[VERSION]);
  assertEquals(probes, ["2027-01-01", "2026-07-28"]);
  await client.callTool("echo", { message: "hi" });
  assertEquals(metaOf(requests(server, "tools/call")[0])[VERSION], "2026-07-28");
});

test("-32022 naming no version in common fails with no_common_version, never legacy", async () => {
  const { server, client } = fixtureClient(
    { mode: "modern-only", versions: ["2026-07-28"] },
    { versions: ["2027-01-01", "2025-11-25"] },
  );
  const error = await mcpError(client.ready());
  assertEquals(error.kind, "protocol");
  assertEquals(error.reason, "no_common_version");
  assertEquals(server.methods(), ["server/discover"]);
});

test("capabilities come from the handler, per era", async () => {
  const handler = { listRoots: () => Promise.resolve([]) };
  {
    const { server, client } = fixtureClient({ mode: "legacy-only" }, {
      handler,
      rootsListChanged: true,
    });
    await using _ = client;
    await client.ready();
    const params = requests(server, "initialize")[0].params as Record<string, unknown>;
    assertEquals(params.capabilities, { roots: { listChanged: true } });
  }
  {
    const { server, client } = fixtureClient({}, { handler, rootsListChanged: true });
    await using _ = client;
    await client.ready();
    assertEquals(
      metaOf(requests(server, "server/discover")[0])["io.modelcontextprotocol/clientCapabilities"],
      {
        roots: {},
      },
    );
  }
});

test("an HTTP-kind transport without probe() still probes through a plain request", async () => {
  const server = createFixtureServer({ mode: "legacy-only" });
  const transport = wrapTransport(inProcess(server), { kind: "http" });
  await using client = createClient({ transport, reconnect: false });
  await client.ready();
  assertEquals(client.era(), "legacy");
  assertEquals(server.methods(), ["server/discover", "initialize", "notifications/initialized"]);
});

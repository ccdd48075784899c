import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient, Progress } from "../../client/types.ts";
import { McpError } from "../../protocol/errors.ts";
import { stdio } from "../../transports/stdio.ts";
import type { FixtureKnobs } from "../fixtures/server.ts";
import {
  assert,
  assertArrayIncludes,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  scriptCommand,
  test,
} from "../_harness.ts";

const fixture = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));
const everything = {
  command: "node",
  args: [
    new URL(
      "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
      import.meta.url,
    )
      .pathname,
    "stdio",
  ],
};

/** A client over stdio to the fixture script; `spawns()` counts the server processes. */
function fixtureClient(knobs: FixtureKnobs, options: Partial<ClientOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "conduit-stdio-"));
  const pidFile = join(dir, "pids");
  const warnings: string[] = [];
  const client = createClient({
    transport: stdio({
      ...fixture,
      env: { FIXTURE_KNOBS: JSON.stringify(knobs), FIXTURE_PID_FILE: pidFile },
      closeGracePeriod: 1_000,
      terminateGracePeriod: 1_000,
    }),
    reconnect: { initialDelay: 20, maxDelay: 200, attempts: 3 },
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  const spawns = () => {
    try {
      return readFileSync(pidFile, "utf8").split("\n").filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  const dispose = async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { client, spawns, warnings, dispose };
}

function text(result: { content: { type: string; [key: string]: unknown }[] }): string {
  return result.content.map((block) => String(block.text ?? "")).join("");
}

async function waitReady(client: McpClient): Promise<void> {
  await client.ready(15_000);
}

test("stdio client: auto speaks modern to a dual server, on one process", async () => {
  const { client, spawns, dispose } = fixtureClient({});
  try {
    await waitReady(client);
    assertEquals(client.era(), "modern");
    assertEquals(client.serverInfo().version, "2026-07-28");
    const tools = await client.listAllTools();
    assertArrayIncludes(tools.map((t) => t.name), ["echo", "add"]);
    assertEquals(text(await client.callTool("add", { a: 2, b: 3 })), "5");
    assertEquals(spawns(), 1);
  } finally {
    await dispose();
  }
});

test("stdio client: legacy handshake when asked, and auto against a legacy-only server", async () => {
  const forced = fixtureClient({}, { protocol: "legacy" });
  try {
    await waitReady(forced.client);
    assertEquals([forced.client.era(), forced.client.serverInfo().version], [
      "legacy",
      "2025-11-25",
    ]);
    assertEquals(text(await forced.client.callTool("echo", { message: "hi" })), "hi");
  } finally {
    await forced.dispose();
  }
  const legacy = fixtureClient({ mode: "legacy-only" });
  try {
    await waitReady(legacy.client);
    assertEquals(legacy.client.era(), "legacy");
    assertEquals(text(await legacy.client.callTool("echo", { message: "hi" })), "hi");
    await legacy.client.ping();
    assertEquals(legacy.spawns(), 1, "the probe ran on the one server process");
  } finally {
    await legacy.dispose();
  }
});

test("stdio client: a legacy server that never answers the probe costs one process", async () => {
  const { client, spawns, dispose } = fixtureClient(
    { mode: "legacy-only", legacyDiscoverError: "none" },
    { probeTimeout: 500 },
  );
  try {
    await waitReady(client);
    assertEquals(client.era(), "legacy");
    assertEquals(spawns(), 1);
  } finally {
    await dispose();
  }
});

test("stdio client: a server that exits on the probe is respawned once, as legacy", async () => {
  const { client, spawns, dispose } = fixtureClient({
    mode: "legacy-only",
    exitOnUnknownMethod: true,
  });
  try {
    await waitReady(client);
    assertEquals(client.era(), "legacy");
    assertEquals(text(await client.callTool("add", { a: 1, b: 1 })), "2");
    assertEquals(spawns(), 2, "one probe process, one legacy process");
  } finally {
    await dispose();
  }
});

test("stdio client: a server exiting mid-request fails it with transport, then reconnects", async () => {
  const { client, spawns, dispose } = fixtureClient({ exitMidRequest: "slow" });
  try {
    await waitReady(client);
    const error = await assertRejects(() => client.callTool("slow", { ms: 5_000 }), McpError);
    assertEquals(error.kind, "transport");
    assertStringIncludes(error.message, "exit during slow", "the stderr tail explains it");
    await waitReady(client);
    assertEquals(client.era(), "modern", "still modern after the reconnect");
    assertEquals(text(await client.callTool("add", { a: 20, b: 22 })), "42");
    assertEquals(spawns(), 2);
  } finally {
    await dispose();
  }
});

test("stdio client: garbage lines are skipped with warnings, calls go on", async () => {
  const { client, spawns, warnings, dispose } = fixtureClient({ garbageLine: "every" });
  try {
    await waitReady(client);
    assertEquals(text(await client.callTool("echo", { message: "still here" })), "still here");
    assert(warnings.some((w) => w.includes("not a JSON-RPC message")), warnings.join(" | "));
    assertEquals(client.status().state, "ready");
    assertEquals(spawns(), 1);
  } finally {
    await dispose();
  }
});

test("stdio client: a stalled request times out, the connection stays", async () => {
  const { client, spawns, dispose } = fixtureClient({ stall: "tools/call" });
  try {
    await waitReady(client);
    const error = await assertRejects(
      () => client.callTool("echo", { message: "never" }, { timeout: 300 }),
      McpError,
    );
    assertEquals(error.kind, "timeout");
    await client.ping();
    assertEquals(client.status().state, "ready");
    assertEquals(spawns(), 1);
  } finally {
    await dispose();
  }
});

test("stdio client: a legacy server exiting on an unknown method fails it, then reconnects", async () => {
  const { client, spawns, dispose } = fixtureClient({
    mode: "legacy-only",
    exitOnUnknownMethod: true,
  });
  try {
    await waitReady(client);
    assertEquals(spawns(), 2, "the probe killed the first process");
    const error = await assertRejects(() => client.request("no/such/method"), McpError);
    assertEquals(error.kind, "transport");
    await waitReady(client);
    assertEquals(client.era(), "legacy");
    await client.ping();
    assertEquals(spawns(), 3, "a legacy reconnect does not probe again");
  } finally {
    await dispose();
  }
});

function everythingClient(): McpClient {
  return createClient({
    transport: stdio({ ...everything, closeGracePeriod: 1_000, terminateGracePeriod: 1_000 }),
    reconnect: false,
  });
}

test("stdio client: server-everything (legacy) tools, prompts, resources, completion", async () => {
  await using client = everythingClient();
  await waitReady(client);
  assertEquals(client.era(), "legacy");
  assertEquals(client.serverInfo().serverInfo?.name, "mcp-servers/everything");

  const tools = await client.listAllTools();
  assertArrayIncludes(tools.map((t) => t.name), [
    "echo",
    "get-sum",
    "trigger-long-running-operation",
  ]);
  assertEquals(text(await client.callTool("echo", { message: "héllo" })), "Echo: héllo");
  assertStringIncludes(text(await client.callTool("get-sum", { a: 2, b: 40 })), "42");
  const structured = await client.callTool("get-structured-content", { location: "Chicago" });
  assert(structured.structuredContent !== undefined, "structured content comes through");

  const prompts = await client.listAllPrompts();
  assertArrayIncludes(prompts.map((p) => p.name), ["simple-prompt", "args-prompt"]);
  const prompt = await client.getPrompt("args-prompt", { city: "Paris", state: undefined });
  assertStringIncludes(JSON.stringify(prompt.messages), "Paris");

  const resources = await client.listAllResources();
  assert(resources.length > 0, "the server lists resources");
  const read = await client.readResource(resources[0].uri);
  assertEquals(read.contents[0].uri, resources[0].uri);
  const templates = await client.listAllResourceTemplates();
  assert(
    templates.some((t) => t.uriTemplate.startsWith("demo://resource/dynamic/text/")),
    JSON.stringify(templates.map((t) => t.uriTemplate)),
  );
  const dynamic = await client.readResource("demo://resource/dynamic/text/1");
  assert(typeof dynamic.contents[0].text === "string");

  const departments = await client.complete({ prompt: "completable-prompt" }, ["department", "E"]);
  assertEquals(departments.completion.values, ["Engineering"]);
  const names = await client.complete({ prompt: "completable-prompt" }, ["name", ""], {
    context: { arguments: { department: "Sales" } },
  });
  assertEquals(names.completion.values, ["David", "Eve", "Frank"]);
});

test("stdio client: server-everything progress reaches onProgress", async () => {
  await using client = everythingClient();
  await waitReady(client);
  const progress: Progress[] = [];
  const result = await client.callTool(
    "trigger-long-running-operation",
    { duration: 0.6, steps: 3 },
    { onProgress: (p) => progress.push(p), timeout: 10_000 },
  );
  assertStringIncludes(text(result), "Long running operation completed");
  assertEquals(progress.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]]);
});

import { assert, assertEquals, assertRejects, test } from "../_harness.ts";
import { promptArguments } from "../../client/requests/requests.ts";
import { fixtureClient, mcpError, metaOf, requests } from "./_helpers.ts";

const ERAS = ["dual", "legacy-only"] as const;

for (const mode of ERAS) {
  test(`[${mode}] callTool returns ToolResult shapes and sends the args as given`, async () => {
    const { client, server } = fixtureClient({ mode });
    await using _ = client;
    const echo = await client.callTool("echo", { message: "hi", extra: { nested: [1, null] } });
    assertEquals(echo.content, [{ type: "text", text: "hi" }]);
    assertEquals(echo.isError, false);
    const [call] = requests(server, "tools/call");
    assertEquals((call.params as Record<string, unknown>).arguments, {
      message: "hi",
      extra: { nested: [1, null] },
    });
    const failed = await client.callTool("fail");
    assertEquals(failed.isError, true);
    assertEquals(failed.content[0].text, "the tool failed");
    const structured = await client.callTool("structured", {});
    assertEquals(structured.structuredContent, { temperature: 21.5, unit: "C" });
    const unknown = await mcpError(client.callTool("nope"));
    assertEquals(unknown.kind, "server");
    assertEquals(unknown.code, -32602);
    assertEquals(unknown.reason, "invalid_params");
    const noMethod = await mcpError(client.request("no/such_method"));
    assertEquals([noMethod.kind, noMethod.code, noMethod.reason], [
      "server",
      -32601,
      "method_not_found",
    ]);
  });

  test(`[${mode}] getPrompt converts arguments to strings on the wire`, async () => {
    const { client, server } = fixtureClient({ mode });
    await using _ = client;
    const greeting = await client.getPrompt("greeting", { name: "Ada", excited: true });
    assertEquals(greeting.messages[0].content.text, "Hello, Ada!");
    await client.getPrompt("args", {
      n: 42,
      f: 1.5,
      b: false,
      s: "text",
      o: { a: 1 },
      l: [1, "x"],
      gone: null,
      missing: undefined,
    });
    const sent = (requests(server, "prompts/get")[1].params as Record<string, unknown>).arguments;
    assertEquals(sent, { n: "42", f: "1.5", b: "false", s: "text", o: '{"a":1}', l: '[1,"x"]' });
  });

  test(`[${mode}] readResource, templates and not-found`, async () => {
    const { client } = fixtureClient({ mode });
    await using _ = client;
    const read = await client.readResource("test://resource1");
    assertEquals(read.contents[0].text, "contents of test://resource1");
    assertEquals((await client.readResource("item://42")).contents[0].text, "item 42");
    const missing = await mcpError(client.readResource("test://none"));
    assertEquals(missing.kind, "server");
    assertEquals(missing.code, mode === "dual" ? -32602 : -32002);
    assertEquals(missing.reason, mode === "dual" ? "invalid_params" : "resource_not_found");
    assertEquals(missing.data, { uri: "test://none" });
  });

  test(`[${mode}] complete takes every ref and argument form, with context`, async () => {
    const { client, server } = fixtureClient({ mode });
    await using _ = client;
    const byPrompt = await client.complete({ prompt: "greeting" }, ["name", "G"]);
    assertEquals(byPrompt.completion.values, ["Grace", "Guido"]);
    const byResource = await client.complete({ resource: "item://{id}" }, {
      name: "id",
      value: "4",
    });
    assertEquals(byResource.completion.values, ["42"]);
    const wire = await client.complete(
      { type: "ref/prompt", name: "greeting" },
      ["name", "Dr. A"],
      {
        context: { arguments: { prefix: "Dr. " } },
      },
    );
    assertEquals(wire.completion.values, ["Dr. Ada", "Dr. Alan"]);
    const sent = requests(server, "completion/complete").map((m) => {
      const { _meta, ...params } = m.params as Record<string, unknown>;
      return params;
    });
    assertEquals(sent, [
      { ref: { type: "ref/prompt", name: "greeting" }, argument: { name: "name", value: "G" } },
      { ref: { type: "ref/resource", uri: "item://{id}" }, argument: { name: "id", value: "4" } },
      {
        ref: { type: "ref/prompt", name: "greeting" },
        argument: { name: "name", value: "Dr. A" },
        context: { arguments: { prefix: "Dr. " } },
      },
    ]);
  });

  test(`[${mode}] one-page lists return items and nextCursor`, async () => {
    const { client } = fixtureClient({ mode, pageSize: 4 });
    await using _ = client;
    const first = await client.listTools();
    assertEquals(first.tools.map((t) => t.name), ["echo", "add", "slow", "fail"]);
    assertEquals(first.nextCursor, "c4");
    const second = await client.listTools({ cursor: first.nextCursor });
    assertEquals(second.tools.map((t) => t.name), ["structured", "notify", "ask_client"]);
    assertEquals(second.nextCursor, undefined);
    assertEquals((await client.listPrompts()).prompts.map((p) => p.name), ["greeting", "args"]);
    assertEquals((await client.listResources()).resources.length, 3);
    const templates = await client.listResourceTemplates();
    assertEquals(templates.resourceTemplates, [{ uriTemplate: "item://{id}", name: "item" }]);
    assertEquals((await mcpError(client.listTools({ cursor: "bogus" }))).code, -32602);
  });
}

test("ping is a legacy ping and a modern server/discover", async () => {
  {
    const { client, server } = fixtureClient({ mode: "legacy-only" });
    await using _ = client;
    await client.ping();
    assertEquals(server.methods().at(-1), "ping");
    assertEquals(requests(server, "ping")[0].params, undefined);
  }
  {
    const { client, server } = fixtureClient();
    await using _ = client;
    await client.ping({ timeout: 500 });
    assertEquals(server.methods(), ["server/discover", "server/discover"]);
  }
});

test("modern requests carry the full _meta envelope", async () => {
  const { client, server } = fixtureClient({}, {
    clientInfo: { name: "tester", version: "9.9.9" },
    handler: { elicitation: () => Promise.resolve({ action: "decline" as const }) },
  });
  await using _ = client;
  await client.callTool("echo", { message: "x" });
  const meta = metaOf(requests(server, "tools/call")[0]);
  assertEquals(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  assertEquals(meta["io.modelcontextprotocol/clientInfo"], { name: "tester", version: "9.9.9" });
  assertEquals(meta["io.modelcontextprotocol/clientCapabilities"], {
    elicitation: { form: {}, url: {} },
  });
  assertEquals(typeof meta.progressToken, "number", "a timeout applies, so a progressToken");
  assertEquals("io.modelcontextprotocol/logLevel" in meta, false);
});

test("legacy requests carry only a progressToken in _meta", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  await client.callTool("echo", { message: "x" });
  assertEquals(Object.keys(metaOf(requests(server, "tools/call")[0])), ["progressToken"]);
});

test("setLogLevel: legacy sends logging/setLevel; log messages reach listeners", async () => {
  const { client, server } = fixtureClient({ mode: "legacy-only" });
  await using _ = client;
  const seen: string[] = [];
  client.subscribeNotifications((n) => seen.push(`${n.method}:${n.params.level}`));
  await client.setLogLevel("info");
  assertEquals(requests(server, "logging/setLevel")[0].params, { level: "info" });
  await client.callTool("echo", { message: "x" });
  assertEquals(seen, ["notifications/message:info"]);
});

test("setLogLevel: modern remembers the level and sends it in later _meta", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  const seen: string[] = [];
  client.subscribeNotifications((n) => seen.push(n.method));
  await client.callTool("echo", { message: "before" });
  await client.setLogLevel("debug");
  await client.callTool("echo", { message: "after" });
  assertEquals(requests(server, "logging/setLevel").length, 0);
  const metas = requests(server, "tools/call").map((m) =>
    metaOf(m)["io.modelcontextprotocol/logLevel"]
  );
  assertEquals(metas, [undefined, "debug"]);
  assertEquals(seen, ["notifications/message"]);
  await assertRejects(() => client.setLogLevel("loud" as never), TypeError);
});

for (
  const [resultType, reason] of [
    // input_required with neither inputRequests nor requestState: nothing to answer.
    ["input_required", "invalid_result"],
    ["task", "unexpected_task"],
    ["bogus", "invalid_result_type"],
  ] as const
) {
  test(`a modern result with resultType "${resultType}" fails with protocol/${reason}`, async () => {
    const { client } = fixtureClient({ resultType });
    await using _ = client;
    const error = await mcpError(client.callTool("echo", { message: "x" }));
    assertEquals(error.kind, "protocol");
    assertEquals(error.reason, reason);
    assertEquals((await client.listTools()).tools.length > 0, true, "other results still work");
  });
}

test("request() sends any method and returns the raw result", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  const result = await client.request("tools/list", { cursor: "c2" });
  assert(Array.isArray(result.tools));
  assertEquals(result.resultType, "complete");
  assertEquals((await mcpError(client.request("nope/nope"))).code, -32601);
});

test("misuse throws TypeError before anything is sent", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.ready();
  const before = server.received.length;
  await assertRejects(() => client.callTool("", {}), TypeError);
  await assertRejects(() => client.callTool("echo", [] as never), TypeError);
  await assertRejects(() => client.callTool("echo", {}, { timeout: -1 }), TypeError);
  await assertRejects(() => client.callTool("echo", {}, { taskTtl: 0 }), TypeError);
  await assertRejects(() => client.awaitTask("t-1", { timeout: "5" as never }), TypeError);
  await assertRejects(() => client.callTool("echo", {}, { signal: "x" as never }), TypeError);
  await assertRejects(() => client.getPrompt("args", { f: () => 1 }), TypeError);
  await assertRejects(() => client.readResource(1 as never), TypeError);
  await assertRejects(() => client.complete({ bogus: 1 } as never, ["a", "b"]), TypeError);
  await assertRejects(() => client.complete({ prompt: "p" }, ["a", 1] as never), TypeError);
  await assertRejects(() => client.listTools({ cursor: 5 as never }), TypeError);
  await assertRejects(() => client.request("x", [] as never), TypeError);
  assertEquals(server.received.length, before);
});

test("promptArguments: the seed's conversion table", () => {
  assertEquals(promptArguments(undefined), {});
  assertEquals(
    promptArguments({
      a: "s",
      b: 1,
      c: true,
      d: 10n,
      e: Symbol("sym"),
      f: null,
      g: undefined,
      h: { x: [1] },
    }),
    { a: "s", b: "1", c: "true", d: "10", e: "sym", h: '{"x":[1]}' },
  );
});

test("a server error says its code once, whether or not its message names it", async () => {
  const { mockServer } = await import("../../testing/mod.ts");
  const { createClient } = await import("../../client/client.ts");
  const fail = (message: string) => () => {
    throw Object.assign(new Error(message), { code: -32602 });
  };
  const server = mockServer({
    tools: [
      { name: "sdk", handler: fail("MCP error -32602: Invalid arguments for tool sdk") },
      { name: "plain", handler: fail("Invalid arguments") },
      { name: "other", handler: fail("Expected at most -326020 items") },
    ],
  });
  await using client = createClient({ transport: server.transport() });
  const sdk = await mcpError(client.callTool("sdk", {}));
  assertEquals(sdk.message, "tools/call failed: MCP error -32602: Invalid arguments for tool sdk");
  assertEquals([sdk.kind, sdk.code, sdk.reason], ["server", -32602, "invalid_params"]);
  const plain = await mcpError(client.callTool("plain", {}));
  assertEquals(plain.message, "tools/call failed: Invalid arguments (-32602)");
  const other = await mcpError(client.callTool("other", {}));
  assertEquals(other.message, "tools/call failed: Expected at most -326020 items (-32602)");
});

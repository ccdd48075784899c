// The three kits over a real client and an in-process mock server that echoes what it got:
// long names round-tripped (the safe name reaches the right tool), strict arguments with
// optional properties restored to the original shape (the server receives exactly it),
// `shape: "llm"` with a fallback for a source that does not take it, and the errors.
import { aiSdkTools } from "../../adapters/ai_sdk.ts";
import { anthropicTools } from "../../adapters/anthropic.ts";
import { openAiTools } from "../../adapters/openai.ts";
import type { ToolSource } from "../../adapters/types.ts";
import { createClient } from "../../client/client.ts";
import type { McpClient } from "../../client/types.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { mockServer } from "../../testing/mod.ts";
import type { MockServer } from "../../testing/mod.ts";
import { assert, assertEquals, assertMatch, assertRejects, test } from "../_harness.ts";

const PREFIX = "inventory_service__list_every_warehouse_item_with_its_stock_level_";
const LONG_A = `${PREFIX}and_price`;
const LONG_B = `${PREFIX}and_supplier`;
const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

/** The schema with optional properties, nested, the strict round trip starts from. */
const SEARCH_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1 },
    limit: { type: "integer", default: 10 },
    filter: {
      type: "object",
      properties: {
        tag: { type: "string" },
        since: { type: "string", format: "date" },
        owner: { $ref: "#/$defs/person" },
      },
      required: ["tag"],
    },
    note: { type: ["string", "null"] },
  },
  required: ["query"],
  $defs: { person: { type: "object", properties: { name: { type: "string" } } } },
};

function echoServer(): MockServer {
  const echo = (name: string) => (args: Record<string, unknown>) =>
    `${name} ${JSON.stringify(args)}`;
  return mockServer({
    tools: [
      { name: LONG_A, inputSchema: { type: "object" }, handler: echo("A") },
      { name: LONG_B, inputSchema: { type: "object" }, handler: echo("B") },
      {
        name: "search.docs",
        description: "Searches",
        inputSchema: SEARCH_SCHEMA,
        handler: echo("S"),
      },
      {
        name: "fails",
        inputSchema: { type: "object" },
        handler: () => ({ content: [{ type: "text", text: "it broke" }], isError: true }),
      },
    ],
  });
}

async function withClient(body: (client: McpClient, server: MockServer) => Promise<void>) {
  const server = echoServer();
  await using client = createClient({ transport: server.transport(), reconnect: false });
  await body(client, server);
}

/** The arguments of each tools/call the server received. */
function received(server: MockServer): unknown[] {
  return server.requests.filter((r) => r.method === "tools/call").map((r) => r.params.arguments);
}

test("kits: two long names sharing a 64-character prefix reach their own tools, in every adapter", async () => {
  await withClient(async (client) => {
    const chat = await openAiTools(client);
    const responses = await openAiTools(client, { api: "responses" });
    const anthropic = await anthropicTools(client);
    const ai = await aiSdkTools(client);
    const names = chat.tools.map((t) => t.function.name);
    for (const name of names) assertMatch(name, SAFE);
    assertEquals(new Set(names).size, names.length);
    assertEquals(responses.tools.map((t) => t.name), names);
    assertEquals(anthropic.tools.map((t) => t.name), names);
    assertEquals(Object.keys(ai.tools), names);
    const [a, b] = [LONG_A, LONG_B].map((n) => chat.catalog.find((c) => c.tool.name === n)!.name);
    assert(a !== b && a.length <= 64 && b.length <= 64);
    assertEquals(chat.originalName(a), LONG_A);
    assertEquals(chat.originalName(b), LONG_B);

    const message = await chat.run({ id: "c1", function: { name: b, arguments: '{"n":1}' } });
    assertEquals(message, { role: "tool", tool_call_id: "c1", content: 'B {"n":1}' });
    const output = await responses.run({ call_id: "r1", name: a, arguments: "{}" });
    assertEquals(output, { type: "function_call_output", call_id: "r1", output: "A {}" });
    const block = await anthropic.run({ id: "t1", name: b, input: { n: 2 } });
    assertEquals(block, { type: "tool_result", tool_use_id: "t1", content: 'B {"n":2}' });
    assertEquals(await ai.tools[a].execute({ n: 3 }, { toolCallId: "x" }), 'A {"n":3}');
    // The original name works too.
    assertEquals((await chat.call(LONG_A, {})).text, "A {}");
  });
});

test("kits: strict arguments with optional properties reach the server in the original shape", async () => {
  await withClient(async (client, server) => {
    const kit = await openAiTools(client, { strict: true });
    const tool = kit.tools.find((t) => t.function.name === "search_docs")!;
    assertEquals(tool.function.strict, true);
    // deno-lint-ignore no-explicit-any
    const parameters = tool.function.parameters as Record<string, any>;
    assertEquals(parameters.required, ["query", "limit", "filter", "note"]);
    assertEquals(parameters.properties.filter.anyOf[0].required, ["tag", "since", "owner"]);
    assertEquals(parameters.properties.query.description, "(minLength: 1)");
    // What a strict model must send: every property, null for what it leaves out.
    const calls: [unknown, unknown][] = [
      [
        { query: "mcp", limit: null, filter: null, note: null },
        { query: "mcp", note: null },
      ],
      [
        {
          query: "mcp",
          limit: 3,
          filter: { tag: "x", since: null, owner: { name: null } },
          note: "n",
        },
        { query: "mcp", limit: 3, filter: { tag: "x", owner: {} }, note: "n" },
      ],
      [
        {
          query: "mcp",
          limit: null,
          filter: { tag: "y", since: "2026-01-01", owner: null },
          note: null,
        },
        { query: "mcp", filter: { tag: "y", since: "2026-01-01" }, note: null },
      ],
    ];
    for (const [model, original] of calls) {
      const answer = await kit.run({
        id: "c",
        function: { name: "search_docs", arguments: JSON.stringify(model) },
      });
      assertEquals(answer.content, `S ${JSON.stringify(original)}`);
    }
    assertEquals(received(server), calls.map(([, original]) => original));
  });
});

test("kits: without strict the arguments go as the model gave them", async () => {
  await withClient(async (client, server) => {
    const kit = await anthropicTools(client);
    assertEquals(kit.tools.find((t) => t.name === "search_docs")!.strict, undefined);
    await kit.run({ id: "t", name: "search_docs", input: { query: "q", limit: null } });
    assertEquals(received(server), [{ query: "q", limit: null }]);
  });
});

test("kits: a tool's failure reaches the model as one (is_error, a thrown McpError)", async () => {
  await withClient(async (client) => {
    const anthropic = await anthropicTools(client);
    assertEquals(await anthropic.run({ id: "t", name: "fails", input: {} }), {
      type: "tool_result",
      tool_use_id: "t",
      content: "The tool reported an error.\nit broke",
      is_error: true,
    });
    const ai = await aiSdkTools(client);
    const error = await assertRejects(() => ai.tools.fails.execute({}));
    assert(isMcpError(error) && error.kind === "server" && error.reason === "tool_error");
    assertEquals(error.message, "The tool reported an error.\nit broke");
    const chat = await openAiTools(client);
    assertEquals((await chat.call("fails", "")).isError, true);
  });
});

test("kits: a model's mistakes come back as error text from run, and as McpErrors from call", async () => {
  await withClient(async (client) => {
    const kit = await openAiTools(client, { api: "responses" });
    const unknown = await kit.run({ call_id: "1", name: "nope", arguments: "{}" });
    assertEquals(unknown.output, 'Error: No tool named "nope" in this kit');
    const bad = await kit.run({ call_id: "2", name: "fails", arguments: "{not json" });
    assertEquals(bad.output, "Error: The tool arguments are not valid JSON");
    const notObject = await kit.call("fails", "[1]").catch((e) => e);
    assert(isMcpError(notObject) && notObject.kind === "validation");
    assertEquals(notObject.reason, "invalid_arguments");
    const missing = await kit.call("nope").catch((e) => e);
    assert(
      isMcpError(missing) && missing.kind === "not_found" && missing.reason === "unknown_tool",
    );
    // The caller's own abort is the host's to handle: run rethrows it.
    const controller = new AbortController();
    controller.abort();
    const aborted = await kit.run({ call_id: "3", name: "fails", arguments: "{}" }, {
      signal: controller.signal,
    }).catch((e) => e);
    assert(isMcpError(aborted) && aborted.kind === "cancelled", String(aborted));
  });
});

test("kits: calls go with shape llm; a source that answers a plain ToolResult is shaped here", async () => {
  const seen: unknown[] = [];
  const tools = [{ name: "t", inputSchema: { type: "object" } }];
  const shaping: ToolSource = {
    listAllTools: () => Promise.resolve(tools),
    callTool: (_name, _args, options) => {
      seen.push(options);
      return Promise.resolve({ text: "shaped", isError: false, approxTokens: 1, cutChars: 0 });
    },
  };
  const kit = await openAiTools(shaping);
  assertEquals((await kit.call("t", {}, { timeout: 5 })).text, "shaped");
  assertEquals(seen, [{ timeout: 5, shape: "llm" }]);

  const plain: ToolSource = {
    listAllTools: () => Promise.resolve(tools),
    callTool: (_name, _args, options) => {
      seen.push(options);
      const image = { type: "image", data: "AAAA", mimeType: "image/png" };
      return Promise.resolve({ content: [{ type: "text", text: "plain" }, image], isError: false });
    },
  };
  seen.length = 0;
  const other = await anthropicTools(plain);
  assertEquals((await other.call("t")).text, "plain\n[image: image/png, 3 bytes]");
  assertEquals(seen, [{ shape: "llm" }]);
});

test("kits: bad sources and options are TypeErrors naming them", async () => {
  await assertRejects(() => openAiTools({} as ToolSource), TypeError, "listAllTools and callTool");
  const source: ToolSource = {
    listAllTools: () => Promise.resolve([]),
    callTool: () => Promise.resolve({}),
  };
  // deno-lint-ignore no-explicit-any
  const loose = openAiTools as any;
  await assertRejects(() => loose(source, { stirct: true }), TypeError, '"stirct"');
  await assertRejects(() => loose(source, { api: "assistants" }), TypeError, '"api"');
  await assertRejects(() => loose(source, { strict: "yes" }), TypeError, '"strict"');
  await assertRejects(
    () => aiSdkTools(source, { jsonSchema: 1 as unknown as () => unknown }),
    TypeError,
    '"jsonSchema"',
  );
  assertEquals((await anthropicTools(source)).tools, []);
});

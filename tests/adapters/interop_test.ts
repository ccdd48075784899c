// The adapters over real servers: @modelcontextprotocol/server-everything over stdio, and
// the modern fixture (@modelcontextprotocol/server 2.x) over Streamable HTTP. Every tool in
// every adapter has a name the APIs take and, in strict mode, a schema inside OpenAI's
// strict subset; sample strict arguments validate against the strict schema, and restored
// they validate against the tool's own schema (and reach the server so); the SDKs' types
// take the kits (`satisfies`); real calls through each `run` reach the servers.
import { Validator } from "@cfworker/json-schema";
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import type { FunctionTool } from "openai/resources/responses/responses";
import type { Tool as AnthropicSdkTool } from "@anthropic-ai/sdk/resources/messages";
import { connect as connectHttp } from "../../http.ts";
import { connect, type McpClient, type ToolSource } from "../../mod.ts";
import { aiSdkTools, anthropicTools, openAiTools } from "../../adapters/mod.ts";
import { startModernSdkHttp } from "../fixtures/modern_sdk_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes, test } from "../_harness.ts";
import { sampleArguments, strictViolations, TOOL_NAME } from "./_api_rules.ts";

const everything = new URL(
  "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;

type Schema = Record<string, unknown>;

/** The client, with each callTool's arguments recorded and not sent. */
function recorder(client: McpClient): ToolSource & { calls: [string, unknown][] } {
  const calls: [string, unknown][] = [];
  return {
    calls,
    listAllTools: (options) => client.listAllTools(options),
    callTool: (name, args) => {
      calls.push([name, args]);
      return Promise.resolve({ content: [], isError: false });
    },
  };
}

/** Checks every adapter's output for a server's tools. */
async function checkAdapters(client: McpClient, expectedTools: number): Promise<void> {
  const listed = await client.listAllTools();
  assertEquals(listed.length, expectedTools);
  const chat = await openAiTools(client, { strict: true });
  const responses = await openAiTools(client, { api: "responses", strict: true });
  const loose = await openAiTools(client);
  const anthropic = await anthropicTools(client);
  const ai = await aiSdkTools(client, { strict: true });
  // The SDKs' types take them.
  chat.tools satisfies ChatCompletionTool[];
  responses.tools satisfies FunctionTool[];
  anthropic.tools satisfies AnthropicSdkTool[];

  for (const tool of chat.tools) {
    const fn = tool.function;
    assertMatch(fn.name, TOOL_NAME);
    assertEquals(
      fn.strict,
      true,
      `${fn.name} is strict (${chat.catalog.find((c) => c.name === fn.name)?.notes})`,
    );
    assertEquals(strictViolations(fn.parameters), [], fn.name);
    // A schema a JSON Schema validator takes, and the model's strict arguments in it.
    const sample = sampleArguments(fn.parameters);
    const verdict = new Validator(fn.parameters as never, "2020-12").validate(sample);
    assert(verdict.valid, `${fn.name}: ${JSON.stringify(verdict.errors)}`);
  }
  assertEquals(
    responses.tools.map((t) => [t.name, t.strict, t.parameters]),
    chat.tools.map((t) => [
      t.function.name,
      true,
      t.function.parameters,
    ]),
  );
  for (const tool of loose.tools) {
    assertEquals(tool.function.strict, undefined);
    assertEquals((tool.function.parameters as Schema).type, "object");
    assert(!JSON.stringify(tool.function.parameters).includes('"$schema"'), "no $schema");
  }
  for (const tool of anthropic.tools) {
    assertMatch(tool.name, TOOL_NAME);
    assertEquals(tool.input_schema.type, "object");
  }
  assertEquals(Object.keys(ai.tools), chat.tools.map((t) => t.function.name));
  for (const [name, tool] of Object.entries(ai.tools)) {
    assertEquals(
      tool.inputSchema.jsonSchema,
      chat.tools.find((t) => t.function.name === name)!.function.parameters,
    );
  }

  // Restored strict arguments fit each tool's own schema.
  const source = recorder(client);
  const recorded = await openAiTools(source, { strict: true });
  for (const tool of recorded.tools) {
    const original = listed.find((t) => t.name === recorded.originalName(tool.function.name))!;
    await recorded.call(
      tool.function.name,
      JSON.stringify(sampleArguments(tool.function.parameters)),
    );
    const [name, args] = source.calls.at(-1)!;
    assertEquals(name, original.name);
    const draft = String(original.inputSchema.$schema ?? "").includes("draft-07") ? "7" : "2020-12";
    const verdict = new Validator(original.inputSchema as never, draft).validate(args);
    assert(verdict.valid, `${name}: ${JSON.stringify(args)} ${JSON.stringify(verdict.errors)}`);
    assert(!Object.values(args as Schema).includes(null), `${name}: no null left for an optional`);
  }
}

test(
  "adapters over server-everything (stdio): every tool in every API's shape, calls through each run",
  async () => {
    await using client = await connect({
      command: "node",
      args: [everything, "stdio"],
      closeGracePeriod: 1_000,
      terminateGracePeriod: 1_000,
    }, { requestTimeout: 30_000, reconnect: false });
    await checkAdapters(client, (await client.listAllTools()).length);
    assert((await client.listAllTools()).length >= 10, "server-everything lists its tools");

    const chat = await openAiTools(client, { strict: true });
    const message = await chat.run({
      id: "c1",
      function: { name: "echo", arguments: '{"message":"hi"}' },
    });
    assertEquals(message, { role: "tool", tool_call_id: "c1", content: "Echo: hi" });
    const sum = await chat.run({
      id: "c2",
      function: { name: "get-sum", arguments: '{"a":2,"b":40}' },
    });
    assertStringIncludes(sum.content, "42");
    // An optional property left out by a strict model (null) is dropped: the server's default applies.
    const annotated = await chat.call("get-annotated-message", {
      messageType: "success",
      includeImage: null,
    });
    assertEquals(annotated.isError, false);
    assert(!annotated.text.includes("[image"), annotated.text);

    const responses = await openAiTools(client, { api: "responses" });
    const output = await responses.run({
      call_id: "r1",
      name: "echo",
      arguments: '{"message":"yo"}',
    });
    assertEquals(output.output, "Echo: yo");
    const anthropic = await anthropicTools(client);
    const block = await anthropic.run({
      id: "t1",
      name: "get-structured-content",
      input: { location: "Chicago" },
    });
    assertEquals(block.is_error, undefined);
    assert(block.content.length > 0);
    const ai = await aiSdkTools(client);
    assertEquals(await ai.tools.echo.execute({ message: "ai" }, { toolCallId: "x" }), "Echo: ai");
  },
  { timeout: 90_000 },
);

test(
  "adapters over the modern SDK fixture (HTTP): every tool in every API's shape, calls through each run",
  async () => {
    await using server = await startModernSdkHttp();
    await using client = await connectHttp(server.url.href, {
      requestTimeout: 15_000,
      reconnect: false,
    });
    await checkAdapters(client, 7); // the fixture's five plus `erase` (destructive) and `peek` (read-only)

    const chat = await openAiTools(client, { strict: true });
    // `weather`'s region is mirrored in a header the SDK checks: the client still sends it.
    const weather = await chat.run({
      id: "w",
      function: { name: "weather", arguments: '{"region":"Oslo"}' },
    });
    assertEquals(weather.content, "sunny in Oslo");
    const anthropic = await anthropicTools(client, { strict: true });
    const sum = await anthropic.run({ id: "a", name: "add", input: { a: 2, b: 40 } });
    // The text and the structured content differ, so the shaped text holds both.
    assertEquals(sum.content, '42\n{"sum":42}');
    const ai = await aiSdkTools(client);
    assertEquals(await ai.tools.echo.execute({ message: "héllo" }), "héllo");
  },
  { timeout: 90_000 },
);

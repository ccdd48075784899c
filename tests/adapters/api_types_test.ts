// The kits' shapes against each model SDK's published types (openai, @anthropic-ai/sdk and
// ai, dev dependencies): this file is type-checked with tests/all.ts, so an emitted shape
// the SDKs' types refuse fails `deno check`; the last test shows a wrong shape does fail
// it. At run time, the AI SDK itself takes the structural tools: `asSchema` sees our input
// schema as its own, and `generateText` with its mock model calls a tool through `execute`.
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type {
  FunctionTool,
  ResponseFunctionToolCall,
  ResponseInputItem,
  Tool as ResponsesTool,
} from "openai/resources/responses/responses";
import type {
  Tool as AnthropicSdkTool,
  ToolResultBlockParam,
  ToolUnion,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages";
import { asSchema, generateText, jsonSchema, stepCountIs, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { execFile } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { aiSdkTools, anthropicTools, openAiTools, type ToolSource } from "../../adapters/mod.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";

const TOOLS = [
  {
    name: "lookup.user",
    description: "Looks a user up",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string" }, verbose: { type: "boolean", default: false } },
      required: ["id"],
    },
  },
];

/** A source that lists one tool and echoes the arguments of each call. */
function echoSource(): ToolSource & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    listAllTools: () => Promise.resolve(structuredClone(TOOLS)),
    callTool: (_name, args) => {
      calls.push(args);
      return Promise.resolve({
        content: [{ type: "text", text: JSON.stringify(args) }],
        isError: false,
      });
    },
  };
}

test("api types: Chat Completions tools, a tool call and its answer are the openai SDK's types", async () => {
  const kit = await openAiTools(echoSource(), { strict: true });
  const tools: ChatCompletionTool[] = kit.tools;
  const call: ChatCompletionMessageFunctionToolCall = {
    id: "call_1",
    type: "function",
    function: { name: "lookup_user", arguments: '{"id":"u1","verbose":null}' },
  };
  const answer: ChatCompletionToolMessageParam = await kit.run(call);
  assertEquals(tools[0].type, "function");
  assertEquals(answer, { role: "tool", tool_call_id: "call_1", content: '{"id":"u1"}' });
});

test("api types: a message's tool_calls run as they are, a custom tool's call answered with an error", async () => {
  const kit = await openAiTools(echoSource());
  const calls: ChatCompletionMessageToolCall[] = [
    { id: "c1", type: "function", function: { name: "lookup_user", arguments: '{"id":"u9"}' } },
    { id: "c2", type: "custom", custom: { name: "grammar", input: "x" } },
  ];
  const answers: ChatCompletionToolMessageParam[] = [];
  for (const call of calls) answers.push(await kit.run(call));
  assertEquals(answers, [
    { role: "tool", tool_call_id: "c1", content: '{"id":"u9"}' },
    { role: "tool", tool_call_id: "c2", content: "Error: only function tool calls run here" },
  ]);
});

test("api types: Responses API tools, a function call and its output are the openai SDK's types", async () => {
  const kit = await openAiTools(echoSource(), { api: "responses" });
  const tools: FunctionTool[] = kit.tools;
  const call: ResponseFunctionToolCall = {
    type: "function_call",
    call_id: "fc_1",
    name: "lookup_user",
    arguments: '{"id":"u2"}',
  };
  const output: ResponseInputItem = await kit.run(call);
  assertEquals(tools[0].strict, false);
  assertEquals(output, { type: "function_call_output", call_id: "fc_1", output: '{"id":"u2"}' });
});

test("api types: Anthropic tools, a tool_use block and its tool_result are the SDK's types", async () => {
  const kit = await anthropicTools(echoSource(), { strict: true });
  const tools: AnthropicSdkTool[] = kit.tools;
  const block: ToolUseBlock = {
    type: "tool_use",
    id: "toolu_1",
    name: "lookup_user",
    input: { id: "u3", verbose: null },
    caller: { type: "direct" },
  };
  const result: ToolResultBlockParam = await kit.run(block);
  assertEquals(tools[0].input_schema.additionalProperties, false);
  assertEquals(result, { type: "tool_result", tool_use_id: "toolu_1", content: '{"id":"u3"}' });
});

/** A hub-like source: its whole catalogue, one tool kept loaded, calls echoed. */
function catalogueSource(): ToolSource & { listCatalogue(): Promise<unknown> } {
  const inner = echoSource();
  const tools = [
    { ...TOOLS[0], name: "users__lookup.user" },
    { name: "mail__send", description: "Sends mail", inputSchema: { type: "object" } },
  ];
  return {
    ...inner,
    listAllTools: () => Promise.resolve([]),
    listCatalogue: () => Promise.resolve({ tools, alwaysLoad: ["mail__send"] }),
  };
}

test("api types: Anthropic defer: the BM25 tool search tool and deferred tools are the SDK's ToolUnion", async () => {
  const kit = await anthropicTools(catalogueSource(), { defer: true });
  const tools: ToolUnion[] = kit.tools;
  assertEquals(kit.tools.map((t) => [t.name, "defer_loading" in t ? t.defer_loading : undefined]), [
    ["tool_search_tool_bm25", undefined],
    ["users__lookup_user", true],
    ["mail__send", undefined],
  ]);
  assertEquals(tools[0], {
    type: "tool_search_tool_bm25_20251119",
    name: "tool_search_tool_bm25",
  } as ToolUnion);
  // A deferred tool found by the search runs like any other.
  const block: ToolUseBlock = {
    type: "tool_use",
    id: "toolu_2",
    name: "users__lookup_user",
    input: { id: "u4" },
    caller: { type: "direct" },
  };
  const result: ToolResultBlockParam = await kit.run(block);
  assertEquals(result.content, '{"id":"u4"}');
  // A plain client: tools whose _meta asks to stay loaded are not deferred.
  const client = echoSource();
  const listed = [
    { ...TOOLS[0], _meta: { "anthropic/alwaysLoad": true } },
    { name: "other", inputSchema: { type: "object" } },
  ];
  const plain = await anthropicTools({ ...client, listAllTools: () => Promise.resolve(listed) }, {
    defer: true,
  });
  assertEquals(plain.tools.map((t) => "defer_loading" in t), [false, false, true]);
});

test("api types: Responses defer: tool_search and deferred function tools are the SDK's Tool", async () => {
  const kit = await openAiTools(catalogueSource(), { api: "responses", defer: true });
  const tools: ResponsesTool[] = kit.tools;
  assertEquals(tools[0], { type: "tool_search" });
  const fns = tools.slice(1) as FunctionTool[];
  assertEquals(fns.map((t) => [t.name, t.defer_loading]), [
    ["users__lookup_user", true],
    ["mail__send", undefined],
  ]);
  const output = await kit.run({
    call_id: "c9",
    name: "users__lookup_user",
    arguments: '{"id":"u5"}',
  });
  assertEquals(output.output, '{"id":"u5"}');
  // Chat Completions and the AI SDK have no deferral: refused, not ignored.
  let refused = 0;
  for (
    const attempt of [
      () => openAiTools(catalogueSource(), { defer: true } as never),
      () => aiSdkTools(catalogueSource(), { defer: true } as never),
      () => anthropicTools(catalogueSource(), { defer: "yes" } as never),
    ]
  ) {
    await attempt().catch((error) => {
      if (error instanceof TypeError) refused++;
    });
  }
  assertEquals(refused, 3);
});

test("api types: AI SDK tools made with the SDK's jsonSchema are a ToolSet", async () => {
  const kit = await aiSdkTools(echoSource(), { jsonSchema });
  const tools: ToolSet = kit.tools;
  const schema = await asSchema(tools.lookup_user.inputSchema).jsonSchema;
  const structural = (await aiSdkTools(echoSource())).tools.lookup_user.inputSchema;
  assertEquals(schema, structural.jsonSchema);
  assertEquals((schema as { type?: unknown }).type, "object");
});

test("api types: the AI SDK takes the structural input schema as its own, and runs execute", async () => {
  const source = echoSource();
  const kit = await aiSdkTools(source, { strict: true });
  const input = kit.tools.lookup_user.inputSchema;
  // asSchema hands back a schema it recognises as is (anything else it would wrap or reject).
  const seen: unknown = asSchema(input as never);
  assert(seen === input, "the SDK sees its own schema");
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const model = new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{
          type: "tool-call",
          toolCallId: "t1",
          toolName: "lookup_user",
          input: '{"id":"u4","verbose":null}',
        }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
  const result = await generateText({
    model,
    tools: kit.tools as unknown as ToolSet,
    prompt: "Look up u4",
    stopWhen: stepCountIs(3),
  });
  assertEquals(result.text, "done");
  assertEquals(source.calls, [{ id: "u4" }]);
  const toolResult = result.steps[0].toolResults[0] as { output: unknown };
  assertEquals(toolResult.output, '{"id":"u4"}');
  // The provider got our schema, strict.
  const sent = model.doGenerateCalls[0].tools as {
    name: string;
    inputSchema: unknown;
    strict?: boolean;
  }[];
  assertEquals(sent.map((t) => [t.name, t.strict]), [["lookup_user", true]]);
  assertEquals(sent[0].inputSchema, input.jsonSchema);
});

const ESC = String.fromCharCode(27);

/** Runs `deno check` on a module written next to this file, then removes it. */
function checkProbe(source: string): Promise<{ ok: boolean; output: string }> {
  const file = new URL(`./_probe_${process.pid}_${Date.now()}.ts`, import.meta.url);
  writeFileSync(file, source);
  const deno = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));
  return new Promise<{ ok: boolean; output: string }>((resolve) => {
    execFile(
      deno,
      ["check", "--quiet", fileURLToPath(file)],
      {
        cwd: fileURLToPath(new URL("../../", import.meta.url)),
        env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        timeout: 100_000,
      },
      // Colours stripped: a FORCE_COLOR in the environment turns them on whatever NO_COLOR says.
      (error, stdout, stderr) =>
        resolve({
          ok: error === null,
          output: `${stdout}${stderr}`.replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), ""),
        }),
    );
  }).finally(() => rmSync(file, { force: true }));
}

test("api types: a wrong shape fails the type check (the checks above can fail)", async () => {
  const imports = [
    'import type { ChatCompletionTool } from "openai/resources/chat/completions";',
    'import type { FunctionTool } from "openai/resources/responses/responses";',
    'import type { Tool } from "@anthropic-ai/sdk/resources/messages";',
    'import { anthropicTools, openAiTools, type ToolSource } from "../../adapters/mod.ts";',
    "declare const source: ToolSource;",
    "const chat = await openAiTools(source);",
    'const responses = await openAiTools(source, { api: "responses" });',
    "const anthropic = await anthropicTools(source);",
    'const deferred = await openAiTools(source, { api: "responses", defer: true });',
  ];
  const wrong = [
    // Responses tools where Chat Completions tools go, and the other way round.
    "export const a: ChatCompletionTool[] = responses.tools;",
    "export const b: FunctionTool[] = chat.tools;",
    // One field renamed.
    "export const c: Tool[] = anthropic.tools.map(({ input_schema, ...t }) => ({ ...t, inputSchema: input_schema }));",
    // The deferred kit's tool search is not a function tool.
    "export const d: FunctionTool[] = deferred.tools;",
  ];
  const { ok, output } = await checkProbe([...imports, ...wrong].join("\n"));
  assert(!ok, "the wrong shapes must fail");
  // Exactly these four: the imports resolve, and the right lines fail.
  assertStringIncludes(output, "Found 4 errors");
  for (const line of [10, 11, 12, 13]) assertStringIncludes(output, `:${line}:`);
}, { timeout: 120_000 });

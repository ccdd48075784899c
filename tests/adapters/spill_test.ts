// Spilled results end to end through the model kits and the hub's lazy catalogue: a client
// (or hub) that spills lists read_result to the model; the model's call of a big tool gets
// the head and tail and a line naming the handle and where the rest starts; its read_result
// calls, paging from there, give back the rest exactly.
import { aiSdkTools } from "../../adapters/ai_sdk.ts";
import { anthropicTools } from "../../adapters/anthropic.ts";
import { openAiTools } from "../../adapters/openai.ts";
import { createClient } from "../../client/client.ts";
import { hub } from "../../hub/hub.ts";
import { loadConfig } from "../../hub/config.ts";
import { mcpError } from "../client/_helpers.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const LOG = Array.from({ length: 1_500 }, (_, i) => `event ${i}: ${"ok ".repeat(i % 7)}done`)
  .join("\n");

function server() {
  return mockServer({
    tools: [
      { name: "big_log", description: "A long log", handler: () => LOG },
      { name: "small", handler: () => "tiny" },
    ],
  });
}

/** Where the model's text says the rest starts, and the handle. */
function notice(text: string): { handle: string; offset: number } {
  const match = text.match(/read_result \{"handle":"(rs_[\w-]+)","offset":(\d+)\}/);
  assert(match !== null, `the text names a handle: ${text.slice(0, 300)}`);
  return { handle: match[1], offset: Number(match[2]) };
}

/** Pages with read_result from `offset` to the end, as a model following the footers would. */
async function pageAll(
  read: (args: { handle: string; offset: number }) => Promise<string>,
  handle: string,
  offset: number,
): Promise<string> {
  let out = "";
  let at: number | null = offset;
  for (let calls = 0; at !== null; calls++) {
    assert(calls < 100, "the pages end");
    const answer = await read({ handle, offset: at });
    const footer = answer.match(
      /\n\[characters (\d+) to (\d+) of (\d+): (?:next offset (\d+)|the end)\]$/,
    );
    assert(footer !== null, `a footer: ${answer.slice(-200)}`);
    assertEquals(Number(footer[1]), at);
    out += answer.slice(0, footer.index);
    at = footer[4] === undefined ? null : Number(footer[4]);
  }
  return out;
}

function check(text: string, budget: number) {
  assert(text.length <= budget, `${text.length} > ${budget}`);
  const { offset } = notice(text);
  assert(text.startsWith(LOG.slice(0, offset).replace(/\n$/, "")), "the head is the log's");
  return notice(text);
}

test("spill kits: OpenAI (strict), Anthropic and AI SDK list read_result and page a spilled result back", async () => {
  const mock = server();
  await using client = createClient({
    transport: mock.transport(),
    shape: { maxChars: 600, spill: true },
  });
  // OpenAI Chat Completions, strict schemas.
  const openai = await openAiTools(client, { strict: true });
  assert(openai.tools.some((t) => t.function.name === "read_result"), "listed for OpenAI");
  const first = await openai.run({ id: "c1", function: { name: "big_log", arguments: "{}" } });
  const spilled = check(first.content, 600);
  const viaOpenAi = await pageAll(
    async (args) =>
      (await openai.run({
        id: "c2",
        function: {
          name: "read_result",
          arguments: JSON.stringify({ ...args, length: null, grep: null, jsonPath: null }),
        },
      })).content,
    spilled.handle,
    spilled.offset,
  );
  assert(viaOpenAi === LOG.slice(spilled.offset), "OpenAI: the rest, exactly");

  // Anthropic.
  const anthropic = await anthropicTools(client);
  assert(anthropic.tools.some((t) => t.name === "read_result"), "listed for Anthropic");
  const block = await anthropic.run({ id: "t1", name: "big_log", input: {} });
  const second = check(block.content, 600);
  const viaAnthropic = await pageAll(
    async (args) => (await anthropic.run({ id: "t2", name: "read_result", input: args })).content,
    second.handle,
    second.offset,
  );
  assert(viaAnthropic === LOG.slice(second.offset), "Anthropic: the rest, exactly");
  const grep = await anthropic.run({
    id: "t3",
    name: "read_result",
    input: { handle: second.handle, grep: "event 1234:" },
  });
  assert(grep.content.startsWith("1233: event 1232:"), grep.content.slice(0, 80));
  assert(grep.content.includes("1235: event 1234:"), "the match, numbered");

  // AI SDK.
  const sdk = await aiSdkTools(client);
  assert("read_result" in sdk.tools, "listed for the AI SDK");
  const text = await sdk.tools.big_log.execute({}, { toolCallId: "s1" }) as string;
  const third = check(text, 600);
  const viaSdk = await pageAll(
    async (args) => await sdk.tools.read_result.execute(args, { toolCallId: "s2" }) as string,
    third.handle,
    third.offset,
  );
  assert(viaSdk === LOG.slice(third.offset), "AI SDK: the rest, exactly");

  // A handle the model made up is an error text it can act on, never another result.
  const wrong = await anthropic.run({
    id: "t4",
    name: "read_result",
    input: { handle: "rs_AAAAAAAAAAAAAAAAAAAAAA" },
  });
  assertEquals(wrong.is_error, true);
  assert(!wrong.content.includes("event"), wrong.content);
});

test("spill kits: a client that does not spill lists no read_result", async () => {
  await using client = createClient({ transport: server().transport(), shape: { maxChars: 600 } });
  const kit = await anthropicTools(client);
  assertEquals(kit.tools.map((t) => t.name).sort(), ["big_log", "small"]);
});

test("spill lazy hub: search_tools, call_tool and read_result; a spilled result read back", async () => {
  await using servers = hub({
    servers: { logs: server().transport() },
    lazy: true,
    shape: { maxChars: 700, spill: true },
  });
  const listed = (await servers.listAllTools()).map((t) => t.name);
  assertEquals(listed, ["search_tools", "call_tool", "read_result"]);
  const found = await servers.callTool("search_tools", { query: "long log" }, { shape: "llm" });
  assert(JSON.stringify(found).includes("logs__big_log"), "search finds the tool");
  const called = await servers.callTool(
    "call_tool",
    { name: "logs__big_log", arguments: {} },
    { shape: "llm", principal: "ana" },
  );
  assert(called.spilled !== undefined, "spilled");
  const { handle, offset } = check(called.text, 700);
  const rest = await pageAll(
    async (args) => {
      const page = await servers.callTool("read_result", args, { shape: "llm", principal: "ana" });
      assert(page.text.length <= 700, "a read_result page is within the hub's budget");
      return page.text;
    },
    handle,
    offset,
  );
  assert(rest === LOG.slice(offset), "the lazy hub: the rest, exactly");
  // Another principal reads nothing of it.
  const other = await servers.callTool("read_result", { handle }, {
    shape: "llm",
    principal: "bob",
  });
  assertEquals(other.isError, true);
  assert(!other.text.includes("event"), other.text);

  // The same through a kit over the lazy hub: the model's own read_result calls.
  const kit = await openAiTools(servers);
  // The meta-tools, the tools this session found (they join the listing) and read_result.
  const names = kit.tools.map((t) => t.function.name);
  assertEquals(names.slice(0, 2), ["search_tools", "call_tool"]);
  assertEquals(names.filter((n) => n === "read_result").length, 1);
  const message = await kit.run({
    id: "h1",
    function: {
      name: "call_tool",
      arguments: JSON.stringify({ name: "logs__big_log", arguments: {} }),
    },
  });
  const viaKit = check(message.content, 700);
  const back = await pageAll(
    async (args) =>
      (await kit.run({
        id: "h2",
        function: { name: "read_result", arguments: JSON.stringify(args) },
      }))
        .content,
    viaKit.handle,
    viaKit.offset,
  );
  assert(back === LOG.slice(viaKit.offset), "a kit over the lazy hub: the rest, exactly");
});

test("spill hub: a server's maxResultChars is its budget; readResult on the hub", async () => {
  const mock = mockServer({
    tools: [
      { name: "big_log", handler: () => LOG },
      { name: "own", _meta: { "anthropic/maxResultSizeChars": 900 }, handler: () => LOG },
    ],
  });
  const other = mockServer({
    tools: [{ name: "own", _meta: { "anthropic/maxResultSizeChars": 900 }, handler: () => LOG }],
  });
  await using servers = hub({
    servers: {
      logs: { transport: mock.transport(), maxResultChars: 300 },
      plain: other.transport(),
    },
    shape: { maxChars: 2_000, spill: true },
  });
  await servers.listAllTools();
  const small = await servers.callTool("logs__big_log", {}, { shape: "llm" });
  assert(small.text.length <= 300 && small.text.length > 200, `${small.text.length}`);
  // The server's word is under the host's: maxResultChars goes first.
  const own = await servers.callTool("logs__own", {}, { shape: "llm" });
  assert(own.text.length <= 300, `${own.text.length}`);
  // Without maxResultChars, the tool's own _meta budget.
  const tool = await servers.callTool("plain__own", {}, { shape: "llm" });
  assert(tool.text.length <= 900 && tool.text.length > 600, `${tool.text.length}`);
  // A call's maxChars goes first of all.
  const call = await servers.callTool("plain__own", {}, { shape: "llm", maxChars: 250 });
  assert(call.text.length <= 250, `${call.text.length}`);
  const page = await servers.readResult(tool.spilled!.handle, { offset: 0, length: 1_000_000 });
  assert(page.text === LOG, "readResult on the hub: the whole log");
  assertEquals(page.nextOffset, null);
});

test("spill hub config: a server's maxResultChars from a config file, checked", async () => {
  const config = await loadConfig(
    `{ "mcpServers": { "logs": { "command": "srv", "maxResultChars": 1200 } } }`,
    { env: {} },
  );
  assertEquals(config.servers.logs, { command: "srv", maxResultChars: 1200 });
  const bad = await mcpError(
    loadConfig(`{ "mcpServers": { "logs": { "command": "srv", "maxResultChars": 50 } } }`, {
      env: {},
    }),
  );
  assertEquals(bad.kind, "config");
  assert(bad.message.includes("maxResultChars"), bad.message);
  // In code, a bad budget is a TypeError naming the server.
  let error: unknown;
  try {
    hub({ servers: { logs: { transport: server().transport(), maxResultChars: 10 } } });
  } catch (caught) {
    error = caught;
  }
  assert(error instanceof TypeError && error.message.includes("logs"), String(error));
});

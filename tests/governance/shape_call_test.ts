// callTool's shape: "llm" against the fixture: the shaped result in place of the raw one,
// the client's maxChars default and the per-call one, isError, errors still thrown, a task
// awaited then shaped, and every misuse a TypeError before any request.
import type { McpClient, ShapedResult, ToolResult } from "../../mod.ts";
import { ERROR_LINE } from "../../governance/shape.ts";
import { isTask } from "../../protocol/tasks.ts";
import { createClient } from "../../client/client.ts";
import type { ClientOptions } from "../../client/types.ts";
import { inProcess } from "../../transports/in_process.ts";
import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { createTasksServer } from "../fixtures/tasks_server.ts";
import { FAST, fixtureClient, mcpError, requests } from "../client/_helpers.ts";

const marker = /\n\[… (\d+) characters \(offset (\d+) to (\d+) of 20000\) cut: not kept …\]\n/;

test('callTool shape: "llm": the shaped result; a plain call stays raw', async () => {
  const { client } = fixtureClient();
  await using _ = client;
  const raw: ToolResult = await client.callTool("structured", {});
  assertEquals(raw.structuredContent, { temperature: 21.5, unit: "C" });
  const shaped: ShapedResult = await client.callTool("structured", {}, { shape: "llm" });
  assertEquals(shaped, {
    text: '{"temperature":21.5,"unit":"C"}',
    isError: false,
    approxTokens: 8,
    cutChars: 0,
  });
  const echoed = await client.callTool("echo", { message: "hi\u200B\u202E there" }, {
    shape: "llm",
    timeout: 5_000,
    principal: "alice",
  });
  assertEquals(echoed.text, "hi there");
});

test("callTool shape: isError visible; a server error is still thrown", async () => {
  const { client } = fixtureClient();
  await using _ = client;
  const failed = await client.callTool("fail", {}, { shape: "llm" });
  assertEquals([failed.isError, failed.text], [true, `${ERROR_LINE}\nthe tool failed`]);
  const error = await mcpError(client.callTool("nope", {}, { shape: "llm" }));
  assertEquals(error.kind, "server");
});

test("callTool shape: maxChars per call, else the client's shape.maxChars, else 8 000", async () => {
  const message = "xxxxxxxxx ".repeat(2_000);
  for (
    const [options, call, limit] of [
      [{}, {}, 8_000],
      [{ shape: { maxChars: 1_000 } }, {}, 1_000],
      [{ shape: { maxChars: 1_000 } }, { maxChars: 300 }, 300],
      [{ shape: {} }, { maxChars: 12_000 }, 12_000],
    ] as const
  ) {
    const { client } = fixtureClient({}, options as Partial<ClientOptions>);
    await using _ = client;
    const shaped = await client.callTool("echo", { message }, { shape: "llm", ...call });
    assert(shaped.text.length <= limit && shaped.text.length > limit - 60, `${limit}`);
    const [line, cut, headEnd, tailStart] = shaped.text.match(marker)!;
    assertEquals([Number(cut), Number(tailStart) - Number(headEnd)], [
      shaped.cutChars,
      shaped.cutChars,
    ]);
    assertEquals(shaped.text.length - line.length + shaped.cutChars, 20_000, `${limit}`);
  }
});

test("callTool shape with task: await shapes the task's result; return is a TypeError", async () => {
  const server = createTasksServer();
  await using client = createClient({ transport: inProcess(server), reconnect: FAST });
  const shaped = await client.callTool("slow", {}, { shape: "llm", task: "await" });
  assertEquals(shaped.text, "slow done {}");
  await assertRejects(
    // @ts-expect-error: a call that may resolve with a task cannot be shaped.
    () => client.callTool("slow", {}, { shape: "llm", task: "return" }),
    TypeError,
    'task: "return"',
  );
  const task = await client.callTool("slow", {}, { task: "return" });
  assert(isTask(task), "a plain return still gives the task");
});

test("callTool shape: misuse is a TypeError and sends nothing", async () => {
  const { client, server } = fixtureClient();
  await using _ = client;
  await client.ready();
  const table: [Record<string, unknown>, string][] = [
    [{ shape: "html" }, 'option "shape" must be "llm"'],
    [{ shape: true }, 'option "shape" must be "llm"'],
    [{ maxChars: 500 }, 'option "maxChars" goes with shape: "llm"'],
    [{ shape: "llm", maxChars: 10 }, 'option "maxChars" must be a whole number'],
    [{ shape: "llm", maxChars: "500" }, 'option "maxChars" must be a whole number'],
    [{ shape: "llm", maxChar: 500 }, '"maxChar"'],
  ];
  const call = client.callTool as (n: string, a: unknown, o: unknown) => Promise<unknown>;
  for (const [options, message] of table) {
    await assertRejects(() => call("echo", { message: "x" }, options), TypeError, message);
  }
  assertEquals(requests(server, "tools/call").length, 0, "no request went out");
  // Keys present but undefined: a plain call.
  const plain = await call("echo", { message: "y" }, { shape: undefined, maxChars: undefined });
  assertEquals((plain as ToolResult).content, [{ type: "text", text: "y" }]);
});

test("createClient shape: { maxChars } only, checked like the other options", () => {
  const transport = inProcess(createTasksServer());
  for (
    const shape of ["llm", { maxChars: 50 }, { maxChars: 1.5 }, { max: 500 }, null] as unknown[]
  ) {
    assertThrows(
      () => createClient({ transport, shape } as unknown as ClientOptions),
      TypeError,
      shape !== null && typeof shape === "object" && "max" in shape ? '"max"' : '"shape"',
    );
  }
  // "Shape every call" is not an option: the message says where shaping is asked for.
  assertThrows(
    () => createClient({ transport, shape: "llm" } as unknown as ClientOptions),
    TypeError,
    'callTool(name, args, { shape: "llm" })',
  );
  const client: McpClient = createClient({ transport, shape: { maxChars: 200 } });
  return client.close();
});

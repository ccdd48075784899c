// Issue 24, the pipeline's promises against a hostile server: shaping comes last in the hub,
// the listing hooks decide a call over the whole listing, completions and subscriptions obey
// the prompt and resource rules, and a governed client's raw requests are governed too.
import { createClient } from "../../client/client.ts";
import { hub } from "../../hub/hub.ts";
import type { ShapedResult } from "../../governance/shape.ts";
import type { Tool, ToolResult } from "../../client/types.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { isTask } from "../../protocol/tasks.ts";
import type { Transport } from "../../transports/transport.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { FAST, mcpError, waitFor } from "../client/_helpers.ts";
import { calls, governed, server } from "../governance/_helpers.ts";

const redact = {
  afterCall: (result: ToolResult) => ({
    ...result,
    content: result.content.map((block) =>
      block.type === "text"
        ? { ...block, text: String(block.text).replace("s3cret", "[redacted]") }
        : block
    ),
  }),
};

function leaky() {
  return mockServer({
    serverInfo: { name: "leaky", version: "1.0.0" },
    tools: [
      { name: "dump", handler: () => "token=s3cret" },
      {
        name: "typed",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        handler: () => ({ n: "not a number" }),
      },
    ],
  });
}

test('item 6: the hub runs afterCall and the output check before shaping a shape: "llm" call', async () => {
  const leak = leaky();
  await using servers = hub({
    servers: { leak: leak.transport() },
    governance: { hooks: redact, validate: true },
  });
  await servers.listAllTools();
  const plain = await servers.callTool("leak__dump");
  assertEquals(plain.content[0].text, "token=[redacted]");
  const shaped = await servers.callTool("leak__dump", {}, {
    shape: "llm",
  }) as unknown as ShapedResult;
  assertEquals(shaped.text, "token=[redacted]");
  const bad = await mcpError(servers.callTool("leak__typed", {}, { shape: "llm" }));
  assertEquals(bad.reason, "invalid_output");
});

const topOne = { onToolsListed: (tools: Tool[]) => tools.slice(0, 1) };

test("item 8: a tool the listing hooks drop from the full listing cannot be called (client)", async () => {
  const mock = server();
  await using client = governed(mock, { hooks: topOne });
  const shown = await client.listAllTools();
  assertEquals(shown.map((t) => t.name), ["echo"]);
  const hidden = await mcpError(client.callTool("rm", { path: "/" }));
  assertEquals([hidden.kind, hidden.reason], ["not_found", "hidden_tool"]);
  assertEquals(calls(mock), 0);
  assertEquals((await client.callTool("echo", { message: "hi" })).content[0].text, "hi");
});

test("item 8: a tool the listing hooks drop from the full listing cannot be called (hub)", async () => {
  const mock = server();
  await using servers = hub({
    servers: { files: mock.transport() },
    governance: { hooks: topOne },
  });
  assertEquals((await servers.listAllTools()).map((t) => t.name), ["files__echo"]);
  const hidden = await mcpError(servers.callTool("files__rm", { path: "/" }));
  assertEquals([hidden.kind, hidden.reason], ["not_found", "hidden_tool"]);
  assertEquals(calls(mock), 0);
});

function completing() {
  return server({
    prompts: [{
      name: "secret_prompt",
      arguments: [{ name: "who" }],
      handler: () => "secret",
      complete: { who: ["alice-the-admin"] },
    }],
    templates: [{ uriTemplate: "secret://{id}", complete: { id: ["id-1"] } }],
  });
}

const denyPrompts = {
  policy: {
    rules: [
      { name: "no secret prompt", prompts: "secret_prompt", decision: "deny" as const },
      { name: "no secret resources", resources: "secret://*", decision: "deny" as const },
    ],
    scope: ["prompts" as const, "resources" as const],
  },
};

test("item 9: complete() obeys the prompt and resource rules; nothing is sent for a denied one", async () => {
  const mock = completing();
  await using client = governed(mock, denyPrompts);
  await client.ready();
  const prompt = await mcpError(client.complete({ prompt: "secret_prompt" }, ["who", "a"]));
  assertEquals([prompt.kind, prompt.reason], ["denied", "policy_denied"]);
  const resource = await mcpError(client.complete({ resource: "secret://{id}" }, ["id", "i"]));
  assertEquals([resource.kind, resource.reason], ["denied", "policy_denied"]);
  assertEquals(mock.requests.filter((r) => r.method === "completion/complete").length, 0);
});

test("item 9: subscribe and unsubscribe obey the resource rules (client and hub)", async () => {
  const mock = server({ resources: [{ uri: "secret://1", text: "s" }], eras: "legacy" });
  await using client = governed(mock, denyPrompts);
  await client.ready();
  const sub = await mcpError(client.subscribe("secret://1"));
  assertEquals([sub.kind, sub.reason], ["denied", "policy_denied"]);
  const unsub = await mcpError(client.unsubscribe("secret://1"));
  assertEquals([unsub.kind, unsub.reason], ["denied", "policy_denied"]);
  const other = server({ resources: [{ uri: "secret://1", text: "s" }], eras: "legacy" });
  await using servers = hub({ servers: { other: other.transport() }, governance: denyPrompts });
  await servers.ready();
  const hubSub = await mcpError(servers.subscribe("secret://1"));
  assertEquals([hubSub.kind, hubSub.reason], ["denied", "policy_denied"]);
  const sent = [...mock.requests, ...other.requests].filter((r) => r.method.includes("subscribe"));
  assertEquals(sent.length, 0);
});

test("item 11: a governed client's raw request() of tools/call, prompts/get and resources/read is governed", async () => {
  const mock = server();
  await using client = governed(mock, {
    tools: { deny: ["rm"] },
    policy: {
      rules: [
        { name: "no greet", prompts: "greet", decision: "deny" },
        { name: "no passwd", resources: "file:///etc/*", decision: "deny" },
      ],
      scope: ["prompts", "resources"],
    },
  });
  await client.ready();
  const tool = await mcpError(
    client.request("tools/call", { name: "rm", arguments: { path: "/" } }),
  );
  assertEquals(tool.reason, "hidden_tool");
  const prompt = await mcpError(client.request("prompts/get", { name: "greet", arguments: {} }));
  assertEquals(prompt.reason, "policy_denied");
  const read = await mcpError(client.request("resources/read", { uri: "file:///etc/passwd" }));
  assertEquals(read.reason, "policy_denied");
  const sent = mock.requests.filter((r) =>
    ["tools/call", "prompts/get", "resources/read"].includes(r.method)
  );
  assertEquals(sent.length, 0);
  const ok = await client.request("tools/call", { name: "echo", arguments: { message: "hi" } });
  assert(Array.isArray(ok.content));
});

function tasking(eras: "modern" | "legacy") {
  return mockServer({
    eras,
    tasks: { pollIntervalMs: 5 },
    tools: [
      { name: "dump", task: "optional", handler: () => "token=s3cret" },
      {
        name: "typed",
        task: "optional",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        handler: () => ({ n: "not a number" }),
      },
    ],
  });
}

for (const eras of ["modern", "legacy"] as const) {
  test(`item 7: a task: "return" call's awaited result passes the output check and afterCall (${eras}, client)`, async () => {
    const mock = tasking(eras);
    await using client = governed(mock, { hooks: redact, validate: true });
    const task = await client.callTool("dump", {}, { task: "return" });
    assert(isTask(task));
    assertEquals((await client.awaitTask(task)).content[0].text, "token=[redacted]");
    const typed = await client.callTool("typed", {}, { task: "return" });
    assert(isTask(typed));
    assertEquals((await mcpError(client.awaitTask(typed.taskId))).reason, "invalid_output");
    // A task this client's governed calls did not start has no stages to run: refused.
    assertEquals((await mcpError(client.awaitTask("not-mine"))).reason, "unknown_task");
  });

  test(`item 7: a task: "return" call's awaited result passes the output check and afterCall (${eras}, hub)`, async () => {
    const mock = tasking(eras);
    await using servers = hub({
      servers: { t: mock.transport() },
      governance: { hooks: redact, validate: true },
    });
    await servers.listAllTools();
    const task = await servers.callTool("t__dump", {}, { task: "return" });
    assert(isTask(task));
    assertEquals((await servers.awaitTask(task)).content[0].text, "token=[redacted]");
    const typed = await servers.callTool("t__typed", {}, { task: "return" });
    assert(isTask(typed));
    assertEquals((await mcpError(servers.awaitTask(typed))).reason, "invalid_output");
  });
}

test("item 10: a legacy task's input request gets the context of the caller that started it, not of another awaiter", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const mock = mockServer({
    eras: "legacy",
    tasks: { pollIntervalMs: 5 },
    tools: [{
      name: "ask",
      task: "optional",
      handler: async (_args, ctx) => {
        await gate;
        await ctx.elicit({ message: "who?", requestedSchema: { type: "object" } });
        return "asked";
      },
    }],
  });
  const seen: unknown[] = [];
  await using client = createClient({
    transport: mock.transport(),
    reconnect: FAST,
    handler: {
      elicitation(_params, ctx) {
        seen.push([ctx.assigns, ctx.principal]);
        return { action: "decline" };
      },
    },
  });
  let taskId: string | undefined;
  const first = client.callTool("ask", {}, {
    task: "await",
    assigns: { user: "ada" },
    principal: "ada",
    onStatus: (task) => taskId ??= task.taskId,
  });
  await waitFor(() => taskId !== undefined, "the task");
  // Another caller awaits the same task id with its own assigns.
  const second = client.awaitTask(taskId!, { assigns: { user: "mallory" } });
  await waitFor(
    () => mock.requests.filter((r) => r.method === "tasks/result").length >= 2,
    "two awaits",
  );
  release();
  assertEquals((await first).content[0].text, "asked");
  await second.catch(() => {});
  assertEquals(seen, [[{ user: "ada" }, "ada"]]);
});

for (const eras of ["modern", "legacy"] as const) {
  test(`item 11: a governed client's raw tasks/get and tasks/result hand back a task's result only through its stages (${eras})`, async () => {
    const mock = tasking(eras);
    await using client = governed(mock, { hooks: redact });
    const task = await client.callTool("dump", {}, { task: "return" });
    assert(isTask(task));
    await client.awaitTask(task);
    const method = eras === "modern" ? "tasks/get" : "tasks/result";
    const raw = await client.request(method, { taskId: task.taskId });
    const result = (eras === "modern" ? raw.result : raw) as ToolResult;
    assertEquals(result.content[0].text, "token=[redacted]");
    const foreign = await mcpError(client.request(method, { taskId: "not-mine" }));
    assertEquals(foreign.reason, "unknown_task");
  });
}

/** A transport whose server tags every elicitation with the related task `taskId`. */
function tagging(inner: Transport, taskId: string): Transport {
  return {
    kind: inner.kind,
    open: (sink) =>
      inner.open({
        ...sink,
        message(message) {
          if ("method" in message && message.method === "elicitation/create") {
            const params = { ...message.params } as JsonObject;
            params._meta = { "io.modelcontextprotocol/related-task": { taskId } };
            return sink.message({ ...message, params } as JsonRpcMessage);
          }
          sink.message(message);
        },
      }),
  };
}

test("item 10: a task id a legacy server hands out to two callers carries neither caller's context", async () => {
  const task = {
    taskId: "same",
    status: "working",
    createdAt: new Date().toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    ttl: 60_000,
  };
  const mock = mockServer({
    eras: "legacy",
    tools: [{ name: "t", task: "optional", handler: () => "x" }],
    methods: {
      "tools/call": () => ({ task }),
      "tasks/get": () => task,
      "tasks/result": async (_params, ctx) => {
        await ctx.elicit({ message: "who?", requestedSchema: { type: "object" } });
        return { content: [{ type: "text", text: "done" }] };
      },
    },
  });
  const seen: unknown[] = [];
  await using client = createClient({
    transport: tagging(mock.transport(), "same"),
    reconnect: FAST,
    handler: {
      elicitation(_params, ctx) {
        seen.push([ctx.assigns, ctx.principal]);
        return { action: "decline" };
      },
    },
  });
  const a = await client.callTool("t", {}, {
    task: "return",
    assigns: { user: "ada" },
    principal: "ada",
  });
  const b = await client.callTool("t", {}, { task: "return", assigns: { user: "mallory" } });
  assert(isTask(a) && isTask(b) && a.taskId === b.taskId);
  assertEquals(
    (await client.awaitTask("same", { assigns: { user: "mallory" } })).content[0].text,
    "done",
  );
  assertEquals(seen, [[undefined, undefined]]);
});

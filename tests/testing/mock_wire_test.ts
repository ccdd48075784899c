// mockServer at the wire: tasks on both wires, ttlMs/cacheScope, MRTR rounds, capability
// errors, raw method handlers, and the stdio script.
import { connect } from "../../client/connect.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { type MockServer, mockServer, mockStdio } from "../../testing/mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { waitFor } from "../client/_helpers.ts";
import { fullDefinition } from "./_definition.ts";

const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";

/** A raw link to `server`: `ask` sends a request and resolves with its answer. */
async function rawLink(server: MockServer) {
  const seen: JsonRpcMessage[] = [];
  const waiting = new Map<unknown, (m: JsonObject) => void>();
  const link = await server.transport().open({
    message(message) {
      seen.push(message);
      if (!("method" in message) && "id" in message) {
        waiting.get(message.id)?.(message as unknown as JsonObject);
      }
    },
    closed() {},
  });
  let next = 0;
  const ask = (method: string, params: JsonObject = {}) => {
    const id = ++next;
    const answer = new Promise<JsonObject>((resolve) => waiting.set(id, resolve));
    void link.send({ jsonrpc: "2.0", id, method, params });
    return answer;
  };
  return { link, seen, ask };
}

function meta(capabilities: JsonObject = {}): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

test("mockServer: a modern task over the tasks extension (task result, tasks/get, tasks/cancel)", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = mockServer({
    tools: [
      { name: "long", task: "optional", handler: async () => (await gate, "finished") },
      { name: "must", task: "required", handler: () => "x" },
    ],
  });
  const { ask, seen } = await rawLink(server);
  const discover = await ask("server/discover", { _meta: meta() });
  assertEquals((discover.result as JsonObject).capabilities, {
    logging: {},
    tools: { listChanged: true },
    extensions: { [TASKS]: {} },
  });
  const withTasks = meta({ extensions: { [TASKS]: {} } });
  const created = (await ask("tools/call", { name: "long", _meta: withTasks }))
    .result as JsonObject;
  assertEquals([created.resultType, created.status, typeof created.ttlMs], [
    "task",
    "working",
    "number",
  ]);
  const taskId = created.taskId as string;
  const working = (await ask("tasks/get", { taskId, _meta: withTasks })).result as JsonObject;
  assertEquals([working.resultType, working.status], ["complete", "working"]);
  // A listen that follows the task hears of its end.
  void ask("subscriptions/listen", { notifications: { taskIds: [taskId] }, _meta: withTasks });
  await waitFor(
    () => seen.some((m) => "method" in m && m.method.endsWith("acknowledged")),
    "the ack",
  );
  release();
  await waitFor(
    () => seen.some((m) => "method" in m && m.method === "notifications/tasks"),
    "the push",
  );
  const pushed = seen.find((m) => "method" in m && m.method === "notifications/tasks") as {
    params: JsonObject;
  };
  assertEquals([pushed.params.taskId, pushed.params.status], [taskId, "completed"]);
  assertEquals(pushed.params.result, { content: [{ type: "text", text: "finished" }] });
  await waitFor(() => server.tasks()[0].status === "completed", "the task to complete");
  const done = (await ask("tasks/get", { taskId, _meta: withTasks })).result as JsonObject;
  assertEquals(done.result, { content: [{ type: "text", text: "finished" }] });
  assertEquals(
    ((await ask("tasks/cancel", { taskId, _meta: withTasks })).result as JsonObject).resultType,
    "complete",
  );
  // Without the extension: the optional tool runs at once, the required one is -32021.
  const direct = (await ask("tools/call", { name: "long", _meta: meta() })).result as JsonObject;
  assertEquals(direct.resultType, "complete");
  const refused = (await ask("tools/call", { name: "must", _meta: meta() })).error as JsonObject;
  assertEquals(refused.code, -32021);
  assertEquals((await ask("tasks/get", { taskId: "nope", _meta: withTasks })).error, {
    code: -32602,
    message: "Unknown task: nope",
  });
});

test("mockServer: a legacy 2025-11-25 task (task param, tasks/get, blocking tasks/result, list, cancel)", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = mockServer({
    eras: "legacy",
    tools: [
      { name: "long", task: "optional", handler: async () => (await gate, "finished") },
      {
        name: "hang",
        task: "optional",
        handler: (_args, ctx) =>
          new Promise((resolve) => ctx.signal.addEventListener("abort", resolve)),
      },
    ],
  });
  const legacyLink = await rawLink(server);
  const { ask } = legacyLink;
  const init = (await ask("initialize", { protocolVersion: "2025-11-25", capabilities: {} }))
    .result as JsonObject;
  assertEquals((init.capabilities as JsonObject).tasks, {
    list: {},
    cancel: {},
    requests: { tools: { call: {} } },
  });
  const listed = (await ask("tools/list")).result as JsonObject;
  assertEquals((listed.tools as JsonObject[])[0].execution, { taskSupport: "optional" });
  const created =
    ((await ask("tools/call", { name: "long", task: { ttl: 5_000 } })).result as JsonObject)
      .task as JsonObject;
  assertEquals([created.status, created.ttl], ["working", 5_000]);
  const taskId = created.taskId as string;
  assertEquals(((await ask("tasks/get", { taskId })).result as JsonObject).status, "working");
  const result = ask("tasks/result", { taskId });
  release();
  const final = (await result).result as JsonObject;
  const status = legacyLink.seen.find((m) =>
    "method" in m && m.method === "notifications/tasks/status"
  );
  assertEquals((status as { params: JsonObject } | undefined)?.params.status, "completed");
  assertEquals(final.content, [{ type: "text", text: "finished" }]);
  assertEquals((final._meta as JsonObject)["io.modelcontextprotocol/related-task"], { taskId });
  assertEquals((((await ask("tasks/list")).result as JsonObject).tasks as JsonObject[]).length, 1);
  assertEquals(((await ask("tasks/cancel", { taskId })).error as JsonObject).code, -32602);
  // A second task, cancelled while it works.
  const again = ((await ask("tools/call", { name: "hang", task: {} })).result as JsonObject)
    .task as JsonObject;
  const cancelled = (await ask("tasks/cancel", { taskId: again.taskId })).result as JsonObject;
  assertEquals(cancelled.status, "cancelled");
});

test("mockServer: ttlMs/cacheScope on modern cacheable results only, per method when asked", async () => {
  const server = mockServer({
    ...fullDefinition(),
    cache: (method) => ({
      ttlMs: method === "tools/list" ? 5 : 1_000,
      cacheScope: method === "resources/read" ? "private" : "public",
    }),
  });
  const { ask } = await rawLink(server);
  const tools = (await ask("tools/list", { _meta: meta() })).result as JsonObject;
  assertEquals([tools.ttlMs, tools.cacheScope, tools.resultType], [5, "public", "complete"]);
  const read = (await ask("resources/read", { uri: "mem://a", _meta: meta() }))
    .result as JsonObject;
  assertEquals([read.ttlMs, read.cacheScope], [1_000, "private"]);
  const call = (await ask("tools/call", { name: "echo", arguments: { text: "x" }, _meta: meta() }))
    .result as JsonObject;
  assertEquals("ttlMs" in call, false);
  assertEquals((call._meta as JsonObject)["io.modelcontextprotocol/serverInfo"], {
    name: "full-mock",
    version: "2.0.0",
  });
  const legacy = await rawLink(mockServer(fullDefinition()));
  await legacy.ask("initialize", { protocolVersion: "2025-06-18", capabilities: {} });
  const old = (await legacy.ask("tools/list")).result as JsonObject;
  assertEquals(["ttlMs" in old, "resultType" in old], [false, false]);
});

test("mockServer: MRTR rounds carry inputRequests and a requestState; undeclared input is -32021", async () => {
  const server = mockServer(fullDefinition());
  const { ask } = await rawLink(server);
  const caps = { elicitation: {}, sampling: {}, roots: {} };
  const first = (await ask("tools/call", { name: "ask", _meta: meta(caps) })).result as JsonObject;
  assertEquals(first.resultType, "input_required");
  assertEquals(Object.keys(first.inputRequests as JsonObject), ["input_1", "input_2"]);
  const inputResponses = {
    input_1: { action: "accept", content: { name: "Bo" } },
    input_2: { role: "assistant", model: "m", content: { type: "text", text: "hey" } },
  };
  const second = (await ask("tools/call", {
    name: "ask",
    inputResponses,
    requestState: first.requestState,
    _meta: meta(caps),
  })).result as JsonObject;
  assertEquals(Object.values(second.inputRequests as JsonObject), [{ method: "roots/list" }]);
  const third = (await ask("tools/call", {
    name: "ask",
    inputResponses: { input_3: { roots: [{ uri: "file:///r" }] } },
    requestState: second.requestState,
    _meta: meta(caps),
  })).result as JsonObject;
  assertEquals(third.content, [{ type: "text", text: "Bo hey file:///r" }]);
  const refused = (await ask("tools/call", { name: "ask", _meta: meta({ roots: {} }) }))
    .error as JsonObject;
  assertEquals(refused.code, -32021);
  assertEquals(refused.data, { requiredCapabilities: { elicitation: {}, sampling: {} } });
});

test("mockServer: raw method handlers answer first, errors keep their code; unknown methods are -32601", async () => {
  const server = mockServer({
    methods: {
      "tools/list": () => ({
        tools: [{ name: "odd", inputSchema: { type: "object" } }],
        nextCursor: "x",
      }),
      "custom/thing": () => {
        throw Object.assign(new Error("no such thing"), { code: -32099, data: { why: 1 } });
      },
    },
  });
  const { ask } = await rawLink(server);
  const tools = (await ask("tools/list", { _meta: meta() })).result as JsonObject;
  assertEquals([(tools.tools as JsonObject[])[0].name, tools.nextCursor], ["odd", "x"]);
  assertEquals((await ask("custom/thing", { _meta: meta() })).error, {
    code: -32099,
    message: "no such thing",
    data: { why: 1 },
  });
  assertEquals(((await ask("nothing/here", { _meta: meta() })).error as JsonObject).code, -32601);
  // Without _meta a dual-era server reads the request as legacy, and no session was initialized.
  assertEquals(((await ask("tools/list", {})).error as JsonObject).code, -32600);
  const modernOnly = await rawLink(mockServer({ eras: "modern" }));
  assertEquals(((await modernOnly.ask("tools/list", {})).error as JsonObject).code, -32602);
  assertEquals(server.requests.map((r) => r.method).at(-1), "tools/list");
});

test("mockStdio: the definition module served over stdio, in both eras", async () => {
  const module = new URL("./_definition.ts", import.meta.url);
  for (const protocol of ["modern", "legacy"] as const) {
    await using client = await connect(mockStdio(module), { protocol, reconnect: false });
    assertEquals(client.era(), protocol);
    assertEquals(client.serverInfo().serverInfo?.name, "full-mock");
    const result = await client.callTool("echo", { text: `over stdio (${protocol})` });
    assertEquals(result.content, [{ type: "text", text: `over stdio (${protocol})` }]);
    assertEquals((await client.listAllTools()).length, 6);
  }
  const { command, args } = mockStdio(module);
  assert(command.length > 0 && args.at(-1) === module.href);
});

test("mockServer: input during a task (modern tasks/update; legacy requests tagged with the task)", async () => {
  const asking = {
    name: "confirm",
    task: "optional" as const,
    handler: async (_args: unknown, ctx: { elicit(p: JsonObject): Promise<JsonObject> }) => {
      const answer = await ctx.elicit({ message: "Sure?", requestedSchema: { type: "object" } });
      return `answered ${String(answer.action)}`;
    },
  };
  const modern = mockServer({ tools: [asking] });
  const { ask } = await rawLink(modern);
  const caps = meta({ elicitation: {}, extensions: { [TASKS]: {} } });
  const created = (await ask("tools/call", { name: "confirm", _meta: caps })).result as JsonObject;
  const taskId = created.taskId as string;
  await waitFor(() => modern.tasks()[0].status === "input_required", "the task to ask");
  const waiting = (await ask("tasks/get", { taskId, _meta: caps })).result as JsonObject;
  assertEquals(waiting.inputRequests, {
    input_1: {
      method: "elicitation/create",
      params: { message: "Sure?", requestedSchema: { type: "object" } },
    },
  });
  const update = { taskId, inputResponses: { input_1: { action: "accept" } }, _meta: caps };
  assertEquals(((await ask("tasks/update", update)).result as JsonObject).resultType, "complete");
  await waitFor(() => modern.tasks()[0].status === "completed", "the task to complete");
  const done = (await ask("tasks/get", { taskId, _meta: caps })).result as JsonObject;
  assertEquals(done.result, { content: [{ type: "text", text: "answered accept" }] });

  const legacy = mockServer({ eras: "legacy", tools: [asking] });
  const raw = await rawLink(legacy);
  await raw.ask("initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} } });
  const task = ((await raw.ask("tools/call", { name: "confirm", task: {} })).result as JsonObject)
    .task as JsonObject;
  await waitFor(
    () => raw.seen.some((m) => "method" in m && m.method === "elicitation/create"),
    "the request",
  );
  const request = raw.seen.find((m) => "method" in m && m.method === "elicitation/create")!;
  assertEquals(
    ((request as { params: JsonObject }).params._meta as JsonObject)[
      "io.modelcontextprotocol/related-task"
    ],
    { taskId: task.taskId },
  );
  await raw.link.send({
    jsonrpc: "2.0",
    id: (request as { id: string }).id,
    result: { action: "decline" },
  });
  const result = (await raw.ask("tasks/result", { taskId: task.taskId })).result as JsonObject;
  assertEquals(result.content, [{ type: "text", text: "answered decline" }]);
});

test("mockServer's fetch handler: the modern statuses, header checks, sessions, auth", async () => {
  const server = mockServer({ ...fullDefinition(), eras: "modern" });
  const post = (body: JsonObject, headers: Record<string, string> = {}) =>
    server.fetch(
      new Request("http://mock.test/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      }),
    );
  const modernHeaders = { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" };
  const ok = await post({ id: 1, method: "tools/list", params: { _meta: meta() } }, modernHeaders);
  assertEquals([ok.status, ok.headers.get("content-type")?.startsWith("application/json")], [
    200,
    true,
  ]);
  assertEquals(((await ok.json()).result as JsonObject).cacheScope, "public");
  const mismatch = await post({ id: 2, method: "tools/list", params: { _meta: meta() } }, {
    ...modernHeaders,
    "mcp-method": "prompts/list",
  });
  assertEquals([mismatch.status, (await mismatch.json()).error.code], [400, -32020]);
  const bare = await post({ id: 3, method: "tools/list" });
  assertEquals([bare.status, (await bare.json()).error.code], [400, -32602]);
  const unknown = await post({ id: 4, method: "nope/nope", params: { _meta: meta() } }, {
    ...modernHeaders,
    "mcp-method": "nope/nope",
  });
  assertEquals([unknown.status, (await unknown.json()).error.code], [404, -32601]);
  assertEquals((await server.fetch(new Request("http://mock.test/mcp"))).status, 405);
  // Progress before the answer: an event stream.
  const slow = await post({
    id: 5,
    method: "tools/call",
    params: { name: "slow", _meta: { ...meta(), progressToken: "t" } },
  }, { ...modernHeaders, "mcp-method": "tools/call", "mcp-name": "slow" });
  assertEquals(slow.headers.get("content-type"), "text/event-stream");
  const events = (await slow.text()).split("\n\n").filter(Boolean);
  assertEquals(events.length, 4, "three progress notifications, then the result");

  const legacy = mockServer({ eras: "legacy" });
  const stale = await legacy.fetch(
    new Request("http://mock.test/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-session-id": "gone" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    }),
  );
  assertEquals(stale.status, 404);
  const guarded = legacy.http({ bearer: "secret-token-123" });
  const denied = await guarded(new Request("http://mock.test/mcp", { method: "POST", body: "{}" }));
  assertEquals([denied.status, denied.headers.get("www-authenticate")], [
    401,
    'Bearer realm="mock"',
  ]);
});

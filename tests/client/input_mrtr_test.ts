// Modern multi round-trip requests (MRTR) against the two-era fixture, in-process and over
// HTTP: the handler answers each round, retries carry a new id, the original params, the
// answers under the same keys and the exact requestState; limits, isolation and failures.
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient } from "../../client/types.ts";
import type { ClientHandler, HandlerContext } from "../../protocol/capabilities.ts";
import { McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { inProcess, type InProcessServer } from "../../transports/in_process.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import type { Transport } from "../../transports/transport.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { readState, type Round } from "../fixtures/_mrtr.ts";
import { createFixtureServer, type FixtureServer } from "../fixtures/server.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { FAST, mcpError, metaOf, requests, wrapTransport } from "./_helpers.ts";

const FORM = {
  method: "elicitation/create",
  params: {
    message: "Who are you?",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" }, team: { type: "string", default: "core" } },
      required: ["name"],
    },
  },
};
const SAMPLE = {
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 9 },
};
const ROOTS = { method: "roots/list" };

/** A handler that records every call with its context. */
function recordingHandler() {
  const calls: { kind: string; params?: JsonObject; ctx: HandlerContext }[] = [];
  const handler: ClientHandler = {
    sampling(params, ctx) {
      calls.push({ kind: "sampling", params, ctx });
      return { role: "assistant", content: { type: "text", text: "4" }, model: "stub-1" };
    },
    elicitation(params, ctx) {
      calls.push({ kind: "elicitation", params, ctx });
      return {
        action: "accept",
        content: {
          name: `ada-${
            ctx.request?.params.arguments && (ctx.request.params.arguments as JsonObject).tag
          }`,
        },
      };
    },
    listRoots(ctx) {
      calls.push({ kind: "roots", ctx });
      return [{ uri: "file:///work", name: "work" }];
    },
  };
  return { calls, handler };
}

/** A transport that records what the server sent, and lets a test change what is sent. */
function tapped(server: InProcessServer, onSend?: (message: JsonRpcMessage) => void) {
  const received: JsonRpcMessage[] = [];
  const inner = wrapTransport(inProcess(server), { onSend });
  const transport: Transport = {
    kind: inner.kind,
    open: (sink) =>
      inner.open({
        ...sink,
        message(message) {
          received.push(message);
          sink.message(message);
        },
      }),
  };
  return { transport, received };
}

function client(transport: Transport, options: Partial<ClientOptions> = {}): McpClient {
  return createClient({ transport, reconnect: FAST, ...options });
}

function answerOf(text: unknown): { rounds: (JsonObject | null)[]; tag: string | null } {
  return JSON.parse(String(text));
}

function callsOf(server: FixtureServer): JsonObject[] {
  return requests(server, "tools/call").map((m) => m.params as JsonObject);
}

test("MRTR: elicitation, sampling and roots over three rounds of one call", async () => {
  const server = createFixtureServer();
  const { transport, received } = tapped(server);
  const { calls, handler } = recordingHandler();
  await using c = client(transport, { handler });
  const args = { plan: [{ who: FORM }, { math: SAMPLE, where: ROOTS }, {}], tag: "t1" };
  const result = await c.callTool("mrtr", args, { assigns: { user: 7 }, principal: "alice" });

  assertEquals(answerOf(result.content[0].text), {
    rounds: [
      // SEP-1034: "team" was left out by the handler and filled from the schema's default.
      { who: { action: "accept", content: { name: "ada-t1", team: "core" } } },
      {
        math: { role: "assistant", content: { type: "text", text: "4" }, model: "stub-1" },
        where: { roots: [{ uri: "file:///work", name: "work" }] },
      },
      null,
    ],
    tag: "t1",
  });

  // The handler saw each request, with the call's context.
  assertEquals(calls.map((call) => call.kind), ["elicitation", "sampling", "roots"]);
  assertEquals(calls[0].params, FORM.params);
  for (const { ctx } of calls) {
    assertEquals(ctx.era, "modern");
    assertEquals(ctx.protocolVersion, "2026-07-28");
    assertEquals(ctx.request, { method: "tools/call", params: { name: "mrtr", arguments: args } });
    assertEquals(ctx.assigns, { user: 7 });
    assertEquals(ctx.principal, "alice");
    assert(ctx.signal instanceof AbortSignal && !ctx.signal.aborted);
  }

  // On the wire: four requests, each a new id with its own full _meta, the original
  // params, and (on retries) the answers under the server's keys and its exact state.
  const sent = requests(server, "tools/call");
  assertEquals(sent.length, 4);
  assertEquals(new Set(sent.map((m) => m.id)).size, 4, "a new JSON-RPC id for every retry");
  const interim = received.filter((m) =>
    "result" in m && (m.result as JsonObject).resultType === "input_required"
  ).map((m) => (m as { result: JsonObject }).result);
  assertEquals(interim.length, 3);
  for (const [i, message] of sent.entries()) {
    const params = message.params as JsonObject;
    assertEquals([params.name, params.arguments], ["mrtr", args]);
    const meta = metaOf(message);
    assertEquals(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assertEquals(meta["io.modelcontextprotocol/clientCapabilities"], {
      sampling: {},
      elicitation: { form: {}, url: {} },
      roots: {},
    });
    assert(meta["io.modelcontextprotocol/clientInfo"] !== undefined, "clientInfo on every round");
    if (i === 0) {
      assert(!("inputResponses" in params) && !("requestState" in params), "a plain first call");
      continue;
    }
    const before = interim[i - 1];
    assertEquals(params.requestState, before.requestState, "requestState echoed exactly");
    const keys = Object.keys((before.inputRequests ?? {}) as JsonObject);
    if (keys.length === 0) {
      assert(!("inputResponses" in params), "a state-only round is retried without answers");
    } else {
      assertEquals(Object.keys(params.inputResponses as JsonObject).sort(), keys.sort());
      for (const value of Object.values(params.inputResponses as JsonObject)) {
        assert(!("resultType" in (value as JsonObject)), "bare results, no resultType");
      }
    }
  }
  assertStringIncludes(String(interim[0].requestState), "ünïcødé", "the state is not ASCII");
});

test("MRTR: a handler changing ctx.request does not change the retry", async () => {
  const server = createFixtureServer();
  await using c = client(inProcess(server), {
    handler: {
      listRoots(ctx) {
        const args = ctx.request!.params.arguments as JsonObject;
        args.tag = "changed";
        ctx.request!.params.name = "echo";
        return [];
      },
    },
  });
  const args = { plan: [{ where: ROOTS }], tag: "kept" };
  const result = await c.callTool("mrtr", args);
  assertEquals(answerOf(result.content[0].text).tag, "kept");
  assertEquals(args.tag, "kept", "the caller's arguments are untouched");
  assertEquals(callsOf(server).map((p) => [p.name, (p.arguments as JsonObject).tag]), [
    ["mrtr", "kept"],
    ["mrtr", "kept"],
  ]);
});

test("MRTR: a state-only round is retried at once, without the handler", async () => {
  const server = createFixtureServer();
  const { calls, handler } = recordingHandler();
  await using c = client(inProcess(server), { handler });
  const result = await c.callTool("mrtr", { plan: [{}, {}] });
  assertEquals(answerOf(result.content[0].text).rounds, [null, null]);
  assertEquals(calls.length, 0);
  assertEquals(callsOf(server).length, 3);
});

test("MRTR: without a requestState the retry carries none", async () => {
  const server = createFixtureServer();
  const { handler } = recordingHandler();
  await using c = client(inProcess(server), { handler });
  const result = await c.callTool("mrtr", { plan: [{ where: ROOTS }], state: false });
  assertEquals(answerOf(result.content[0].text).rounds, [{
    where: { roots: [{ uri: "file:///work", name: "work" }] },
  }]);
  const [first, retry] = callsOf(server);
  assert(!("requestState" in first) && !("requestState" in retry));
  assert("inputResponses" in retry);
});

test("MRTR: getPrompt and readResource; nothing of a retry is cached", async () => {
  const server = createFixtureServer();
  const { calls, handler } = recordingHandler();
  await using c = client(inProcess(server), { handler });
  const prompt = await c.getPrompt("mrtr", { plan: [{ who: FORM }], tag: "p" }, {
    assigns: { from: "prompt" },
  });
  assertEquals(answerOf(prompt.messages[0].content.text).rounds[0], {
    who: { action: "accept", content: { name: "ada-p", team: "core" } },
  });
  assertEquals(calls[0].ctx.request?.method, "prompts/get");
  assertEquals(calls[0].ctx.assigns, { from: "prompt" });

  // The resource's final result says it may be cached for a minute: it is not.
  for (let i = 0; i < 2; i++) {
    const read = await c.readResource("mrtr://roots");
    assertEquals(answerOf(read.contents[0].text).rounds[0], {
      where: { roots: [{ uri: "file:///work", name: "work" }] },
    });
  }
  assertEquals(requests(server, "resources/read").length, 4, "two full rounds, twice");
  assertEquals(calls.filter((call) => call.kind === "roots").length, 2);
  assertEquals(
    (await mcpError(Promise.resolve().then(() => c.cachedTools()))).reason,
    "not_cached",
  );
  assertEquals(requests(server, "tools/list").length, 0);
});

test("MRTR: maxRounds bounds the rounds of one call (too_many_rounds)", async () => {
  const plan = (n: number): Round[] => Array.from({ length: n }, () => ({ where: ROOTS }));
  const { handler } = recordingHandler();
  {
    const server = createFixtureServer();
    await using c = client(inProcess(server), { handler, maxRounds: 3 });
    const ok = await c.callTool("mrtr", { plan: plan(3) });
    assertEquals(answerOf(ok.content[0].text).rounds.length, 3);
    const error = await mcpError(c.callTool("mrtr", { plan: plan(4) }));
    assertEquals([error.kind, error.reason], ["protocol", "too_many_rounds"]);
    assertEquals(callsOf(server).length, 4 + 4, "4 + 3 retries; the 4th round is not answered");
  }
  {
    const server = createFixtureServer();
    await using c = client(inProcess(server), { handler });
    await c.callTool("mrtr", { plan: plan(8) });
    const error = await mcpError(c.callTool("mrtr", { plan: plan(9) }));
    assertEquals(error.reason, "too_many_rounds", "the default is 8");
    assertEquals((error.data as JsonObject).maxRounds, 8);
  }
});

test("MRTR: parallel calls keep their rounds to themselves", async () => {
  const server = createFixtureServer();
  const delays: Record<string, number> = { a: 30, b: 5 };
  const seenStates: string[] = [];
  const handler: ClientHandler = {
    async elicitation(_params, ctx) {
      const tag = String((ctx.request?.params.arguments as JsonObject).tag);
      await new Promise((resolve) => setTimeout(resolve, delays[tag]));
      return { action: "accept", content: { name: tag } };
    },
  };
  const { transport } = tapped(server, (message) => {
    const params = "params" in message ? message.params : undefined;
    if (typeof params?.requestState === "string") seenStates.push(params.requestState);
  });
  await using c = client(transport, { handler });
  const plan = [{ who: FORM }, { again: FORM }];
  const [a, unrelated, b] = await Promise.all([
    c.callTool("mrtr", { plan, tag: "a" }),
    c.callTool("echo", { message: "between" }),
    c.callTool("mrtr", { plan, tag: "b" }),
  ]);
  for (const [result, tag] of [[a, "a"], [b, "b"]] as const) {
    const answer = answerOf(result.content[0].text);
    assertEquals(answer.tag, tag);
    assertEquals(answer.rounds, [
      { who: { action: "accept", content: { name: tag, team: "core" } } },
      { again: { action: "accept", content: { name: tag, team: "core" } } },
    ]);
  }
  assertEquals(unrelated.content[0].text, "between");
  // Every retry echoed a state the server minted for that same call.
  for (const params of callsOf(server)) {
    const tag = (params.arguments as JsonObject).tag;
    if (params.requestState !== undefined) {
      assertEquals(readState(params.requestState)?.tag, tag);
    }
    if (params.name === "echo") {
      assert(
        !("inputResponses" in params) && !("requestState" in params),
        "unrelated call is clean",
      );
    }
  }
  assertEquals(seenStates.length, 4);
});

test("MRTR: a tampered or missing requestState is refused by the server, and surfaced", async () => {
  const { handler } = recordingHandler();
  for (
    const [name, change, message] of [
      ["tampered", (p: JsonObject) => p.requestState = `${p.requestState}x`, "verification"],
      ["missing", (p: JsonObject) => delete p.requestState, "missing"],
    ] as const
  ) {
    const server = createFixtureServer();
    const { transport } = tapped(server, (sent) => {
      const params = "params" in sent ? sent.params : undefined;
      if (params && "requestState" in params) change(params);
    });
    await using c = client(transport, { handler });
    const error = await mcpError(c.callTool("mrtr", { plan: [{ where: ROOTS }] }));
    assertEquals([error.kind, error.code], ["server", -32602], name);
    assertStringIncludes(error.message, message);
    assertEquals((await c.callTool("echo", { message: "still up" })).content[0].text, "still up");
  }
});

test("MRTR: a failing handler fails the call cleanly, and sends no half answer", async () => {
  const server = createFixtureServer();
  const boom = new Error("the model is down");
  const denied = new McpError("The user said no", { kind: "denied", reason: "user" });
  let rootsCalls = 0;
  const handlers: [string, ClientHandler, string, string | undefined][] = [
    [
      "throws",
      {
        sampling: () => {
          throw boom;
        },
        listRoots: () => (rootsCalls++, []),
      },
      "protocol",
      "handler_failed",
    ],
    [
      "McpError passes",
      { sampling: () => Promise.reject(denied), listRoots: () => [] },
      "denied",
      "user",
    ],
    [
      "invalid answer",
      { sampling: () => ({ text: "no shape" }), listRoots: () => [] },
      "protocol",
      "invalid_handler_result",
    ],
  ];
  for (const [name, handler, kind, reason] of handlers) {
    await using c = client(inProcess(server), { handler });
    const before = callsOf(server).length;
    const error = await mcpError(c.callTool("mrtr", { plan: [{ math: SAMPLE, where: ROOTS }] }));
    assertEquals([error.kind, error.reason], [kind, reason], name);
    if (name === "throws") assertEquals(error.cause, boom);
    if (name === "McpError passes") assertEquals(error, denied);
    assertEquals(callsOf(server).length - before, 1, `${name}: no retry was sent`);
    assertEquals((await c.callTool("echo", { message: "ok" })).content[0].text, "ok");
  }
  assertEquals(rootsCalls, 0, "sampling failed first: roots were never asked");
});

test("MRTR: an input the client cannot give fails with protocol/unsupported_input", async () => {
  const server = createFixtureServer();
  const cases: [string, Round, Partial<ClientOptions>][] = [
    ["no handler at all", { where: ROOTS }, {}],
    ["sampling not declared", { where: ROOTS, math: SAMPLE }, { handler: { listRoots: () => [] } }],
    ["unknown method", { task: { method: "tasks/get", params: {} } }, {
      handler: { listRoots: () => [] },
    }],
    ["URL elicitation not declared", {
      go: { method: "elicitation/create", params: { mode: "url", message: "m", url: "https://x" } },
    }, { handler: { elicitation: () => ({ action: "accept" }) }, elicitationUrl: false }],
    ["sampling tools not declared", {
      math: { method: "sampling/createMessage", params: { ...SAMPLE.params, tools: [] } },
    }, { handler: { sampling: () => ({ role: "assistant", content: {}, model: "m" }) } }],
  ];
  for (const [name, round, options] of cases) {
    let asked = 0;
    const handler = options.handler && Object.fromEntries(
      Object.entries(options.handler).map(([key, fn]) => [key, (...args: unknown[]) => {
        asked++;
        return (fn as (...a: unknown[]) => unknown)(...args);
      }]),
    );
    await using c = client(inProcess(server), { ...options, handler });
    const before = callsOf(server).length;
    const error = await mcpError(c.callTool("mrtr", { plan: [round] }));
    assertEquals([error.kind, error.reason], ["protocol", "unsupported_input"], name);
    assertEquals(asked, 0, `${name}: no handler ran (no half answer)`);
    assertEquals(callsOf(server).length - before, 1, `${name}: no retry`);
  }
  // With sampling.tools declared, the same request is answered.
  await using c = client(inProcess(server), {
    samplingTools: true,
    handler: {
      sampling: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
    },
  });
  await c.callTool("mrtr", {
    plan: [{ math: { method: "sampling/createMessage", params: { ...SAMPLE.params, tools: [] } } }],
  });
});

test("MRTR: the caller's signal and maxTotalTimeout stop a waiting handler", async () => {
  const server = createFixtureServer();
  const seen: AbortSignal[] = [];
  const handler: ClientHandler = {
    listRoots: (ctx) =>
      new Promise((_, reject) => {
        seen.push(ctx.signal);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
      }),
  };
  await using c = client(inProcess(server), { handler });
  const controller = new AbortController();
  const pending = c.callTool("mrtr", { plan: [{ where: ROOTS }] }, { signal: controller.signal });
  while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
  controller.abort(new Error("user left"));
  const cancelled = await mcpError(pending);
  assertEquals([cancelled.kind, cancelled.reason], ["cancelled", "aborted"]);
  assert(seen[0].aborted);

  const timedOut = await mcpError(
    c.callTool("mrtr", { plan: [{ where: ROOTS }] }, { maxTotalTimeout: 50 }),
  );
  assertEquals([timedOut.kind, timedOut.reason], ["timeout", "max_total_timeout"]);
  assert(seen[1].aborted);
  assertEquals(callsOf(server).length, 2, "neither call was retried");
});

test("MRTR: input_required is invalid outside the three methods, and malformed ones fail", async () => {
  const server = mockServer({
    eras: "modern",
    capabilities: { tools: {} },
    methods: {
      "tools/list": () => ({ resultType: "input_required", requestState: "s" }),
      "tools/call": () => ({ resultType: "input_required" }), // neither inputRequests nor requestState
    },
  });
  await using c = client(server.transport(), { handler: { listRoots: () => [] } });
  const list = await mcpError(c.listTools());
  assertEquals([list.kind, list.reason], ["protocol", "unexpected_input_required"]);
  const call = await mcpError(c.callTool("anything", {}));
  assertEquals([call.kind, call.reason], ["protocol", "invalid_result"]);
  // request() has no driver: it reports the interim result.
  const raw = await mcpError(c.request("tools/call", { name: "x" }));
  assertEquals([raw.kind, raw.reason], ["protocol", "input_required"]);
  assertEquals((raw.data as JsonObject).resultType, "input_required");
});

test("MRTR over Streamable HTTP: rounds on separate POSTs, state echoed", async () => {
  await using fixture = await startHttpFixture();
  const { calls, handler } = recordingHandler();
  await using c = createClient({
    transport: streamableHttp(fixture.url),
    handler,
    reconnect: FAST,
  });
  const result = await c.callTool("mrtr", { plan: [{ who: FORM }, { where: ROOTS }], tag: "h" });
  assertEquals(answerOf(result.content[0].text).rounds.length, 2);
  assertEquals(calls.map((call) => call.kind), ["elicitation", "roots"]);
  const posts = fixture.requests.filter((r) => r.headers["mcp-method"] === "tools/call");
  assertEquals(posts.length, 3);
  for (const post of posts) assertEquals(post.headers["mcp-name"], "mrtr");
  const states = posts.map((p) => ((p.body as JsonObject).params as JsonObject).requestState);
  assertEquals(states[0], undefined);
  assertEquals(readState(states[2])?.round, 1);
});

// Legacy server-to-client requests (sampling, elicitation, roots, ping) answered by the
// handler: in-process, over stdio (the fixture script) and over Streamable HTTP (requests on
// POST event streams and on the GET stream, answered by POSTing the response).
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient, ServerNotification } from "../../client/types.ts";
import type { ClientHandler, HandlerContext } from "../../protocol/capabilities.ts";
import { McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { stdio } from "../../transports/stdio.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import type { Round } from "../fixtures/_mrtr.ts";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { FAST, fixtureClient, mcpError, waitFor } from "./_helpers.ts";

const FORM = {
  method: "elicitation/create",
  params: {
    message: "Who are you?",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string" },
        age: { type: "integer", default: 30 },
        verified: { type: "boolean", default: true },
      },
    },
  },
};
const SAMPLE = {
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 },
};
const ROOTS = { method: "roots/list" };
const PING = { method: "ping" };
const URL_ELICIT = {
  method: "elicitation/create",
  params: {
    mode: "url",
    message: "Log in",
    url: "https://example.com/login",
    elicitationId: "e-1",
  },
};
const EVERYTHING: Round = { who: FORM, math: SAMPLE, where: ROOTS, alive: PING };
const EXPECTED = {
  who: { action: "accept", content: { name: "ada", age: 30, verified: true } },
  math: { role: "assistant", content: { type: "text", text: "hello" }, model: "stub" },
  where: { roots: [{ uri: "file:///work" }] },
  alive: {},
};

function recordingHandler() {
  const contexts: HandlerContext[] = [];
  const handler: ClientHandler = {
    sampling(_params, ctx) {
      contexts.push(ctx);
      return { role: "assistant", content: { type: "text", text: "hello" }, model: "stub" };
    },
    elicitation(params, ctx) {
      contexts.push(ctx);
      return params.mode === "url"
        ? { action: "accept" }
        : { action: "accept", content: { name: "ada" } };
    },
    listRoots(ctx) {
      contexts.push(ctx);
      return [{ uri: "file:///work" }];
    },
  };
  return { contexts, handler };
}

async function run(client: McpClient, plan: Round[], extra: JsonObject = {}) {
  const result = await client.callTool("mrtr", { plan, ...extra }, { assigns: { a: 1 } });
  return JSON.parse(String(result.content[0].text)) as { rounds: JsonObject[] };
}

test("legacy: the handler answers sampling, elicitation (with defaults), roots; ping too", async () => {
  const { contexts, handler } = recordingHandler();
  const { client, server } = fixtureClient({ mode: "legacy-only" }, { handler });
  await using _ = client;
  const answer = await run(client, [EVERYTHING]);
  assertEquals(answer.rounds, [EXPECTED]);
  assertEquals(contexts.length, 3);
  for (const ctx of contexts) {
    assertEquals([ctx.era, ctx.protocolVersion], ["legacy", "2025-11-25"]);
    // A legacy server's request is not tied to a call the client can name.
    assertEquals([ctx.request, ctx.assigns, ctx.principal], [undefined, undefined, undefined]);
    assert(!ctx.signal.aborted);
  }
  // Every answer went back as a JSON-RPC response to the server's id.
  const answered = server.received.flatMap((m) => "method" in m ? [] : ["id" in m ? m.id : null]);
  assertEquals(answered, ["s1", "s2", "s3", "s4"]);
});

test("legacy: requests for capabilities the client did not declare get -32601", async () => {
  const { client } = fixtureClient({ mode: "legacy-only" }, {
    handler: { listRoots: () => [] },
  });
  await using _ = client;
  const answer = await run(client, [{
    who: FORM,
    math: SAMPLE,
    where: ROOTS,
    task: { method: "tasks/list", params: {} },
  }]);
  const codes = Object.fromEntries(
    Object.entries(answer.rounds[0]).map(([key, value]) => [
      key,
      ((value as JsonObject).error as JsonObject | undefined)?.code ?? "ok",
    ]),
  );
  assertEquals(codes, { who: -32601, math: -32601, where: "ok", task: -32601 });
  assertEquals((await client.callTool("echo", { message: "up" })).content[0].text, "up");
});

test("legacy: undeclared modes and options are refused (-32602)", async () => {
  const { handler } = recordingHandler();
  const code = async (options: Partial<ClientOptions>, round: Round) => {
    const { client } = fixtureClient({ mode: "legacy-only" }, { handler, ...options });
    await using _ = client;
    const [value] = Object.values((await run(client, [round])).rounds[0]) as JsonObject[];
    return (value.error as JsonObject | undefined)?.code ?? "ok";
  };
  const TOOLS = { method: "sampling/createMessage", params: { ...SAMPLE.params, tools: [] } };
  assertEquals(
    await code({ protocol: "2025-06-18" }, { go: URL_ELICIT }),
    -32602,
    "06-18: form only",
  );
  assertEquals(await code({ protocol: "2025-06-18" }, { who: FORM }), "ok");
  assertEquals(await code({ elicitationUrl: false }, { go: URL_ELICIT }), -32602);
  assertEquals(await code({}, { go: URL_ELICIT }), "ok");
  assertEquals(await code({}, { math: TOOLS }), -32602, "tools without sampling.tools");
  assertEquals(await code({ samplingTools: true }, { math: TOOLS }), "ok");
});

test("legacy: a failing handler gets the server an error answer, and the link lives on", async () => {
  const rejected = new McpError("User rejected the request", { kind: "denied", code: -1 });
  const { client, warnings } = fixtureClient({ mode: "legacy-only" }, {
    handler: {
      sampling: () => {
        throw new Error("provider said: bad key sk-SECRET");
      },
      elicitation: () => Promise.reject(rejected),
      listRoots: () => [{ uri: "http://not-a-file" }],
    },
  });
  await using _ = client;
  const answer = await run(client, [{ math: SAMPLE, who: FORM, where: ROOTS }]);
  assertEquals(answer.rounds[0], {
    math: { error: { code: -32603, message: "The client's sampling handler failed" } },
    who: { error: { code: -1, message: "User rejected the request" } },
    where: {
      error: {
        code: -32603,
        message:
          "The client's roots handler gave an invalid answer: every root needs a file:// uri",
      },
    },
  });
  assert(!JSON.stringify(answer).includes("sk-SECRET"), "the handler's text stays local");
  assert(warnings.some((w) => w.includes("sk-SECRET")), "the host still hears of it");
  assertEquals((await client.callTool("echo", { message: "up" })).content[0].text, "up");
  assertEquals(client.status().state, "ready");
});

test("legacy: URL elicitation, then elicitation/complete reaches notification listeners", async () => {
  const { contexts, handler } = recordingHandler();
  const { client } = fixtureClient({ mode: "legacy-only" }, { handler });
  await using _ = client;
  const seen: ServerNotification[] = [];
  client.subscribeNotifications((n) => seen.push(n));
  const answer = await run(client, [{ go: URL_ELICIT }]);
  assertEquals(answer.rounds, [{ go: { action: "accept" } }]);
  assertEquals(contexts.length, 1);
  await waitFor(() => seen.length > 0, "elicitation/complete");
  assertEquals(seen, [{
    method: "notifications/elicitation/complete",
    params: { elicitationId: "e-1" },
  }]);
});

test("legacy: the server cancelling its request aborts the handler, and nothing is answered", async () => {
  let signal: AbortSignal | undefined;
  const { client, server } = fixtureClient({ mode: "legacy-only" }, {
    handler: {
      elicitation: (_params, ctx) =>
        new Promise((resolve) => {
          signal = ctx.signal;
          ctx.signal.addEventListener("abort", () => resolve({ action: "cancel" }));
        }),
    },
  });
  await using _ = client;
  const answer = await run(client, [{ who: FORM }], { cancelAfterMs: 20 });
  assertEquals(answer as unknown, { cancelled: "s1" });
  await waitFor(() => signal?.aborted === true, "the handler's signal");
  assertEquals((signal!.reason as Error).message, "changed my mind");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assertEquals(server.received.filter((m) => !("method" in m)).length, 0, "no answer was sent");
});

test("legacy: closing the client aborts a handler still at work", async () => {
  let signal: AbortSignal | undefined;
  const { client } = fixtureClient({ mode: "legacy-only" }, {
    handler: {
      listRoots: (ctx) =>
        new Promise(() => {
          signal = ctx.signal;
        }),
    },
  });
  const call = mcpError(run(client, [{ where: ROOTS }]));
  await waitFor(() => signal !== undefined, "the handler");
  assert(!signal!.aborted);
  await client.close();
  assertEquals((await call).kind, "closed");
  assert(signal!.aborted, "the handler was told");
});

test("notifyRootsChanged: legacy with listRoots only; otherwise kind protocol", async () => {
  {
    const { client, server } = fixtureClient({ mode: "legacy-only" }, {
      handler: { listRoots: () => [] },
      rootsListChanged: true,
    });
    await using _ = client;
    await client.notifyRootsChanged();
    await waitFor(
      () => server.methods().includes("notifications/roots/list_changed"),
      "the notification",
    );
  }
  {
    const { client, server } = fixtureClient({ mode: "legacy-only" }, {
      handler: { sampling: () => ({}) },
    });
    await using _ = client;
    const error = await mcpError(client.notifyRootsChanged());
    assertEquals([error.kind, error.reason], ["protocol", "roots_not_supported"]);
    assert(!server.methods().includes("notifications/roots/list_changed"));
  }
  {
    const { client, server } = fixtureClient({}, { handler: { listRoots: () => [] } });
    await using _ = client;
    const error = await mcpError(client.notifyRootsChanged());
    assertEquals([error.kind, error.reason], ["protocol", "roots_list_changed_not_modern"]);
    assert(!server.methods().includes("notifications/roots/list_changed"));
  }
});

test("legacy over stdio: the fixture script's requests are answered by the handler", async () => {
  const { handler } = recordingHandler();
  const script = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));
  await using client = createClient({
    transport: stdio({
      ...script,
      env: { FIXTURE_KNOBS: JSON.stringify({ mode: "legacy-only" }) },
      closeGracePeriod: 1_000,
      terminateGracePeriod: 1_000,
    }),
    handler,
    reconnect: FAST,
    requestTimeout: 20_000,
  });
  await client.ready(20_000);
  assertEquals(client.era(), "legacy");
  const answer = await run(client, [EVERYTHING, { go: URL_ELICIT }]);
  assertEquals(answer.rounds, [EXPECTED, { go: { action: "accept" } }]);
}, { timeout: 30_000 });

for (
  const [name, http] of [
    ["a POST event stream (no GET stream)", { response: "sse", getStream: false }],
    ["the GET stream", { response: "json" }],
  ] as const
) {
  test(`legacy over HTTP: server requests on ${name}, answered by POST`, async () => {
    await using fixture = await startHttpFixture({
      core: { mode: "legacy-only" },
      http: { ...http },
    });
    const { handler } = recordingHandler();
    await using client = createClient({
      transport: streamableHttp(fixture.url),
      handler,
      reconnect: FAST,
    });
    const answer = await run(client, [EVERYTHING]);
    assertEquals(answer.rounds, [EXPECTED]);
    const posted = fixture.requests.filter((r) =>
      r.method === "POST" && typeof r.body === "object" && r.body !== null &&
      !("method" in r.body)
    ).map((r) => r.body as JsonObject);
    assertEquals(posted.map((body) => body.id), ["s1", "s2", "s3", "s4"]);
    for (const request of fixture.requests.filter((r) => r.method === "POST").slice(2)) {
      assertEquals(request.headers["mcp-session-id"], "session-1");
      assertEquals(request.headers["mcp-protocol-version"], "2025-11-25");
    }
    const gets = fixture.requests.filter((r) => r.method === "GET").length;
    assert(http.response === "json" ? gets > 0 : true, "the GET stream was open");
  });
}

// The Streamable HTTP transport, modern era and the rules shared by both eras, against real
// HTTP servers on 127.0.0.1 (the two-era fixture, mock servers, and small Hono apps for faults).
import { Hono } from "hono";
import { McpError } from "../../protocol/errors.ts";
import { serve } from "../../runtime/serve.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { lowerName } from "../../transports/_http_request.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { mockServer, type MockTool } from "../../testing/mod.ts";
import {
  MODERN,
  modernRequest,
  recordingSink,
  rejection,
  resultOf,
  waitFor,
} from "./_http_helpers.ts";

test("http modern: every request carries the mirrored headers and no session", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await link.send(modernRequest(1, "tools/call", { name: "echo", arguments: { message: "hi" } }));
  await link.send(modernRequest(2, "resources/read", { uri: "test://resource1" }));
  await link.send(
    modernRequest(3, "prompts/get", { name: "greeting", arguments: { name: "Ada" } }),
  );
  await link.send(modernRequest(4, "tools/list"));
  await link.close();
  assertEquals(sink.messages.map((m) => "result" in m), [true, true, true, true]);
  const [call, read, prompt, list] = fixture.requests.map((r) => r.headers);
  for (const headers of [call, read, prompt, list]) {
    assertEquals(headers["content-type"], "application/json");
    assertEquals(headers["accept"], "application/json, text/event-stream");
    assertEquals(headers["mcp-protocol-version"], MODERN);
    assertEquals(headers["mcp-session-id"], undefined);
  }
  assertEquals([call["mcp-method"], call["mcp-name"]], ["tools/call", "echo"]);
  assertEquals([read["mcp-method"], read["mcp-name"]], ["resources/read", "test://resource1"]);
  assertEquals([prompt["mcp-method"], prompt["mcp-name"]], ["prompts/get", "greeting"]);
  assertEquals([list["mcp-method"], list["mcp-name"]], ["tools/list", undefined]);
  assertEquals(fixture.requests.map((r) => r.method), ["POST", "POST", "POST", "POST"]);
});

test("http modern: Mcp-Name is base64-encoded when not plain ASCII", async () => {
  await using fixture = await startHttpFixture();
  const link = await streamableHttp(fixture.url).open(recordingSink());
  await link.send(modernRequest(1, "resources/read", { uri: "file:///ü.txt" }));
  await link.send(modernRequest(2, "tools/call", { name: " padded", arguments: {} }));
  await link.close();
  assertEquals(fixture.requests[0].headers["mcp-name"], "=?base64?ZmlsZTovLy/DvC50eHQ=?=");
  assertEquals(fixture.requests[1].headers["mcp-name"], "=?base64?IHBhZGRlZA==?=");
});

test("http modern: the protocol version header follows _meta; no GET or DELETE", async () => {
  await using fixture = await startHttpFixture();
  const link = await streamableHttp(fixture.url).open(recordingSink());
  link.setProtocol({ era: "modern", version: MODERN });
  await link.send(modernRequest(1, "server/discover"));
  await link.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assertEquals(fixture.requests.map((r) => r.method), ["POST"]);
  assertEquals(fixture.requests[0].headers["mcp-method"], "server/discover");
});

/**
 * A mock server that lists `tools` (`pageSize` a page); `calls()` are the headers of each
 * tools/call it got.
 */
function toolServer(tools: MockTool[], pageSize?: number) {
  const server = mockServer({ tools, pageSize });
  const calls = () =>
    server.requests.filter((r) => r.method === "tools/call").map((r) => r.headers!);
  return { app: server, calls };
}

const headerTools: MockTool[] = [
  {
    name: "query",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        count: { type: "integer", "x-mcp-header": "Count" },
        dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
        note: { type: "string", "x-mcp-header": "Note" },
        nested: {
          type: "object",
          properties: { zone: { type: "string", "x-mcp-header": "Zone" } },
        },
        sql: { type: "string" },
      },
    },
  },
  {
    name: "bad_number",
    inputSchema: {
      type: "object",
      properties: { n: { type: "number", "x-mcp-header": "N" } },
    },
  },
  {
    name: "bad_duplicate",
    inputSchema: {
      type: "object",
      properties: {
        a: { type: "string", "x-mcp-header": "Same" },
        b: { type: "string", "x-mcp-header": "same" },
      },
    },
  },
  { name: "plain", inputSchema: { type: "object" } },
];

test("http modern: tools with invalid x-mcp-header are dropped before the sink sees them", async () => {
  const { app } = toolServer(headerTools);
  await using server = await serve(app.fetch);
  const sink = recordingSink();
  const link = await streamableHttp(new URL("/mcp", server.url)).open(sink);
  await link.send(modernRequest(1, "tools/list"));
  await link.close();
  const tools = resultOf(sink.messages[0]).tools as { name: string }[];
  assertEquals(tools.map((t) => t.name), ["query", "plain"]);
  assertEquals(sink.warnings.length, 2);
  assertStringIncludes(sink.warnings[0], '"bad_number"');
  assertStringIncludes(sink.warnings[1], '"bad_duplicate"');
});

test("http modern: Mcp-Param-* headers, plain, base64, nested, omitted for null/absent", async () => {
  const { app, calls: allCalls } = toolServer(headerTools);
  await using server = await serve(app.fetch);
  const transport = streamableHttp(new URL("/mcp", server.url));
  const link = await transport.open(recordingSink());
  await link.send(modernRequest(1, "tools/list"));
  await link.send(modernRequest(2, "tools/call", {
    name: "query",
    arguments: {
      region: "us-west1",
      count: 42,
      dry: false,
      note: "Hello, 世界",
      nested: { zone: "b" },
      sql: "SELECT 1",
    },
  }));
  await link.send(modernRequest(3, "tools/call", {
    name: "query",
    arguments: { region: null, note: "=?base64?looks-encoded?=" },
  }));
  await link.send(modernRequest(4, "tools/call", { name: "plain", arguments: { x: 1 } }));
  const dropped = await rejection(
    link.send(modernRequest(5, "tools/call", { name: "bad_number", arguments: { n: 1 } })),
  );
  assertEquals([dropped.kind, dropped.reason], ["not_found", "invalid_header_declarations"]);
  await link.close();
  const calls = allCalls();
  const params = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).filter(([k]) => k.startsWith("mcp-param-")));
  assertEquals(params(calls[0]), {
    "mcp-param-region": "us-west1",
    "mcp-param-count": "42",
    "mcp-param-dry-run": "false",
    "mcp-param-note": "=?base64?SGVsbG8sIOS4lueVjA==?=",
    "mcp-param-zone": "b",
  });
  assertEquals(params(calls[1]), {
    "mcp-param-note": "=?base64?PT9iYXNlNjQ/bG9va3MtZW5jb2RlZD89?=",
  });
  assertEquals(params(calls[2]), {});
  assertEquals(calls.length, 3, "the dropped tool was never called");
});

test("http modern: a server declaring hundreds of parameter headers cannot grow what the client remembers of names", async () => {
  // 400 tools, each with a parameter header of its own name.
  const tools: MockTool[] = Array.from({ length: 400 }, (_, i) => ({
    name: `t${i}`,
    inputSchema: {
      type: "object",
      properties: { v: { type: "string", "x-mcp-header": `Hostile-${i}` } },
    },
  }));
  const { app, calls } = toolServer(tools, 1000);
  await using server = await serve(app.fetch);
  const link = await streamableHttp(new URL("/mcp", server.url)).open(recordingSink());
  await link.send(modernRequest(1, "tools/list"));
  for (let i = 0; i < tools.length; i++) {
    await link.send(modernRequest(2 + i, "tools/call", { name: `t${i}`, arguments: { v: "x" } }));
  }
  await link.close();
  assert(lowerName.size() <= 256, `names remembered: ${lowerName.size()}`);
  // Every call still carried its own header, in lower case.
  assertEquals(calls().length, tools.length);
  assertEquals(calls().at(-1)!["mcp-param-hostile-399"], "x");
  assertEquals(calls()[0]["mcp-param-hostile-0"], "x");
});

test("http modern: declarations survive a new link of the same transport", async () => {
  const { app, calls } = toolServer(headerTools);
  await using server = await serve(app.fetch);
  const transport = streamableHttp(new URL("/mcp", server.url));
  const first = await transport.open(recordingSink());
  await first.send(modernRequest(1, "tools/list"));
  await first.close();
  const second = await transport.open(recordingSink());
  await second.send(modernRequest(2, "tools/call", { name: "query", arguments: { region: "eu" } }));
  await second.close();
  assertEquals(calls()[0]["mcp-param-region"], "eu");
});

test("http modern: a JSON answer and an SSE answer with progress before the response", async () => {
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  const order: string[] = [];
  const sink = recordingSink((message) => {
    order.push("method" in message ? message.method : `response ${String(message.id)}`);
  });
  const link = await streamableHttp(fixture.url).open(sink);
  await link.send(
    modernRequest(7, "tools/call", { name: "slow", arguments: { ms: 80, steps: 3 } }, {
      progressToken: "p1",
    }),
  );
  assertEquals(order, [
    "notifications/progress",
    "notifications/progress",
    "notifications/progress",
    "response 7",
  ]);
  const progress = sink.messages[0] as { params: Record<string, unknown> };
  assertEquals(progress.params.progressToken, "p1");
  assertEquals(progress.params.progress, 1);
  fixture.knobs.response = "json";
  await link.send(modernRequest(8, "tools/call", { name: "echo", arguments: { message: "x" } }));
  assertEquals((resultOf(sink.messages.at(-1)!).content as unknown[]).length, 1);
  await link.close();
});

test("http modern: log messages on the stream reach the sink", async () => {
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await link.send(
    modernRequest(1, "tools/call", { name: "echo", arguments: { message: "m" } }, {
      "io.modelcontextprotocol/logLevel": "info",
    }),
  );
  await link.close();
  assertEquals(sink.messages.map((m) => "method" in m ? m.method : "response"), [
    "notifications/message",
    "response",
  ]);
});

test("http: a JSON-RPC error with a 4xx status is the request's response", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await link.send(modernRequest(1, "no/such/method"));
  assertEquals(fixture.requests.length, 1);
  const response = sink.messages[0] as { id: number; error: { code: number } };
  assertEquals([response.id, response.error.code], [1, -32601]);
  // A header mismatch: 400 + -32020, without an id in some servers: the id is filled in.
  const app = new Hono();
  app.post(
    "/",
    (c) => c.json({ jsonrpc: "2.0", error: { code: -32020, message: "Header mismatch" } }, 400),
  );
  await using server = await serve(app.fetch);
  const other = recordingSink();
  const link2 = await streamableHttp(server.url).open(other);
  await link2.send(modernRequest(9, "tools/list"));
  assertEquals(other.messages[0], {
    jsonrpc: "2.0",
    id: 9,
    error: { code: -32020, message: "Header mismatch" },
  });
  await link.close();
  await link2.close();
});

test("http: a notification answered 202 resolves; a rejected one fails with its error", async () => {
  const app = new Hono();
  app.post("/", async (c) => {
    const message = await c.req.json();
    if (message.method === "notifications/ok") return c.body(null, 202);
    return c.json({ jsonrpc: "2.0", error: { code: -32600, message: "No notifications" } }, 400);
  });
  await using server = await serve(app.fetch);
  const link = await streamableHttp(server.url).open(recordingSink());
  await link.send({ jsonrpc: "2.0", method: "notifications/ok" });
  const error = await rejection(link.send({ jsonrpc: "2.0", method: "notifications/no" }));
  assertEquals([error.kind, error.code, error.reason], ["server", -32600, "invalid_request"]);
  await link.close();
});

test("http: cancelling a request aborts its stream on the server", async () => {
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  const controller = new AbortController();
  const sending = link.send(
    modernRequest(1, "tools/call", { name: "slow", arguments: { ms: 5000, steps: 50 } }, {
      progressToken: 1,
    }),
    { signal: controller.signal },
  );
  await sink.next((m) => "method" in m && m.method === "notifications/progress");
  controller.abort();
  const error = await rejection(sending);
  assertEquals(error.kind, "cancelled");
  await waitFor(() => fixture.cancelledStreams() === 1, 3000, "the server to see the cancel");
  // The abort reason is used when it is an McpError (e.g. the client's timeout).
  const timeout = new McpError("Timed out", { kind: "timeout" });
  fixture.knobs.fault = { method: "tools/list", kind: "hang" };
  const timed = link.send(modernRequest(2, "tools/list"), { signal: AbortSignal.abort(timeout) });
  assertEquals(await rejection(timed), timeout);
  await link.close();
});

test("http: closing the link fails requests in flight with kind closed", async () => {
  await using fixture = await startHttpFixture({
    http: { fault: { method: "tools/list", kind: "hang" } },
  });
  const link = await streamableHttp(fixture.url).open(recordingSink());
  const sending = link.send(modernRequest(1, "tools/list"));
  await waitFor(() => fixture.requests.length === 1);
  await link.close();
  const error = await rejection(sending);
  assertEquals(error.kind, "closed");
  assertEquals((await rejection(link.send(modernRequest(2, "tools/list")))).kind, "closed");
});

test("http: an injected fetch (a mock server's fetch handler) needs no socket", async () => {
  const mock = mockServer({ tools: [{ name: "via", description: "app.fetch" }] });
  const transport = streamableHttp("http://in-process.test/mcp", {
    fetch: (input, init) => mock.fetch(new Request(input, init)),
  });
  const sink = recordingSink();
  const link = await transport.open(sink);
  await link.send(modernRequest(1, "tools/list"));
  await link.close();
  assertEquals(resultOf(sink.messages[0]).tools, [
    { name: "via", description: "app.fetch", inputSchema: { type: "object" } },
  ]);
  assertEquals(mock.requests.map((r) => [r.method, r.via, r.headers?.["mcp-method"]]), [
    ["tools/list", "http", "tools/list"],
  ]);
  assertEquals(transport.kind, "http");
  assertEquals(transport.url.href, "http://in-process.test/mcp");
});

test("http: the response must answer the request that was sent", async () => {
  const app = new Hono();
  app.post("/", (c) => c.json({ jsonrpc: "2.0", id: 999, result: {} }));
  await using server = await serve(app.fetch);
  const sink = recordingSink();
  const link = await streamableHttp(server.url).open(sink);
  const error = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals([error.kind, error.reason], ["protocol", "unexpected_response"]);
  assertEquals(sink.messages.length, 0);
  await link.close();
});

test("http modern: a stream that ends before the response fails the request", async () => {
  const app = new Hono();
  app.post("/", () =>
    new Response(
      'id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
      { headers: { "content-type": "text/event-stream" } },
    ));
  await using server = await serve(app.fetch);
  const sink = recordingSink();
  const link = await streamableHttp(server.url).open(sink);
  const error = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals([error.kind, error.reason], ["transport", "stream_ended"]);
  assertEquals(sink.messages.length, 1, "the notification before the break was delivered");
  await link.close();
});

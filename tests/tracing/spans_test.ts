// The span tree of a traced client: connect, a listing, a tool call, an MRTR round and a
// failed call, with their attributes and the trace context each request carried in _meta.
import { trace } from "@opentelemetry/api";
import { createClient } from "../../client/client.ts";
import { traceIdOf } from "../../protocol/trace_context.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { FAST, metaOf, requests } from "../client/_helpers.ts";
import { memoryTracer, names, parentOf, spanNamed } from "./_otel.ts";

const CLIENT = 2;
const INTERNAL = 0;
const ERROR = 2;

test("tracing: connect, list, call, an MRTR round and a failed call make one span tree", async () => {
  const otel = memoryTracer();
  const server = createFixtureServer({});
  await otel.within("app", async (app) => {
    await using client = createClient({
      transport: inProcess(server),
      reconnect: FAST,
      tracer: otel.tracer,
    });
    await client.ready();
    await client.listTools();
    await client.callTool("echo", { message: "hi" });
    await client.callTool("mrtr", { plan: [{}] });
    const failed = await client.callTool("fail", {});
    assert(failed.isError, "the fail tool reports a tool error");
    await assertRejects(() => client.callTool("no_such_tool", {}));
    assertEquals(app.isRecording(), true);
  });
  const spans = otel.spans();
  const app = spanNamed(spans, "app");
  const traceId = app.spanContext().traceId;
  for (const span of spans) assertEquals(span.spanContext().traceId, traceId, span.name);

  const connect = spanNamed(spans, "mcp.client.connect");
  assertEquals(parentOf(connect), app.spanContext().spanId);
  assertEquals(connect.kind, INTERNAL);
  assertEquals(connect.attributes["mcp.protocol.version"], "2026-07-28");
  assertEquals(connect.attributes["conduit.mcp.era"], "modern");
  assertEquals(connect.attributes["conduit.connect.attempt"], 0);

  const list = spanNamed(spans, "tools/list");
  assertEquals(list.kind, CLIENT);
  assertEquals(parentOf(list), app.spanContext().spanId);
  assertEquals(list.attributes["mcp.method.name"], "tools/list");
  assertEquals(list.attributes["mcp.protocol.version"], "2026-07-28");
  assertEquals(typeof list.attributes["jsonrpc.request.id"], "string");
  assertEquals(list.status.code, 0, "unset: no error");

  const echo = spanNamed(spans, "tools/call echo");
  assertEquals(echo.kind, CLIENT);
  assertEquals(echo.attributes["gen_ai.tool.name"], "echo");
  assertEquals(echo.attributes["gen_ai.operation.name"], "execute_tool");
  assertEquals(echo.attributes["gen_ai.tool.call.arguments"], undefined, "no arguments by default");
  assertEquals(echo.attributes["gen_ai.tool.call.result"], undefined, "no result by default");

  // The MRTR call is one span; its second round is a child of it.
  const mrtr = spanNamed(spans, "tools/call mrtr");
  const round = spanNamed(spans, "mcp.client.mrtr_round");
  assertEquals(parentOf(round), mrtr.spanContext().spanId);
  assertEquals(round.attributes["conduit.mrtr.round"], 1);
  assertEquals(round.status.code, 0, "a round that got its answer is no error");
  assertEquals(mrtr.status.code, 0);
  assert(mrtr.attributes["jsonrpc.request.id"] !== round.attributes["jsonrpc.request.id"]);

  const toolError = spanNamed(spans, "tools/call fail");
  assertEquals(toolError.attributes["error.type"], "tool_error");
  assertEquals(toolError.status.code, ERROR);

  const failed = spanNamed(spans, "tools/call no_such_tool");
  assertEquals(failed.status.code, ERROR);
  const code = failed.attributes["rpc.response.status_code"];
  assertEquals(failed.attributes["error.type"], code, "error.type is the JSON-RPC code");
  assertEquals(failed.attributes["conduit.error.kind"], "server");

  assertEquals(
    names(spans).sort(),
    [
      "app",
      "mcp.client.connect",
      "mcp.client.mrtr_round",
      "tools/call echo",
      "tools/call fail",
      "tools/call mrtr",
      "tools/call no_such_tool",
      "tools/list",
    ],
  );

  // Each request carried its own span's context in _meta: the server joins the trace there.
  for (const message of [...requests(server, "tools/list"), ...requests(server, "tools/call")]) {
    const meta = metaOf(message);
    assertEquals(traceIdOf(meta.traceparent), traceId);
    const parent = String(meta.traceparent).split("-")[2];
    const span = spans.find((s) => s.spanContext().spanId === parent);
    assert(span !== undefined, `the traceparent names a client span: ${meta.traceparent}`);
    assertEquals(span.kind === CLIENT || span.name === "mcp.client.mrtr_round", true);
  }
  await otel.shutdown();
});

test("tracing: legacy requests carry the trace context in _meta too", async () => {
  const otel = memoryTracer();
  const server = createFixtureServer({ mode: "legacy-only" });
  await using client = createClient({
    transport: inProcess(server),
    reconnect: FAST,
    tracer: otel.tracer,
  });
  await client.callTool("echo", { message: "hi" });
  assertEquals(client.era(), "legacy");
  const [call] = requests(server, "tools/call");
  const span = spanNamed(otel.spans(), "tools/call echo");
  assertEquals(
    metaOf(call).traceparent,
    `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
  );
  assertEquals(span.attributes["conduit.mcp.era"], "legacy");
  await otel.shutdown();
});

test("tracing: without a tracer no request carries a traceparent", async () => {
  const server = createFixtureServer({});
  await using client = createClient({ transport: inProcess(server), reconnect: FAST });
  await client.listTools();
  await client.callTool("echo", { message: "hi" });
  for (const message of [...requests(server, "tools/list"), ...requests(server, "tools/call")]) {
    assertEquals(metaOf(message).traceparent, undefined);
  }
});

test("tracing: recordArguments records a tool call's arguments and result", async () => {
  const otel = memoryTracer();
  await using client = createClient({
    transport: inProcess(createFixtureServer({})),
    reconnect: FAST,
    tracer: otel.tracer,
    recordArguments: true,
  });
  await client.callTool("echo", { message: "hello there" });
  const span = spanNamed(otel.spans(), "tools/call echo");
  assertEquals(span.attributes["gen_ai.tool.call.arguments"], '{"message":"hello there"}');
  assert(String(span.attributes["gen_ai.tool.call.result"]).includes("hello there"));
  await otel.shutdown();
});

test("tracing: progress notifications are events on the request's span", async () => {
  const otel = memoryTracer();
  await using client = createClient({
    transport: inProcess(createFixtureServer({})),
    reconnect: FAST,
    tracer: otel.tracer,
  });
  const seen: number[] = [];
  await client.callTool("slow", { ms: 20, steps: 3 }, { onProgress: (p) => seen.push(p.progress) });
  const span = spanNamed(otel.spans(), "tools/call slow");
  const events = span.events.filter((e) => e.name === "mcp.progress");
  assertEquals(events.length, seen.length);
  assert(events.length > 0, "the fixture reported progress");
  assertEquals(events.map((e) => e.attributes?.["mcp.progress"]), seen);
  await otel.shutdown();
});

test("tracing: any object of a Tracer's shape works, and bad options are TypeErrors", async () => {
  const started: string[] = [];
  const span = {
    spanContext: () => ({ traceId: "ab".repeat(16), spanId: "cd".repeat(8), traceFlags: 1 }),
    setAttribute: () => span,
    setAttributes: () => span,
    addEvent: () => span,
    setStatus: () => span,
    end: () => {},
  };
  const server = createFixtureServer({});
  await using client = createClient({
    transport: inProcess(server),
    reconnect: FAST,
    tracer: { startSpan: (name) => (started.push(name), span) },
  });
  await client.listTools();
  assert(started.includes("tools/list"), started.join(", "));
  const [list] = requests(server, "tools/list");
  assertEquals(metaOf(list).traceparent, `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01`);

  const transport = inProcess(createFixtureServer({}));
  assertThrows(() => createClient({ transport, tracer: {} as never }), TypeError, "tracer");
  const meter = { createHistogram: () => ({ record() {} }), createCounter: () => ({ add() {} }) };
  assertThrows(() => createClient({ transport, meter }), TypeError, "meter");
  assertThrows(
    () =>
      createClient({ transport, tracer: { startSpan: () => span }, recordArguments: 1 as never }),
    TypeError,
    "recordArguments",
  );
});

test("tracing: a no-op tracer (the API without an SDK) passes the caller's context on", async () => {
  const otel = memoryTracer();
  const server = createFixtureServer({});
  const caller = await otel.within("caller", async (span) => {
    await using client = createClient({
      transport: inProcess(server),
      reconnect: FAST,
      tracer: trace.getTracer("no-sdk"),
    });
    await client.callTool("echo", { message: "hi" });
    return span.spanContext();
  });
  const [call] = requests(server, "tools/call");
  assertEquals(metaOf(call).traceparent, `00-${caller.traceId}-${caller.spanId}-01`);
  assertEquals(names(otel.spans()), ["caller"], "the no-op tracer recorded nothing");
  await otel.shutdown();
});

test("tracing: a reconnect after the link failed is a connect span of its own", async () => {
  const otel = memoryTracer();
  await using client = createClient({
    transport: inProcess(createFixtureServer({ exitMidRequest: "crash" })),
    reconnect: FAST,
    tracer: otel.tracer,
  });
  await client.ready();
  await assertRejects(() => client.callTool("crash", {}));
  await client.listTools(); // waits for the reconnect
  const connects = otel.spans().filter((s) => s.name === "mcp.client.connect");
  assertEquals(connects.map((s) => s.attributes["conduit.connect.reconnect"]), [false, true]);
  assertEquals(connects.map((s) => s.status.code), [0, 0]);
  const crash = spanNamed(otel.spans(), "tools/call crash");
  assertEquals(crash.status.code, ERROR);
  assertEquals(crash.attributes["conduit.error.kind"], "transport");
  await otel.shutdown();
});

test("tracing: a prompt's and a resource's spans name them as the conventions say", async () => {
  const otel = memoryTracer();
  await using client = createClient({
    transport: inProcess(createFixtureServer({})),
    reconnect: FAST,
    tracer: otel.tracer,
  });
  await client.getPrompt("greeting", { name: "Ada" });
  await client.readResource("test://resource1");
  const spans = otel.spans();
  const prompt = spanNamed(spans, "prompts/get greeting");
  assertEquals(prompt.attributes["gen_ai.prompt.name"], "greeting");
  assertEquals(prompt.attributes["gen_ai.operation.name"], undefined, "only tool calls");
  const read = spanNamed(spans, "resources/read");
  assertEquals(read.attributes["mcp.resource.uri"], "test://resource1");
  assertEquals(read.attributes["mcp.method.name"], "resources/read");
  await otel.shutdown();
});

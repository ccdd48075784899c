// Tracing over Streamable HTTP: the W3C headers beside _meta, the server's address on every
// span, a retry as a child span, and no credential anywhere in any span (a bearer token and
// a server that reflects it into every error it can produce, scanned).
import { createClient } from "../../client/client.ts";
import { REDACTED } from "../../protocol/secrets.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { REFLECTIONS, startReflectingServer } from "../fixtures/reflecting_server.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { FAST } from "../client/_helpers.ts";
import { memoryTracer, parentOf, spanNamed, spanText } from "./_otel.ts";

const TOKEN = `tok_TRACE_${crypto.randomUUID().replaceAll("-", "")}`;

test("tracing (http): the traceparent goes as a W3C header too, spans name the server", async () => {
  await using fixture = await startHttpFixture();
  const otel = memoryTracer();
  await using client = createClient({
    transport: streamableHttp(fixture.url),
    reconnect: FAST,
    tracer: otel.tracer,
  });
  await client.callTool("echo", { message: "hi" });
  const post = fixture.requests.find((r) =>
    (r.body as { method?: string } | undefined)?.method === "tools/call"
  );
  assert(post !== undefined, "the call was posted");
  const meta = (post.body as { params: { _meta: Record<string, string> } }).params._meta;
  const span = spanNamed(otel.spans(), "tools/call echo");
  const { traceId, spanId } = span.spanContext();
  assertEquals(meta.traceparent, `00-${traceId}-${spanId}-01`);
  assertEquals(post.headers.traceparent, meta.traceparent);
  assertEquals(span.attributes["network.transport"], "tcp");
  assertEquals(span.attributes["network.protocol.name"], "http");
  assertEquals(span.attributes["server.address"], "127.0.0.1");
  assertEquals(span.attributes["server.port"], Number(fixture.url.port));
  // An untraced client sends no such header.
  await using plain = createClient({ transport: streamableHttp(fixture.url), reconnect: FAST });
  const before = fixture.requests.length;
  await plain.listTools();
  assert(fixture.requests.slice(before).every((r) => r.headers.traceparent === undefined));
  await otel.shutdown();
});

test("tracing (http): a legacy session's id is on the spans", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  const otel = memoryTracer();
  await using client = createClient({
    transport: streamableHttp(fixture.url),
    reconnect: FAST,
    tracer: otel.tracer,
  });
  await client.callTool("echo", { message: "hi" });
  const [session] = fixture.sessions();
  assert(session !== undefined, "the server handed out a session");
  const spans = otel.spans();
  assertEquals(spanNamed(spans, "tools/call echo").attributes["mcp.session.id"], session);
  assertEquals(spanNamed(spans, "mcp.client.connect").attributes["mcp.session.id"], session);
  await otel.shutdown();
});

test("tracing (http): a retried request has a retry span under it", async () => {
  await using fixture = await startHttpFixture();
  const otel = memoryTracer();
  await using client = createClient({
    transport: streamableHttp(fixture.url),
    reconnect: FAST,
    retry: { attempts: 2, initialDelay: 1, maxDelay: 5, jitter: 0 },
    tracer: otel.tracer,
  });
  await client.ready();
  fixture.knobs.failFirst = { count: 1, status: 503 };
  await client.listTools();
  const spans = otel.spans();
  const list = spanNamed(spans, "tools/list");
  const retry = spanNamed(spans, "mcp.client.retry");
  assertEquals(parentOf(retry), list.spanContext().spanId);
  assertEquals(retry.attributes["conduit.retry.attempt"], 1);
  assertEquals(retry.attributes["conduit.retry.after"], "http_status");
  assertEquals(list.status.code, 0, "the request succeeded in the end");
  await otel.shutdown();
});

for (const mode of ["modern-only", "legacy-only"] as const) {
  test(`tracing (http, ${mode}): no credential in any span, even reflected by the server`, async () => {
    await using server = await startReflectingServer({ mode });
    const otel = memoryTracer();
    const transport = streamableHttp(server.url, {
      auth: { bearer: TOKEN },
      reconnectDelay: 1,
      maxReconnects: 2,
    });
    for (const kind of REFLECTIONS) {
      const client = createClient({
        transport,
        reconnect: FAST,
        requestTimeout: 5_000,
        tracer: otel.tracer,
        recordArguments: true,
      });
      try {
        await client.ready(10_000);
        server.knobs.methods["tools/call"] = kind;
        await client.callTool("echo", { message: `hi ${TOKEN}` }).catch(() => {});
        delete server.knobs.methods["tools/call"];
        // A call that works, with the token in its arguments and so in its result.
        await client.callTool("echo", { message: `again ${TOKEN}` });
      } finally {
        delete server.knobs.methods["tools/call"];
        await client.close();
      }
    }
    // A connect the server fails, reflecting the token.
    server.knobs.methods = { "server/discover": "rpc_error", initialize: "rpc_error" };
    const failing = createClient({ transport, reconnect: false, tracer: otel.tracer });
    await failing.ready(10_000).catch(() => {});
    await failing.close();

    assert(server.reflected() >= REFLECTIONS.length, "the server reflected the token");
    const spans = otel.spans();
    assert(spans.some((s) => s.status.code === 2), "some spans failed");
    assert(spans.some((s) => s.name === "mcp.client.connect" && s.status.code === 2));
    const text = spanText(spans);
    assert(text.includes(REDACTED), "the arguments were recorded, redacted");
    assert(!text.includes(TOKEN), "a span holds the token");
    assert(!text.includes(encodeURIComponent(TOKEN)), "a span holds the encoded token");
    await otel.shutdown();
  });
}

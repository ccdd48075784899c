// The Streamable HTTP transport's failure paths, against real HTTP servers on 127.0.0.1:
// malformed and oversized bodies, auth, status errors with Retry-After, redirects, the probe,
// network errors and option checks.
import { Hono } from "hono";
import { serve } from "../../runtime/serve.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { readBounded } from "../../transports/_http.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { MODERN, modernRequest, recordingSink, rejection } from "./_http_helpers.ts";

test("http: bodies that are not JSON-RPC give a clear protocol error", async () => {
  await using fixture = await startHttpFixture();
  const link = await streamableHttp(fixture.url).open(recordingSink());
  const cases: [string, string][] = [
    ["not_json", "not JSON"],
    ["not_jsonrpc", "not a JSON-RPC message"],
    ["html", '"text/html"'],
    ["empty", "empty body"],
  ];
  let id = 1;
  for (const [kind, text] of cases) {
    fixture.knobs.fault = { method: "tools/list", kind: kind as "html" };
    const error = await rejection(link.send(modernRequest(id++, "tools/list")));
    assertEquals(error.kind, "protocol", kind);
    assertStringIncludes(error.message, text);
    assertStringIncludes(error.message, '"tools/list"');
  }
  await link.close();
});

test("http: an SSE event that is not JSON-RPC fails the request", async () => {
  const app = new Hono();
  app.post(
    "/",
    () => new Response("data: {oops\n\n", { headers: { "content-type": "text/event-stream" } }),
  );
  await using server = await serve(app.fetch);
  const link = await streamableHttp(server.url).open(recordingSink());
  const error = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals([error.kind, error.reason], ["protocol", "malformed_body"]);
  await link.close();
});

test("http: oversized bodies and events are refused", async () => {
  await using fixture = await startHttpFixture({
    http: { fault: { method: "tools/list", kind: "oversized", bytes: 5000 } },
  });
  const transport = streamableHttp(fixture.url, { maxResponseBytes: 4096, maxEventBytes: 2048 });
  const link = await transport.open(recordingSink());
  const large = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals([large.kind, large.reason], ["protocol", "response_too_large"]);
  assertStringIncludes(large.message, "4096");
  fixture.knobs.fault = { method: "tools/list", kind: "oversized_event", bytes: 3000 };
  const event = await rejection(link.send(modernRequest(2, "tools/list")));
  assertEquals([event.kind, event.reason], ["protocol", "event_too_large"]);
  fixture.knobs.fault = undefined;
  await link.send(modernRequest(3, "tools/list")); // small answers still work
  await link.close();
});

test("http: an oversized streamed (chunked) body is cut off", async () => {
  const app = new Hono();
  app.post("/", () => {
    const chunk = new TextEncoder().encode("x".repeat(1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 64) controller.enqueue(chunk);
        else controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  await using server = await serve(app.fetch);
  const link = await streamableHttp(server.url, { maxResponseBytes: 8192 }).open(recordingSink());
  const error = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals(error.reason, "response_too_large");
  await link.close();
});

test("http: 401 and 403 give auth errors with the challenge, never the token", async () => {
  await using fixture = await startHttpFixture({ http: { requireToken: "right-token" } });
  const transport = streamableHttp(fixture.url, { auth: { bearer: "wrong-token-secret" } });
  const link = await transport.open(recordingSink());
  const unauthorized = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals([unauthorized.kind, unauthorized.reason], ["auth", "unauthorized"]);
  assertStringIncludes(unauthorized.message, "401");
  assertStringIncludes(unauthorized.message, "Bearer resource_metadata=");
  assert(
    !unauthorized.message.includes("fixture"),
    "no realm: only error, scope, resource_metadata",
  );
  assert(!unauthorized.message.includes("wrong-token-secret"), "no token in the message");
  assert(!JSON.stringify(unauthorized.data).includes("wrong-token-secret"));
  assertEquals((unauthorized.data as { status: number }).status, 401);
  fixture.knobs.forbidden = true;
  const forbidden = await rejection(link.send(modernRequest(2, "tools/list")));
  assertEquals([forbidden.kind, forbidden.reason], ["auth", "forbidden"]);
  assertStringIncludes(forbidden.message, 'error="insufficient_scope"');
  assertStringIncludes(forbidden.message, 'scope="admin"');
  await link.close();
});

test("http: auth forms: bearer, a function asked per request, setAuth swaps them", async () => {
  await using fixture = await startHttpFixture({ http: { requireToken: "t1" } });
  let calls = 0;
  const transport = streamableHttp(fixture.url, {
    auth: () => {
      calls++;
      return Promise.resolve("t1");
    },
    credentialId: "alice",
  });
  assertEquals(transport.credentialId, "alice");
  const link = await transport.open(recordingSink());
  await link.send(modernRequest(1, "tools/list"));
  await link.send(modernRequest(2, "tools/list"));
  assertEquals(calls, 2);
  fixture.knobs.requireToken = "t2";
  transport.setAuth({ bearer: "t2" });
  assertEquals(transport.credentialId, undefined);
  await link.send(modernRequest(3, "tools/list"));
  assertEquals(fixture.requests.at(-1)!.headers["authorization"], "Bearer t2");
  transport.setAuth(() => {
    throw new Error("vault is down: secret-detail");
  });
  const failed = await rejection(link.send(modernRequest(4, "tools/list")));
  assertEquals([failed.kind, failed.reason], ["auth", "credentials_failed"]);
  assertThrows(() => transport.setAuth({ bearer: "" }), TypeError);
  assertThrows(() => transport.setAuth("token" as never), TypeError);
  await link.close();
});

test("http: static headers are sent; protocol headers win", async () => {
  await using fixture = await startHttpFixture();
  const transport = streamableHttp(fixture.url, {
    headers: { "X-Api-Key": "k1", "Mcp-Method": "spoofed", "Content-Type": "text/plain" },
  });
  const link = await transport.open(recordingSink());
  await link.send(modernRequest(1, "tools/list"));
  await link.close();
  const headers = fixture.requests[0].headers;
  assertEquals(headers["x-api-key"], "k1");
  assertEquals(headers["mcp-method"], "tools/list");
  assertEquals(headers["content-type"], "application/json");
});

test("http: 429 and 503 give http_status errors with Retry-After", async () => {
  await using fixture = await startHttpFixture({
    http: { failFirst: { count: 1, status: 429, retryAfter: "2" } },
  });
  const link = await streamableHttp(fixture.url).open(recordingSink());
  const limited = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals([limited.kind, limited.reason], ["transport", "http_status"]);
  assertEquals(limited.data, { status: 429, retryAfterMs: 2000 });
  const date = new Date(Date.now() + 5000).toUTCString();
  fixture.knobs.failFirst = { count: 1, status: 503, retryAfter: date };
  const unavailable = await rejection(link.send(modernRequest(2, "tools/list")));
  const data = unavailable.data as { status: number; retryAfterMs: number };
  assertEquals(data.status, 503);
  assert(data.retryAfterMs > 2000 && data.retryAfterMs <= 5000, `got ${data.retryAfterMs}`);
  fixture.knobs.failFirst = { count: 1, status: 500 };
  assertEquals((await rejection(link.send(modernRequest(3, "tools/list")))).data, { status: 500 });
  await link.send(modernRequest(4, "tools/list"));
  await link.close();
});

test("http: a same-origin redirect is followed with the credentials", async () => {
  await using fixture = await startHttpFixture({ http: { redirect: { location: "/moved" } } });
  const transport = streamableHttp(fixture.url, { auth: { bearer: "tok" } });
  const sink = recordingSink();
  const link = await transport.open(sink);
  await link.send(modernRequest(1, "tools/list"));
  await link.close();
  assertEquals(fixture.requests.map((r) => r.path), ["/mcp", "/moved"]);
  assertEquals(fixture.requests[1].headers["authorization"], "Bearer tok");
  assertEquals(fixture.requests[1].headers["mcp-method"], "tools/list");
  assertEquals((fixture.requests[1].body as { id: number }).id, 1);
  assert("result" in sink.messages[0]);
});

test("http: a cross-origin redirect is refused and the other origin sees nothing", async () => {
  await using other = await startHttpFixture();
  await using fixture = await startHttpFixture({
    http: { redirect: { location: other.url.href, status: 308 } },
  });
  const transport = streamableHttp(fixture.url, { auth: { bearer: "secret-token" } });
  const link = await transport.open(recordingSink());
  const error = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals([error.kind, error.reason], ["transport", "redirect_refused"]);
  assert(!error.message.includes("secret-token"));
  assertEquals(other.requests.length, 0);
  const probe = await rejection(link.probe!(modernRequest(2, "server/discover")));
  assertEquals(probe.reason, "redirect_refused");
  assertEquals(other.requests.length, 0);
  await link.close();
});

test("http: a redirect loop stops after the hop limit", async () => {
  await using fixture = await startHttpFixture({ http: { redirect: { location: "/mcp" } } });
  const link = await streamableHttp(fixture.url, { maxRedirects: 3 }).open(recordingSink());
  const error = await rejection(link.send(modernRequest(1, "tools/list")));
  assertEquals(error.reason, "redirect_refused");
  assertEquals(fixture.requests.length, 4);
  await link.close();
});

test("http: probe returns the raw outcome without touching the sink", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  const ok = await link.probe!(modernRequest(1, "server/discover"));
  assertEquals(ok.status, 200);
  assertStringIncludes(ok.contentType ?? "", "application/json");
  const body = JSON.parse(new TextDecoder().decode(ok.body));
  assertEquals(body.result.supportedVersions[0], MODERN);
  assertEquals(fixture.requests[0].headers["mcp-method"], "server/discover");
  assertEquals(fixture.requests[0].headers["mcp-protocol-version"], MODERN);
  fixture.knobs.failFirst = { count: 1, status: 503, retryAfter: "3" };
  const busy = await link.probe!(modernRequest(2, "server/discover"));
  assertEquals([busy.status, busy.retryAfterMs], [503, 3000]);
  fixture.knobs.requireToken = "x";
  const denied = await link.probe!(modernRequest(3, "server/discover"));
  assertEquals(denied.status, 401);
  assertStringIncludes(denied.challenge ?? "", "Bearer");
  assertEquals(sink.messages.length, 0);
  await link.close();
});

test("http: probe against a legacy-only server shows the legacy evidence", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  const link = await streamableHttp(fixture.url).open(recordingSink());
  const outcome = await link.probe!(modernRequest(1, "server/discover"));
  assertEquals(outcome.status, 400);
  await link.close();
});

test("http: network errors reject with kind transport", async () => {
  const server = await serve(() => new Response(""));
  const url = server.url;
  await server.close();
  const link = await streamableHttp(url).open(recordingSink());
  const probe = await rejection(link.probe!(modernRequest(1, "server/discover")));
  assertEquals([probe.kind, probe.reason], ["transport", "network"]);
  const send = await rejection(link.send(modernRequest(2, "tools/list")));
  assertEquals([send.kind, send.reason], ["transport", "network"]);
  await link.close();
});

test("http: options are checked, naming the bad key", () => {
  assertThrows(() => streamableHttp("ftp://x/"), TypeError, "url");
  assertThrows(() => streamableHttp("not a url"), TypeError, "url");
  assertThrows(() => streamableHttp(42 as never), TypeError, "url");
  assertThrows(() => streamableHttp("http://x/", { auth: 3 as never }), TypeError, "options.auth");
  assertThrows(
    () => streamableHttp("http://x/", { auth: { bearer: "a b" } }),
    TypeError,
    "options.auth.bearer",
  );
  assertThrows(() => streamableHttp("http://x/", { fetch: 1 as never }), TypeError, "fetch");
  assertThrows(
    () => streamableHttp("http://x/", { maxResponseBytes: 0 }),
    TypeError,
    "maxResponseBytes",
  );
  assertThrows(
    () => streamableHttp("http://x/", { maxEventBytes: 1.5 }),
    TypeError,
    "maxEventBytes",
  );
  assertThrows(
    () => streamableHttp("http://x/", { headers: { "bad header": "x" } }),
    TypeError,
    "options.headers",
  );
  assertThrows(
    () => streamableHttp("http://x/", { credentialId: 1 as never }),
    TypeError,
    "credentialId",
  );
});

test("http: a body read in one go by its Content-Length is still bounded when the length lies", async () => {
  const json = { "content-type": "application/json" };
  const small = new Response("x".repeat(100), { headers: { ...json, "content-length": "100" } });
  assertEquals((await readBounded(small, 4096)).byteLength, 100);
  // An injected fetch may hand over a body longer than its declared length.
  const liar = new Response("x".repeat(5000), { headers: { ...json, "content-length": "10" } });
  const error = await readBounded(liar, 4096).then(() => undefined, (e) => e);
  assertEquals([error?.kind, error?.reason], ["protocol", "response_too_large"]);
  const declaredLarge = new Response("x", { headers: { ...json, "content-length": "5000" } });
  const refused = await readBounded(declaredLarge, 4096).then(() => undefined, (e) => e);
  assertEquals(refused?.reason, "response_too_large");
});

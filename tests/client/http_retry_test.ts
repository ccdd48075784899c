// Over real HTTP: legacy session renewal (one shared re-initialize, requests waiting for it,
// one retry per request) and the retry policy for 408/429/5xx answers.
import { connectClient, createClient } from "../../client/client.ts";
import type { ResolvedRetry } from "../../client/_resolve_options.ts";
import { backoffDelay } from "../../client/_async.ts";
import { IDEMPOTENT_METHODS, retryDelay } from "../../client/connection/_status_retry.ts";
import { McpError } from "../../protocol/errors.ts";
import { type FetchLike, streamableHttp } from "../../transports/streamable_http.ts";
import { inProcess } from "../../transports/in_process.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { type HttpFixture, startHttpFixture } from "../fixtures/http_server.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { mcpError, waitFor } from "./_helpers.ts";

const reconnect = { attempts: 3, initialDelay: 10, maxDelay: 50, jitter: 0 };
const retry = { initialDelay: 5, maxDelay: 20, jitter: 0 };

function methodOf(body: unknown): string | undefined {
  return (body as { method?: string } | undefined)?.method;
}

/** The POSTs the fixture received for `method`. */
function posts(fixture: HttpFixture, method: string) {
  return fixture.requests.filter((r) => r.method === "POST" && methodOf(r.body) === method);
}

/** A fetch that lets `intercept` answer (or delay) a POST before the fixture sees it. */
function interceptingFetch(
  intercept: (method: string | undefined, headers: Headers) => Promise<Response | undefined>,
): FetchLike {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      const body = await request.clone().text();
      let method: string | undefined;
      try {
        method = JSON.parse(body).method;
      } catch {
        method = undefined;
      }
      const answer = await intercept(method, request.headers);
      if (answer !== undefined) return answer;
    }
    return globalThis.fetch(request);
  };
}

test("http session: requests made while a new session starts wait for it", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  let initializes = 0;
  const release = Promise.withResolvers<void>();
  const fetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    const isInit = request.method === "POST" && methodOf(await request.clone().json()) ===
        "initialize";
    const response = await globalThis.fetch(request);
    if (isInit && ++initializes === 2) await release.promise; // hold the new session's answer
    return response;
  };
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { fetch }),
    reconnect,
  });
  await client.callTool("echo", { message: "before" });
  fixture.expireSessions();
  const first = client.callTool("echo", { message: "first" });
  await waitFor(() => initializes === 2, "the new initialize");
  const later = [
    client.callTool("echo", { message: "second" }),
    client.listTools(),
  ] as const;
  await new Promise((resolve) => setTimeout(resolve, 30));
  const calls = posts(fixture, "tools/call").length;
  assertEquals(calls, 2, "nothing more was sent while the session was starting");
  assertEquals(client.status().state, "ready");
  release.resolve();
  const [one, two, page] = await Promise.all([first, ...later]);
  assertEquals([one.content[0].text, two.content[0].text], ["first", "second"]);
  assert(page.tools.length > 0);
  assertEquals(posts(fixture, "initialize").length, 2);
  for (
    const request of [...posts(fixture, "tools/call").slice(2), ...posts(fixture, "tools/list")]
  ) {
    assertEquals(request.headers["mcp-session-id"], "session-2");
  }
  const order = fixture.requests.filter((r) => r.method === "POST").map((r) => methodOf(r.body));
  assertEquals(order.slice(-5, -3), ["initialize", "notifications/initialized"]);
});

test("http session: in-flight requests that all saw the expiry share one new session", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  await using client = await connectClient({ transport: streamableHttp(fixture.url), reconnect });
  await client.ping();
  fixture.expireSessions();
  const results = await Promise.all(
    ["a", "b", "c", "d"].map((message) => client.callTool("echo", { message })),
  );
  assertEquals(results.map((r) => r.content[0].text), ["a", "b", "c", "d"]);
  assertEquals(posts(fixture, "initialize").length, 2, "one renewal for all of them");
  assertEquals(fixture.sessions(), ["session-2"]);
  assertEquals(client.era(), "legacy");
});

test("http session: an expiry seen first on the GET stream renews before the next request", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { reconnectDelay: 5 }),
    reconnect,
  });
  await client.ping();
  await waitFor(() => fixture.requests.some((r) => r.method === "GET"), "the GET stream");
  fixture.expireSessions();
  const gets = () => fixture.requests.filter((r) => r.method === "GET").length;
  await waitFor(() => gets() >= 2, "the GET stream to find the session gone");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assertEquals((await client.callTool("echo", { message: "after" })).content[0].text, "after");
  const withoutSession = fixture.requests.filter((r) =>
    r.method === "POST" && !["server/discover", "initialize"].includes(methodOf(r.body)!) &&
    !r.headers["mcp-session-id"]
  );
  assertEquals(withoutSession.length, 0, "nothing was sent without a session id");
  assertEquals(posts(fixture, "initialize").length, 2);
});

test("http session: a second expiry on the retry fails the request with kind transport", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  let expireCalls = false;
  const fetch = interceptingFetch((method, headers) => {
    const expired = expireCalls && method === "tools/call" && headers.has("mcp-session-id");
    return Promise.resolve(expired ? new Response("gone", { status: 404 }) : undefined);
  });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { fetch }),
    reconnect,
  });
  expireCalls = true;
  const error = await mcpError(client.callTool("echo", { message: "x" }));
  assertEquals([error.kind, error.reason], ["transport", "session_expired"]);
  assertEquals(posts(fixture, "initialize").length, 2, "renewed once, not twice");
  assertEquals(client.status().state, "ready");
  expireCalls = false;
  assertEquals((await client.callTool("echo", { message: "y" })).content[0].text, "y");
});

test("http session: when the new session cannot start, the request fails and the client reconnects", async () => {
  await using fixture = await startHttpFixture({
    core: { mode: "legacy-only" },
    http: { getStream: false }, // the call, not the GET stream, finds the session gone
  });
  let initializes = 0;
  const fetch = interceptingFetch((method) => {
    const fail = method === "initialize" && ++initializes === 2;
    return Promise.resolve(fail ? new Response("broken", { status: 400 }) : undefined);
  });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { fetch }),
    reconnect,
  });
  fixture.expireSessions();
  const error = await mcpError(client.callTool("echo", { message: "x" }));
  assertEquals([error.kind, error.reason], ["transport", "session_renewal_failed"]);
  await client.ready(2_000);
  assertEquals((await client.callTool("echo", { message: "back" })).content[0].text, "back");
  assertEquals(initializes, 3);
});

test("http retry: idempotent requests are retried on 5xx and 408 with backoff", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect,
    retry,
  });
  fixture.knobs.failFirst = { count: 2, status: 502 };
  const page = await client.listTools();
  assert(page.tools.length > 0);
  assertEquals(posts(fixture, "tools/list").length, 3, "two failed attempts, then the answer");
  fixture.knobs.failFirst = { count: 1, status: 408 };
  const read = await client.readResource("test://resource1");
  assertEquals(read.contents.length, 1);
  assertEquals(posts(fixture, "resources/read").length, 2);
});

test("http retry: Retry-After is honoured", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect,
    retry,
  });
  fixture.knobs.failFirst = { count: 1, status: 429, retryAfter: "1" };
  const started = Date.now();
  await client.listPrompts();
  const waited = Date.now() - started;
  assert(waited >= 900, `waited for Retry-After (${waited} ms)`);
});

test("http retry: tools/call is not retried on 500, 408 or a 503 without Retry-After", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect,
    retry,
  });
  for (const status of [500, 408, 503]) {
    fixture.knobs.failFirst = { count: 1, status };
    const error = await mcpError(client.callTool("echo", { message: "once" }));
    assertEquals([error.kind, error.reason], ["transport", "http_status"]);
    assertEquals((error.data as { status: number }).status, status);
    assertEquals(fixture.knobs.failFirst.count, 0);
  }
  assertEquals(posts(fixture, "tools/call").length, 3, "one attempt each");
  assertEquals((await client.callTool("echo", { message: "fine" })).content[0].text, "fine");
});

test("http retry: tools/call is retried on 429 and on 503 with Retry-After", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect,
    retry,
  });
  fixture.knobs.failFirst = { count: 1, status: 429 };
  assertEquals((await client.callTool("echo", { message: "a" })).content[0].text, "a");
  fixture.knobs.failFirst = { count: 1, status: 503, retryAfter: "0" };
  assertEquals((await client.callTool("echo", { message: "b" })).content[0].text, "b");
  assertEquals(posts(fixture, "tools/call").length, 4, "each sent twice");
});

test("http retry: retries are bounded, and retry: false turns them off", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect,
    retry: { ...retry, attempts: 2 },
  });
  fixture.knobs.failFirst = { count: 10, status: 503 };
  const error = await mcpError(client.listTools());
  assertEquals(error.reason, "http_status");
  assertEquals(fixture.knobs.failFirst.count, 7, "three attempts in all");
  fixture.knobs.failFirst = undefined;

  await using plain = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect,
    retry: false,
  });
  fixture.knobs.failFirst = { count: 1, status: 503 };
  assertEquals((await mcpError(plain.listTools())).reason, "http_status");
  assertEquals(fixture.knobs.failFirst.count, 0);
});

test("http retry: a Retry-After past the timeout fails at once; a signal stops the wait", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect,
    retry,
  });
  fixture.knobs.failFirst = { count: 1, status: 503, retryAfter: "30" };
  let started = Date.now();
  const late = await mcpError(client.listTools({ timeout: 2_000 }));
  assertEquals((late.data as { retryAfterMs: number }).retryAfterMs, 30_000);
  assert(Date.now() - started < 1_000, "did not wait");

  fixture.knobs.failFirst = { count: 1, status: 503, retryAfter: "5" };
  const controller = new AbortController();
  started = Date.now();
  const pending = client.listTools({ signal: controller.signal });
  setTimeout(() => controller.abort(new Error("enough")), 50);
  const cancelled = await mcpError(pending);
  assertEquals(cancelled.kind, "cancelled");
  assert(Date.now() - started < 2_000, "the signal cut the wait short");
});

const POLICY: ResolvedRetry = {
  attempts: 2,
  initialDelay: 100,
  maxDelay: 1_000,
  factor: 2,
  jitter: 0,
  maxRetryAfter: 10_000,
};

function statusError(status: number, retryAfterMs?: number): McpError {
  return new McpError(`HTTP ${status}`, {
    kind: "transport",
    reason: "http_status",
    data: retryAfterMs === undefined ? { status } : { status, retryAfterMs },
  });
}

test("retryDelay: the policy table", () => {
  const rows: [string, McpError, number, number | undefined][] = [
    ["tools/list", statusError(500), 0, 100],
    ["tools/list", statusError(502), 1, 200],
    ["tools/list", statusError(503), 2, undefined], // used up
    ["tools/list", statusError(408), 0, 100],
    ["tools/list", statusError(429, 700), 0, 700], // Retry-After wins when longer
    ["tools/list", statusError(429, 50), 0, 100], // the backoff when longer
    ["tools/list", statusError(404), 0, undefined],
    ["tools/list", statusError(400), 0, undefined],
    ["tools/list", statusError(503, 20_000), 0, undefined], // past maxRetryAfter
    ["tools/call", statusError(500), 0, undefined],
    ["tools/call", statusError(408), 0, undefined],
    ["tools/call", statusError(503), 0, undefined],
    ["tools/call", statusError(503, 300), 0, 300],
    ["tools/call", statusError(429), 0, 100],
    ["custom/method", statusError(502), 0, undefined],
    ["custom/method", statusError(429), 0, 100],
    ["tools/list", new McpError("x", { kind: "transport", reason: "network" }), 0, undefined],
    ["tools/list", new McpError("x", { kind: "server", code: -32603 }), 0, undefined],
  ];
  for (const [method, error, retries, expected] of rows) {
    assertEquals(
      retryDelay(method, error, retries, POLICY, (n) => backoffDelay(n, POLICY, Math.random)),
      expected,
      `${method} ${JSON.stringify(error.data)} after ${retries}`,
    );
  }
  assertEquals(retryDelay("tools/list", statusError(500), 0, false, () => 0), undefined);
  assert(IDEMPOTENT_METHODS.has("resources/read") && !IDEMPOTENT_METHODS.has("tools/call"));
});

test("retry option: validated with a TypeError naming it", () => {
  const transport = inProcess(createFixtureServer());
  for (const bad of ["often", { attempts: -1 }, { attempts: 1.5 }, { tries: 3 }, { jitter: 2 }]) {
    assertThrows(
      () => createClient({ transport, retry: bad as never }),
      TypeError,
      'option "retry"',
    );
  }
});

// The fault suite over Streamable HTTP: a real fault-injecting server on 127.0.0.1
// (tests/fixtures/fault_http_server.ts) in front of the two-era fixture. Stalled and
// dribbled bodies, silent and cut event streams, status storms, cross-origin redirects,
// wrong content types, malformed, empty and oversized bodies: each call ends with its own
// answer or a clear McpError, and the next call works.
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient, ToolResult } from "../../client/types.ts";
import { streamableHttp, type StreamableHttpOptions } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import {
  event,
  type FaultRequest,
  type FaultServer,
  raw,
  redirect,
  silentSse,
  slowLoris,
  sse,
  startFaultServer,
  status,
} from "../fixtures/fault_http_server.ts";
import { sseConnection } from "../fixtures/_http_sse.ts";

const ERAS = [["modern", "dual"], ["legacy", "legacy-only"]] as const;
const RETRY = { attempts: 3, initialDelay: 1, maxDelay: 5, jitter: 0 };

interface Faulty {
  server: FaultServer;
  client: McpClient;
  warnings: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

async function faulty(
  mode: "dual" | "legacy-only",
  http: StreamableHttpOptions = {},
  options: Partial<ClientOptions> = {},
  setup?: (server: FaultServer) => void,
): Promise<Faulty> {
  const server = await startFaultServer({ core: { mode } });
  setup?.(server);
  const warnings: string[] = [];
  const client = createClient({
    transport: streamableHttp(server.url, http),
    reconnect: { attempts: 2, initialDelay: 1, maxDelay: 5, jitter: 0 },
    retry: RETRY,
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  await client.ready();
  return {
    server,
    client,
    warnings,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

/** Matches the POST of a `tools/call` of `name` (any tool when omitted). */
const call = (name?: string) => (r: FaultRequest) =>
  r.method === "POST" && r.body?.method === "tools/call" &&
  (name === undefined || r.body.params?.name === name);
const method = (name: string) => (r: FaultRequest) =>
  r.method === "POST" && r.body?.method === name;
const when = (match: (r: FaultRequest) => boolean, answer: (r: FaultRequest) => Response) =>
(
  r: FaultRequest,
) => match(r) ? answer(r) : undefined;

const textOf = (result: ToolResult) => String((result.content[0] as { text?: unknown }).text);
const echo = async (client: McpClient, message = "ok") =>
  textOf(await client.callTool("echo", { message }));

/** The POSTs of `method` the server received. */
const posts = (server: FaultServer, name: string) => server.requests.filter(method(name));

for (const [era, mode] of ERAS) {
  const name = (what: string) => `faults http [${era}]: ${what}`;

  test(
    name("a body dribbled byte by byte (slow loris) times out; the next call works"),
    async () => {
      await using f = await faulty(mode);
      f.server.inject(when(call("echo"), () => slowLoris()));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }, { timeout: 200 }));
      assertEquals(error.kind, "timeout");
      assertEquals(await echo(f.client), "ok");
    },
  );

  for (const keepAlive of [false, true]) {
    const what = keepAlive ? "sends only keep-alives" : "stays silent";
    test(name(`an event stream that ${what} times out; the next call works`), async () => {
      await using f = await faulty(mode);
      f.server.inject(when(call("echo"), () => silentSse(keepAlive)));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }, { timeout: 200 }));
      assertEquals(error.kind, "timeout");
      assertEquals(await echo(f.client), "ok");
    });
  }

  test(name("an event stream closed mid-event fails the call with stream_ended"), async () => {
    await using f = await faulty(mode);
    f.server.inject(when(call("echo"), (r) => {
      const whole = event({ jsonrpc: "2.0", id: r.body!.id, result: { content: [] } });
      return sse(whole.slice(0, whole.length / 2));
    }));
    const error = await mcpError(f.client.callTool("echo", { message: "x" }));
    assertEquals([error.kind, error.reason], ["transport", "stream_ended"]);
    assertEquals(posts(f.server, "tools/call").length, 1, "a tools/call is not sent again");
    assertEquals(await echo(f.client), "ok");
  });

  test(
    name("a 5xx storm without Retry-After: lists retried with a bound, calls never"),
    async () => {
      await using f = await faulty(mode);
      f.server.inject(when(method("tools/list"), () => status(502)), 2);
      assertEquals((await f.client.listTools()).tools.length, 7, "a short storm is ridden out");
      assertEquals(posts(f.server, "tools/list").length, 3);
      f.server.inject(when(method("tools/list"), () => status(503)), 100);
      const lists = await mcpError(f.client.listTools());
      assertEquals([lists.kind, lists.reason], ["transport", "http_status"]);
      assertEquals((lists.data as { status: number }).status, 503);
      assertEquals(posts(f.server, "tools/list").length, 3 + 1 + RETRY.attempts);
      f.server.clear();
      f.server.inject(when(call(), () => status(500)), 100);
      const calls = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals((calls.data as { status: number }).status, 500);
      assertEquals(posts(f.server, "tools/call").length, 1, "a tools/call is never retried on 500");
      f.server.clear();
      assertEquals(await echo(f.client), "ok");
    },
  );

  test(name("a 503 storm with Retry-After: calls too are retried, with a bound"), async () => {
    await using f = await faulty(mode);
    f.server.inject(when(call(), () => status(503, "0")), 2);
    assertEquals(await echo(f.client, "after the storm"), "after the storm");
    assertEquals(posts(f.server, "tools/call").length, 3);
    f.server.inject(when(call(), () => status(503, "0")), 100);
    const error = await mcpError(f.client.callTool("echo", { message: "x" }));
    assertEquals([error.kind, error.reason], ["transport", "http_status"]);
    assertEquals(error.data, { status: 503, retryAfterMs: 0 });
    assertEquals(posts(f.server, "tools/call").length, 3 + 1 + RETRY.attempts);
    f.server.clear();
    f.server.inject(when(call(), () => status(429, "3600")), 1);
    const long = await mcpError(f.client.callTool("echo", { message: "x" }, { timeout: 2_000 }));
    assertEquals((long.data as { status: number }).status, 429, "an hour's wait is not waited");
    f.server.clear();
    assertEquals(await echo(f.client), "ok");
  });

  test(
    name("a cross-origin redirect is refused; the other origin never sees the token"),
    async () => {
      await using other = await startFaultServer({ core: { mode } });
      await using f = await faulty(mode, { auth: { bearer: "secret-token-1234" } });
      f.server.inject(when(call(), () => redirect(other.url.href, 307)));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["transport", "redirect_refused"]);
      assert(!error.message.includes("secret-token-1234"), error.message);
      f.server.inject(when(method("tools/list"), () => redirect(other.url.href, 308)), 100);
      assertEquals((await mcpError(f.client.listTools())).reason, "redirect_refused");
      f.server.clear();
      assertEquals(await echo(f.client), "ok");
      f.server.inject(
        (r) => redirect(new URL("/elsewhere", other.url).href, r.method === "DELETE" ? 307 : 302),
        100,
      );
      await f.client.close();
      assertEquals(other.requests, [], "the other origin got no request at all");
      const seen = f.server.requests.map((r) => r.headers.authorization);
      assert(seen.every((h) => h === "Bearer secret-token-1234"), "the token went to its origin");
    },
  );

  const wrongTypes: [string, string | null, string][] = [
    ["text/html", "text/html", "<html><body>Welcome</body></html>"],
    ["text/plain carrying JSON", "text/plain", ""],
    ["no content type", null, ""],
  ];
  for (const [label, type, body] of wrongTypes) {
    test(name(`a response typed ${label} is unexpected_content_type`), async () => {
      await using f = await faulty(mode);
      f.server.inject(
        when(call(), (r) =>
          raw(
            body || JSON.stringify({ jsonrpc: "2.0", id: r.body!.id, result: { content: [] } }),
            type,
          )),
      );
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["protocol", "unexpected_content_type"]);
      assertEquals(await echo(f.client), "ok");
    });
  }

  test(name("JSON typed with parameters or capitals is still JSON"), async () => {
    await using f = await faulty(mode);
    for (const type of ["application/json; charset=utf-8", "Application/JSON"]) {
      f.server.inject(when(call(), (r) =>
        raw(
          JSON.stringify({
            jsonrpc: "2.0",
            id: r.body!.id,
            result: { content: [{ type: "text", text: type }] },
          }),
          type,
        )));
      assertEquals(await echo(f.client), type);
    }
  });

  const badBodies: [string, string, string][] = [
    ["malformed JSON", '{"jsonrpc":"2.0","id":', "malformed_body"],
    ["an empty body", "", "malformed_body"],
    ["JSON that is not a message", '{"hello":"world"}', "malformed_body"],
    ["a JSON array", "[]", "malformed_body"],
  ];
  for (const [label, body, reason] of badBodies) {
    test(name(`${label} is a protocol error naming the request`), async () => {
      await using f = await faulty(mode);
      f.server.inject(when(call(), () => raw(body, "application/json")));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["protocol", reason]);
      assertStringIncludes(error.message, "tools/call");
      assertEquals(await echo(f.client), "ok");
    });
  }

  test(name("malformed and empty error bodies give the status"), async () => {
    await using f = await faulty(mode);
    for (const body of ['{"error":', "", "<html>oops</html>"]) {
      f.server.inject(when(call(), () => raw(body, "application/json", 400)));
      const error = await mcpError(f.client.callTool("echo", { message: "x" }));
      assertEquals([error.kind, error.reason], ["transport", "http_status"], body);
      assertEquals((error.data as { status: number }).status, 400);
    }
    assertEquals(await echo(f.client), "ok");
  });

  test(name("oversized bodies and events are refused; the next call works"), async () => {
    await using f = await faulty(mode, { maxResponseBytes: 4096, maxEventBytes: 2048 });
    const big = (id: unknown) => ({
      jsonrpc: "2.0",
      id,
      result: { content: [], pad: "x".repeat(5000) },
    });
    f.server.inject(when(call(), (r) => raw(JSON.stringify(big(r.body!.id)), "application/json")));
    assertEquals(
      (await mcpError(f.client.callTool("echo", { message: "x" }))).reason,
      "response_too_large",
    );
    f.server.inject(when(call(), (r) => sse(event(big(r.body!.id)))));
    assertEquals(
      (await mcpError(f.client.callTool("echo", { message: "x" }))).reason,
      "event_too_large",
    );
    f.server.inject(when(call(), () => sse(`data: ${"y".repeat(3000)}`, true)));
    const line = await mcpError(f.client.callTool("echo", { message: "x" }, { timeout: 2_000 }));
    assertEquals(line.reason, "event_too_large", "an event that never ends is cut at the limit");
    assertEquals(await echo(f.client), "ok");
  });

  test(name("a response on a POST's stream to another request fails that POST only"), async () => {
    await using f = await faulty(mode);
    const slow = f.client.callTool("slow", { ms: 300, steps: 1 });
    const slowId = await until(() => f.server.requests.find(call("slow"))?.body?.id);
    const fake = { content: [{ type: "text", text: "fake" }], resultType: "complete" };
    f.server.inject(
      when(call("echo"), () => sse(event({ jsonrpc: "2.0", id: slowId, result: fake }))),
    );
    const error = await mcpError(f.client.callTool("echo", { message: "x" }));
    assertEquals([error.kind, error.reason], ["protocol", "unexpected_response"]);
    assertEquals(textOf(await slow), "done after 300 ms", "the slow call got its own answer");
  });
}

const gets = (server: FaultServer) => server.requests.filter((r) => r.method === "GET");
const notification = (data: string) => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", data },
});

test("faults http [legacy]: a response on the GET stream is skipped, whichever request it names", async () => {
  const held = sseConnection();
  await using f = await faulty("legacy-only", {}, {}, (server) => {
    server.inject((r) => r.method === "GET" ? held.response : undefined);
  });
  const seen: unknown[] = [];
  f.client.subscribeNotifications((n) => seen.push(n.params?.data));
  try {
    await until(() => gets(f.server)[0]);
    const slow = f.client.callTool("slow", { ms: 300, steps: 1 });
    const slowId = await until(() => f.server.requests.find(call("slow"))?.body?.id);
    const fake = { content: [{ type: "text", text: "fake" }] };
    held.write({ data: JSON.stringify({ jsonrpc: "2.0", id: slowId, result: fake }) });
    held.write({ data: JSON.stringify(notification("marker")) });
    await until(() => seen.includes("marker") || undefined);
    assertEquals(textOf(await slow), "done after 300 ms", "the slow call got its own answer");
    assertEquals(f.warnings.filter((w) => w.includes("response on the GET stream")).length, 1);
  } finally {
    held.close();
  }
});

test("faults http [legacy]: an empty SSE id resets the GET stream's resume point", async () => {
  await using f = await faulty("legacy-only", {}, {}, (server) => {
    server.inject((r) =>
      r.method === "GET" ? sse(`retry: 10\n${event(notification("one"), "a-1")}`) : undefined
    );
    server.inject((r) =>
      r.method === "GET" ? sse(`id:\n${event(notification("two"))}`) : undefined
    );
    server.inject((r) => r.method === "GET" ? silentSse() : undefined);
  });
  await until(() => gets(f.server)[2]);
  assertEquals(gets(f.server).map((r) => r.headers["last-event-id"]), [
    undefined,
    "a-1",
    undefined,
  ]);
});

test("faults http [legacy]: a POST stream whose id was reset on resuming ends there", async () => {
  await using f = await faulty("legacy-only");
  const resuming = (r: FaultRequest) => r.method === "GET" && r.headers["last-event-id"] === "p-1";
  f.server.inject(when(call("echo"), () => sse("retry: 10\nid: p-1\ndata: \n\n")));
  f.server.inject(when(resuming, () => sse("id:\n\n")), 5);
  const error = await mcpError(f.client.callTool("echo", { message: "x" }));
  assertEquals([error.kind, error.reason], ["transport", "stream_ended"]);
  assertEquals(f.server.requests.filter(resuming).length, 1, "resumed once, not after the reset");
  assertEquals(await echo(f.client), "ok");
});

/** Polls `get` until it returns a value. */
async function until<T>(get: () => T | undefined, timeout = 5_000): Promise<T> {
  const end = Date.now() + timeout;
  for (let value = get();; value = get()) {
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

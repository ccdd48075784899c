// The client over Streamable HTTP, against the two-era fixture served on 127.0.0.1.
import { connectClient, createClient } from "../../client/client.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";

const reconnect = { attempts: 3, initialDelay: 10, maxDelay: 50, jitter: 0 };

test("http client: auto against a dual-era server speaks modern, POST only", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({ transport: streamableHttp(fixture.url), reconnect });
  assertEquals(client.era(), "modern");
  const result = await client.callTool("echo", { message: "over http" });
  assertEquals(result.content[0].text, "over http");
  const tools = await client.listAllTools();
  assert(tools.some((tool) => tool.name === "echo"));
  await client.close();
  assertEquals(new Set(fixture.requests.map((r) => r.method)), new Set(["POST"]));
  const call = fixture.requests.find((r) => r.headers["mcp-method"] === "tools/call")!;
  assertEquals([call.headers["mcp-name"], call.headers["mcp-protocol-version"]], [
    "echo",
    "2026-07-28",
  ]);
});

test("http client: auto against a legacy-only server initializes a session", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  await using client = await connectClient({ transport: streamableHttp(fixture.url), reconnect });
  assertEquals(client.era(), "legacy");
  const result = await client.callTool("echo", { message: "legacy" });
  assertEquals(result.content[0].text, "legacy");
  await client.close();
  const posts = fixture.requests.filter((r) => r.method === "POST");
  assertEquals((posts[0].body as { method: string }).method, "server/discover");
  assertEquals((posts[1].body as { method: string }).method, "initialize");
  const call = posts.find((r) => (r.body as { method: string }).method === "tools/call")!;
  assertEquals(call.headers["mcp-session-id"], "session-1");
  assertEquals(call.headers["mcp-protocol-version"], "2025-11-25");
  assertEquals(fixture.deleted, ["session-1"], "close deleted the session");
});

test("http client: legacy progress over an event stream reaches onProgress", async () => {
  await using fixture = await startHttpFixture({
    core: { mode: "legacy-only" },
    http: { response: "sse" },
  });
  await using client = await connectClient({ transport: streamableHttp(fixture.url), reconnect });
  const seen: number[] = [];
  const result = await client.callTool("slow", { ms: 60, steps: 3 }, {
    onProgress: (progress) => seen.push(progress.progress),
  });
  assertEquals(seen, [1, 2, 3]);
  assert(String(result.content[0].text).startsWith("done"));
});

test("http client: modern progress over an event stream reaches onProgress", async () => {
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  await using client = await connectClient({ transport: streamableHttp(fixture.url), reconnect });
  const seen: number[] = [];
  await client.callTool("slow", { ms: 60, steps: 2 }, {
    onProgress: (progress) => seen.push(progress.progress),
  });
  assertEquals(seen, [1, 2]);
});

test("http client: an expired session is re-initialized and the request retried once", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  await using client = await connectClient({ transport: streamableHttp(fixture.url), reconnect });
  await client.callTool("echo", { message: "before" });
  fixture.expireSessions();
  const result = await client.callTool("echo", { message: "after" });
  assertEquals(result.content[0].text, "after");
  assertEquals(client.era(), "legacy");
  const inits = fixture.requests.filter((r) =>
    (r.body as { method?: string })?.method === "initialize"
  );
  assertEquals(inits.length, 2);
  assertEquals(inits[1].headers["mcp-session-id"], undefined);
});

test("http client: a 503 with Retry-After during the probe is retried after the delay", async () => {
  await using fixture = await startHttpFixture({
    http: { failFirst: { count: 1, status: 503, retryAfter: "1" } },
  });
  const started = Date.now();
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect: { attempts: 3, initialDelay: 10, maxDelay: 50, jitter: 0 },
  });
  const elapsed = Date.now() - started;
  assertEquals(client.era(), "modern", "a 503 is never a downgrade");
  assert(elapsed >= 900, `waited for Retry-After (${elapsed} ms)`);
  const discovers = fixture.requests.filter((r) => r.headers["mcp-method"] === "server/discover");
  assertEquals(discovers.length, 2);
});

test("http client: 401 on the probe fails with kind auth", async () => {
  await using fixture = await startHttpFixture({ http: { requireToken: "t" } });
  const client = createClient({ transport: streamableHttp(fixture.url), reconnect: false });
  try {
    await client.ready(5000);
    throw new Error("expected a rejection");
  } catch (error) {
    assert(isMcpError(error), String(error));
    assertEquals(error.kind, "auth");
  } finally {
    await client.close();
  }
});

test("http client: a bearer token is sent on every request", async () => {
  await using fixture = await startHttpFixture({
    core: { mode: "legacy-only" },
    http: { requireToken: "tok-1" },
  });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { auth: { bearer: "tok-1" } }),
    reconnect,
  });
  await client.callTool("echo", { message: "x" });
  await client.close();
  for (const request of fixture.requests) {
    assertEquals(request.headers["authorization"], "Bearer tok-1", request.method);
  }
});

// setAuth over real HTTP (validated by the transport, reconnects, closed stays closed,
// private listings forgotten) and no secret in any error message or status().
import { connectClient, createClient } from "../../client/client.ts";
import { safeChallenge } from "../../transports/challenge_summary.ts";
import type { McpClient } from "../../client/types.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { inProcess } from "../../transports/in_process.ts";
import { stdio } from "../../transports/stdio.ts";
import { type FetchLike, streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, assertRejects, test } from "../_harness.ts";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { mcpError, waitFor } from "./_helpers.ts";

const reconnect = { attempts: 2, initialDelay: 5, maxDelay: 20, jitter: 0 };

function discovers(requests: { body?: unknown }[]): number {
  return requests.filter((r) => (r.body as { method?: string })?.method === "server/discover")
    .length;
}

test("setAuth: swaps the credentials and reconnects; requests in flight fail with transport", async () => {
  await using fixture = await startHttpFixture({ http: { requireToken: "token-a" } });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { auth: { bearer: "token-a" } }),
    reconnect,
  });
  const slow = mcpError(client.callTool("slow", { ms: 400, steps: 1 }));
  await waitFor(
    () => fixture.requests.some((r) => r.headers["mcp-method"] === "tools/call"),
    "the slow call",
  );
  fixture.knobs.requireToken = "token-b";
  const sentBefore = fixture.requests.length;
  await client.setAuth({ bearer: "token-b" });
  const error = await slow;
  assertEquals(error.kind, "transport");
  assertEquals(client.status().state, "ready");
  assertEquals((await client.callTool("echo", { message: "b" })).content[0].text, "b");
  const after = fixture.requests.slice(sentBefore);
  assert(after.length >= 2, "probed again and called");
  for (const request of after) assertEquals(request.headers["authorization"], "Bearer token-b");
});

test("setAuth: an invalid form is a TypeError from the transport, and nothing changes", async () => {
  await using fixture = await startHttpFixture();
  await using client = await connectClient({ transport: streamableHttp(fixture.url), reconnect });
  const before = discovers(fixture.requests);
  for (const bad of [{ bearer: "two words" }, { bearer: "" }, "a-string", 42, { token: "x" }]) {
    await assertRejects(() => client.setAuth(bad as never), TypeError);
  }
  await assertRejects(
    () => client.setAuth({ bearer: "fine" }, { credentialId: 7 as never }),
    TypeError,
  );
  assertEquals(discovers(fixture.requests), before, "no reconnect");
  assertEquals(client.status().state, "ready");
  await client.setAuth(() => "from-a-function", { credentialId: "alice" });
  assertEquals(fixture.requests.at(-1)?.headers["authorization"], "Bearer from-a-function");
});

test("setAuth: a transport without credentials (in-process, stdio) is a TypeError", async () => {
  await using inProc = createClient({ transport: inProcess(createFixtureServer()) });
  await inProc.ready();
  const error = await assertRejects(() => inProc.setAuth({ bearer: "x" }), TypeError);
  assert(error.message.includes("in_process"), error.message);
  assertEquals(inProc.status().state, "ready");
  await using viaStdio = createClient({
    transport: stdio({ command: "conduit-no-such-command-for-tests" }),
    reconnect: false,
  });
  await assertRejects(() => viaStdio.setAuth({ bearer: "x" }), TypeError, "stdio");
});

test("setAuth: a closed client keeps the new credentials and stays closed", async () => {
  await using fixture = await startHttpFixture({ http: { requireToken: "old" } });
  const client = await connectClient({
    transport: streamableHttp(fixture.url, { auth: { bearer: "old" } }),
    reconnect,
  });
  await client.close();
  fixture.knobs.requireToken = "new";
  const sent = fixture.requests.length;
  await client.setAuth({ bearer: "new" });
  assertEquals(client.status().state, "closed");
  assertEquals((await mcpError(client.ping())).kind, "closed");
  assertEquals(fixture.requests.length, sent, "nothing was sent");
  await client.reconnect();
  await client.ping();
  assertEquals(fixture.requests.at(-1)?.headers["authorization"], "Bearer new");
  await client.close();
});

test("setAuth: a new identity forgets listings not marked public; the same one keeps them", async () => {
  await using legacy = await startHttpFixture({ core: { mode: "legacy-only" } });
  await using client = await connectClient({
    transport: streamableHttp(legacy.url, { auth: () => "t1", credentialId: "alice" }),
    reconnect,
  });
  const notCached = async (c: McpClient) =>
    (await mcpError(Promise.resolve().then(() => c.cachedTools()))).reason;
  await client.listAllTools();
  await client.setAuth(() => "t2", { credentialId: "alice" });
  assertEquals(client.cachedTools().length, 7, "same identity: kept");
  await client.setAuth(() => "t3", { credentialId: "bob" });
  assertEquals(await notCached(client), "not_cached", "legacy listings have no scope");
  await client.listAllTools();
  await client.setAuth(() => "t4");
  assertEquals(await notCached(client), "not_cached", "an unnamed identity counts as new");

  await using modern = await startHttpFixture();
  await using other = await connectClient({ transport: streamableHttp(modern.url), reconnect });
  await other.listAllTools();
  await other.setAuth({ bearer: "someone-else" });
  assertEquals(other.cachedTools().length, 7, "public listings are kept");
});

const SECRETS = ["SECRET-TOKEN-abc", "s3cr3t-desc", "SECRET-PARAM", "qsecret", "eyJhbGciOiJI"];

/** A fetch answering every POST with 401 and a challenge full of secrets. */
const refusing: FetchLike = () =>
  Promise.resolve(
    new Response("no", {
      status: 401,
      headers: {
        "www-authenticate": 'Bearer realm="hidden-realm", error="invalid_token", ' +
          'error_description="token SECRET-TOKEN-abc is s3cr3t-desc", ' +
          'access_token="SECRET-PARAM", scope="read write", ' +
          'resource_metadata="https://as.example/prm?token=qsecret#frag", ' +
          'nonce="eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl"',
      },
    }),
  );

function assertNoSecret(where: string, text: string): void {
  for (const secret of SECRETS) {
    assert(!text.includes(secret), `${where} leaks ${secret}: ${text}`);
  }
}

test("auth errors: no token or secret challenge parameter in messages, data or status()", async () => {
  const client = createClient({
    transport: streamableHttp("http://127.0.0.1:9/mcp", {
      auth: { bearer: "SECRET-TOKEN-abc" },
      fetch: refusing,
    }),
    reconnect: false,
  });
  try {
    const error = await mcpError(client.ready(5_000));
    assertEquals(error.kind, "auth");
    assertNoSecret("the message", error.message);
    assertNoSecret("the data", JSON.stringify(error.data));
    assert(error.message.includes('error="invalid_token"'), error.message);
    assert(error.message.includes('scope="read write"'), error.message);
    assert(error.message.includes('resource_metadata="https://as.example/prm"'), error.message);
    assert(!error.message.includes("hidden-realm"), "only error, scope and resource_metadata");
    const status = client.status();
    assertNoSecret("status()", JSON.stringify({ ...status, error: status.error?.message }));
    assertNoSecret("status().error.data", JSON.stringify(status.error?.data));
  } finally {
    await client.close();
  }
});

test("auth errors: a rejected setAuth names no token", async () => {
  await using fixture = await startHttpFixture({ http: { requireToken: "good" } });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { auth: { bearer: "good" } }),
    reconnect: false,
  });
  const error = await mcpError(client.setAuth({ bearer: "SECRET-TOKEN-abc" }));
  assertEquals(error.kind, "auth");
  assertNoSecret("the message", error.message);
  assertNoSecret("the data", JSON.stringify(error.data));
  assertNoSecret(
    "status()",
    JSON.stringify(
      client.status(),
      (_k, v) => isMcpError(v) ? { message: v.message, data: v.data } : v,
    ),
  );
  assertEquals(client.status().state, "closed", "gave up: reconnect is off");
});

test("safeChallenge: only the scheme, error, scope and resource_metadata", () => {
  const rows: [string | undefined, unknown][] = [
    [undefined, undefined],
    ["", undefined],
    ['Bearer realm="x"', { scheme: "Bearer", params: {} }],
    [
      'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/p?q=1"',
      {
        scheme: "Bearer",
        params: { error: "insufficient_scope", scope: "a b", resource_metadata: "https://h/p" },
      },
    ],
    ["Basic dXNlcjpwYXNzd29yZA==", { scheme: "Basic", params: {} }],
    ['Bearer scope="eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"', { scheme: "Bearer", params: {} }],
    ['Bearer scope="' + "x".repeat(100) + '"', { scheme: "Bearer", params: {} }],
    ['Bearer resource_metadata="not a url"', { scheme: "Bearer", params: {} }],
    ['Bearer error="bad\u0001"', { scheme: "Bearer", params: {} }],
  ];
  for (const [raw, expected] of rows) assertEquals(safeChallenge(raw), expected, String(raw));
});

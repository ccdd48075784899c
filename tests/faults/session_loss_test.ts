// Session loss as real servers report it, over real HTTP: a legacy session the server
// dropped is answered with 404, with 400 + JSON-RPC -32000, with a plain-text 400 or with
// -32001; the client starts a new session (subscriptions made again) and the call goes
// through. Ordinary 400s are not mistaken for it; a renewal that fails releases the
// requests queued behind it; an unreachable server makes the client reconnect.
import { connectClient } from "../../client/client.ts";
import { isSessionLoss } from "../../transports/_http_session.ts";
import { type FetchLike, streamableHttp } from "../../transports/streamable_http.ts";
import { assertEquals, test } from "../_harness.ts";
import { mcpError, waitFor } from "../client/_helpers.ts";
import type { LostSession } from "../fixtures/_http_legacy.ts";
import { type HttpFixture, startHttpFixture } from "../fixtures/http_server.ts";

const reconnect = { attempts: 50, initialDelay: 5, maxDelay: 20, jitter: 0 };
const URI = "test://resource1";

function methodOf(body: unknown): string | undefined {
  return (body as { method?: string } | undefined)?.method;
}

function posts(fixture: HttpFixture, method: string) {
  return fixture.requests.filter((r) => r.method === "POST" && methodOf(r.body) === method);
}

/** A fetch that lets `intercept` answer a POST (given its JSON-RPC body) before the fixture. */
function interceptingFetch(
  intercept: (
    body: { method?: string; id?: number },
    request: Request,
  ) => Promise<Response | undefined> | undefined,
): FetchLike {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      const answer = await intercept(JSON.parse(await request.clone().text()), request);
      if (answer !== undefined) return answer;
    }
    return globalThis.fetch(request);
  };
}

const rpc = (code: number, message: string, id: number | null = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

test("session loss: which error answers to a request with a session id mean a lost session", () => {
  const table: [number, string, boolean][] = [
    [404, "", true],
    [404, "Not Found", true],
    [400, rpc(-32000, "Bad Request: No valid session ID provided"), true],
    [400, rpc(-32000, "Bad Request: Mcp-Session-Id header is required"), true],
    [400, rpc(-32000, "Bad Request: Server not initialized"), true],
    [400, rpc(-32600, "Invalid Request: unknown sessionId"), true],
    [400, rpc(-32001, "Session not found"), true],
    [410, rpc(-32001, "Session not found"), true],
    [400, "Invalid or missing session ID", true],
    [400, '{"error":"invalid session"}', true],
    // Ordinary bad requests.
    [400, rpc(-32602, "Invalid params: session_name is required"), false],
    [400, rpc(-32000, "Bad Request: Unsupported protocol version"), false],
    [400, rpc(-32700, "Parse error"), false],
    [400, "Bad Request", false],
    [400, "", false],
    [422, rpc(-32000, "No valid session ID provided"), false],
    [500, rpc(-32001, "Session not found"), false],
    [401, "session expired, log in again", false],
    [403, rpc(-32001, "Session not found"), false],
    [200, rpc(-32001, "Session not found"), false],
  ];
  for (const [status, body, lost] of table) {
    assertEquals(isSessionLoss(status, body), lost, `${status} ${body}`);
  }
});

/** A subscribed legacy client on a fixture that answers a lost session with `answer`. */
async function subscribedClient(answer: LostSession, getStream: boolean) {
  const fixture = await startHttpFixture({
    core: { mode: "legacy-only" },
    http: { lostSession: answer, getStream },
  });
  const client = await connectClient({
    transport: streamableHttp(fixture.url, { reconnectDelay: 5 }),
    reconnect,
  });
  const updates: string[] = [];
  client.subscribeNotifications((n) => {
    if (n.method === "notifications/resources/updated") updates.push(String(n.params.uri));
  });
  await client.subscribe(URI);
  assertEquals((await client.callTool("echo", { message: "before" })).content[0].text, "before");
  return { fixture, client, updates };
}

/** Waits until the client subscribed again on the fixture's second session. */
async function subscribedAgain(fixture: HttpFixture): Promise<void> {
  await waitFor(
    () =>
      posts(fixture, "resources/subscribe").some((r) =>
        r.headers["mcp-session-id"] === "session-2"
      ),
    "the subscription made again on the new session",
  );
  await waitFor(() => fixture.core.updateResource(URI) === 1, "the new session subscribed");
}

for (const answer of ["404", "400_json", "400_text", "400_not_found"] as LostSession[]) {
  test(`session loss (${answer}) found by a call: a new session, the call succeeds, subscriptions made again`, async () => {
    const { fixture, client } = await subscribedClient(answer, false);
    await using _fixture = fixture;
    await using _client = client;
    fixture.expireSessions();
    const after = await client.callTool("echo", { message: "after" });
    assertEquals(after.content[0].text, "after");
    assertEquals(client.status().state, "ready");
    assertEquals(posts(fixture, "initialize").length, 2, "one new session");
    assertEquals(fixture.sessions(), ["session-2"]);
    const calls = posts(fixture, "tools/call").map((r) => r.headers["mcp-session-id"]);
    assertEquals(calls, ["session-1", "session-1", "session-2"], "lost once, then sent again");
    await subscribedAgain(fixture);
  });

  test(`session loss (${answer}) found by the GET stream: with no call made, a new session; updates flow again`, async () => {
    const { fixture, client, updates } = await subscribedClient(answer, true);
    await using _fixture = fixture;
    await using _client = client;
    await waitFor(() => fixture.requests.some((r) => r.method === "GET"), "the GET stream");
    fixture.expireSessions(); // ends the GET stream too: it comes back to a lost session
    await subscribedAgain(fixture);
    await waitFor(() => updates.length === 1, "the update on the new session");
    assertEquals(updates, [URI]);
    assertEquals(client.status().state, "ready");
    assertEquals(fixture.sessions(), ["session-2"]);
    assertEquals((await client.callTool("echo", { message: "after" })).content[0].text, "after");
  });
}

test("session loss: a 400 to a request that carried no session id is an ordinary error", async () => {
  // A legacy server that hands out no session id, then says "No valid session ID" (400).
  await using fixture = await startHttpFixture({
    core: { mode: "legacy-only" },
    http: { getStream: false },
  });
  const fetch = interceptingFetch(async (body, request) => {
    if (body.method === "initialize") {
      const answer = await globalThis.fetch(request);
      return new Response(await answer.text(), {
        status: answer.status,
        headers: { "content-type": "application/json" },
      });
    }
    if (body.method === "notifications/initialized") return new Response(null, { status: 202 });
    return undefined;
  });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { fetch }),
    reconnect,
  });
  const error = await mcpError(client.callTool("echo", { message: "x" }));
  assertEquals([error.kind, error.code], ["server", -32000]);
  const call = posts(fixture, "tools/call");
  assertEquals(call.length, 1);
  assertEquals(call[0].headers["mcp-session-id"], undefined, "sent without a session id");
  assertEquals(posts(fixture, "initialize").length, 1, "no new session was started");
  assertEquals(client.status().state, "ready");
});

test("session loss: a real -32602 (in a 400 on a session) is an ordinary error", async () => {
  await using fixture = await startHttpFixture({ core: { mode: "legacy-only" } });
  const fetch = interceptingFetch((body, request) =>
    body.method === "tools/call" && request.headers.has("mcp-session-id")
      ? Promise.resolve(
        new Response(rpc(-32602, "Invalid params: unknown session_name", body.id), {
          status: 400,
          headers: { "content-type": "application/json" },
        }),
      )
      : undefined
  );
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { fetch }),
    reconnect,
  });
  const error = await mcpError(client.callTool("echo", { message: "x" }));
  assertEquals([error.kind, error.code], ["server", -32602]);
  assertEquals(posts(fixture, "initialize").length, 1, "no new session was started");
  assertEquals(fixture.sessions(), ["session-1"]);
});

test("session loss: a renewal that fails releases the requests queued behind it with its error", async () => {
  await using fixture = await startHttpFixture({
    core: { mode: "legacy-only" },
    http: { lostSession: "400_json", getStream: false }, // the call finds the loss
  });
  let initializes = 0;
  const hold = Promise.withResolvers<void>();
  const fetch = interceptingFetch(async ({ method }) => {
    if (method !== "initialize" || ++initializes !== 2) return undefined;
    await hold.promise;
    return new Response("cannot start a session now", { status: 400 });
  });
  await using client = await connectClient({
    transport: streamableHttp(fixture.url, { fetch }),
    reconnect,
    requestTimeout: 60_000,
  });
  // The listing methods load on first use: loaded now, `listTools` below is queued behind the
  // renewal at once, rather than after its module loads (by then the client may have
  // reconnected, and the request goes out on the new session).
  await client.listTools();
  const listed = posts(fixture, "tools/list").length;
  fixture.expireSessions();
  const first = mcpError(client.callTool("echo", { message: "first" }));
  await waitFor(() => initializes === 2, "the renewal's initialize");
  // Queued behind the renewal, each with a long timeout of its own.
  const queued = [
    mcpError(client.callTool("echo", { message: "second" }, { timeout: 60_000 })),
    mcpError(client.listTools({ timeout: 60_000 })),
  ];
  hold.resolve();
  for (const error of [await first, ...await Promise.all(queued)]) {
    assertEquals([error.kind, error.reason], ["transport", "session_renewal_failed"]);
  }
  assertEquals(posts(fixture, "tools/list").length, listed, "the queued requests were never sent");
  // The client reconnects on its own.
  await client.ready(5_000);
  assertEquals((await client.callTool("echo", { message: "back" })).content[0].text, "back");
});

for (const era of ["legacy", "modern"] as const) {
  test(`unreachable server (${era}): reconnecting with attempts counted; calls made meanwhile queue`, async () => {
    await using fixture = await startHttpFixture({
      core: { mode: era === "legacy" ? "legacy-only" : "modern-only" },
    });
    let down = false;
    let refused = 0;
    const fetch: FetchLike = (input, init) => {
      if (!down) return globalThis.fetch(input, init);
      refused++;
      return Promise.reject(new TypeError("connection refused"));
    };
    await using client = await connectClient({
      transport: streamableHttp(fixture.url, { fetch, reconnectDelay: 5 }),
      reconnect: { attempts: 1000, initialDelay: 5, maxDelay: 10, jitter: 0 },
    });
    assertEquals(client.era(), era);
    assertEquals((await client.callTool("echo", { message: "up" })).content[0].text, "up");
    fixture.expireSessions(); // the server restarts while down: its sessions are gone
    down = true;

    const failed = await mcpError(client.callTool("echo", { message: "lost" }));
    assertEquals([failed.kind, failed.reason], ["transport", "network"]);
    assertEquals(client.status().state, "reconnecting");
    await waitFor(() => client.status().attempts > 1, "reconnect attempts", 5_000);
    assertEquals(client.status().error?.kind, "transport", "why it reconnects");

    const queued = client.callTool("echo", { message: "queued" });
    const sentBefore = posts(fixture, "tools/call").length;
    const refusedBefore = refused;
    await waitFor(() => refused > refusedBefore + 3, "more attempts while the call waits", 5_000);
    assertEquals(posts(fixture, "tools/call").length, sentBefore, "the call waited");
    down = false;
    assertEquals((await queued).content[0].text, "queued");
    const status = client.status();
    assertEquals([status.state, status.attempts, status.era], ["ready", 0, era]);
    if (era === "legacy") {
      assertEquals(fixture.sessions(), ["session-2"], "a new session on the server that came back");
    } else {
      assertEquals(posts(fixture, "server/discover").length, 2, "probed again");
    }
  });
}

// The Streamable HTTP transport in the legacy era (2025-11-25, 2025-06-18): sessions, the GET
// stream, server requests, resumption with Last-Event-ID after retry:, expiry and DELETE.
import type { JsonRpcMessage, JsonRpcRequest } from "../../protocol/jsonrpc.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import type { TransportLink } from "../../transports/transport.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { type HttpFixture, startHttpFixture } from "../fixtures/http_server.ts";
import {
  initializeRequest,
  legacyRequest,
  type RecordingSink,
  recordingSink,
  rejection,
  resultOf,
  waitFor,
} from "./_http_helpers.ts";

async function handshake(
  link: TransportLink,
  sink: RecordingSink,
  version = "2025-11-25",
  id = 1,
): Promise<void> {
  await link.send(initializeRequest(id, version));
  const answer = await sink.next((m) => "id" in m && m.id === id && !("method" in m));
  link.setProtocol({ era: "legacy", version: resultOf(answer).protocolVersion as string });
  await link.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

function gets(fixture: HttpFixture) {
  return fixture.requests.filter((r) => r.method === "GET");
}

const isMethod = (method: string) => (m: JsonRpcMessage) => "method" in m && m.method === method;

test("http legacy: the session id and version are sent after initialize; GET opens", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  await link.send(legacyRequest(2, "tools/list"));
  await waitFor(() => gets(fixture).length === 1, 3000, "the GET stream");
  await link.close();
  const [init, initialized, list] = fixture.requests.filter((r) => r.method === "POST");
  assertEquals(init.headers["mcp-session-id"], undefined);
  assertEquals(init.headers["mcp-protocol-version"], undefined);
  assertEquals(init.headers["accept"], "application/json, text/event-stream");
  for (const request of [initialized, list, gets(fixture)[0]]) {
    assertEquals(request.headers["mcp-session-id"], "session-1");
    assertEquals(request.headers["mcp-protocol-version"], "2025-11-25");
    assertEquals(request.headers["mcp-method"], undefined, "no modern headers in legacy");
  }
  assertEquals(gets(fixture)[0].headers["accept"], "text/event-stream");
  assertEquals((resultOf(sink.messages[1]).tools as unknown[]).length > 0, true);
});

test("http legacy: 2025-06-18 sends its own version", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink, "2025-06-18");
  await link.send(legacyRequest(2, "ping"));
  await link.close();
  const last = fixture.requests.filter((r) => r.method === "POST").at(-1)!;
  assertEquals(last.headers["mcp-protocol-version"], "2025-06-18");
});

test("http legacy: server notifications and requests arrive on the GET stream", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  await waitFor(() => gets(fixture).length === 1);
  await link.send(legacyRequest(2, "tools/call", { name: "notify", arguments: {} }));
  await sink.next(isMethod("notifications/tools/list_changed"));
  // A server request (ping) on the GET stream; the client's answer is POSTed (202).
  const calling = link.send(
    legacyRequest(3, "tools/call", { name: "ask_client", arguments: { method: "ping" } }),
  );
  const ask = await sink.next(isMethod("ping")) as JsonRpcRequest;
  await link.send({ jsonrpc: "2.0", id: ask.id, result: {} });
  await calling;
  const result = await sink.next((m) => "id" in m && m.id === 3 && "result" in m);
  assertStringIncludes(JSON.stringify(resultOf(result)), "result");
  await link.close();
});

test("http legacy: a server request on a POST event stream goes to the sink", async () => {
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  const calling = link.send(
    legacyRequest(2, "tools/call", { name: "ask_client", arguments: { method: "roots/list" } }),
  );
  const ask = await sink.next(isMethod("roots/list")) as JsonRpcRequest;
  await link.send({ jsonrpc: "2.0", id: ask.id, result: { roots: [] } });
  await calling;
  const result = resultOf(sink.messages.at(-1)!);
  assertStringIncludes(JSON.stringify(result), "roots");
  const answer = fixture.requests.find((r) => (r.body as { id?: unknown })?.id === ask.id)!;
  assertEquals(answer.headers["mcp-session-id"], "session-1");
  await link.close();
});

test("http legacy: progress on a POST event stream, then the response", async () => {
  await using fixture = await startHttpFixture({ http: { response: "sse" } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  await link.send(
    legacyRequest(2, "tools/call", {
      name: "slow",
      arguments: { ms: 60, steps: 2 },
      _meta: { progressToken: "tok" },
    }),
  );
  const tail = sink.messages.slice(-3).map((m) => "method" in m ? m.method : "response");
  assertEquals(tail, ["notifications/progress", "notifications/progress", "response"]);
  await link.close();
});

test("http legacy: a POST stream closed early is resumed by GET with Last-Event-ID after retry", async () => {
  await using fixture = await startHttpFixture({ http: { response: "sse", polling: 150 } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  fixture.knobs.getStream = false; // only the resumption GET, no standalone stream
  const started = Date.now();
  await link.send(
    legacyRequest(2, "tools/call", {
      name: "slow",
      arguments: { ms: 40, steps: 2 },
      _meta: { progressToken: 5 },
    }),
  );
  const elapsed = Date.now() - started;
  assert(elapsed >= 140, `waited for retry: (${elapsed} ms)`);
  const resume = fixture.requests.filter((r) => r.headers["last-event-id"] !== undefined);
  assertEquals(resume.length, 1);
  assertEquals(resume[0].method, "GET");
  assertEquals(resume[0].headers["last-event-id"], "session-1.1-1");
  assertEquals(resume[0].headers["mcp-session-id"], "session-1");
  const tail = sink.messages.slice(-3).map((m) => "method" in m ? m.method : "response");
  assertEquals(tail, ["notifications/progress", "notifications/progress", "response"]);
  await link.close();
});

test("http legacy: the GET stream reconnects after a graceful close with Last-Event-ID", async () => {
  await using fixture = await startHttpFixture({ http: { polling: 60 } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  await waitFor(() => gets(fixture).length >= 2, 3000, "a reconnect");
  const second = gets(fixture)[1];
  assertEquals(second.headers["last-event-id"], "session-1.get-1");
  await link.send(legacyRequest(2, "tools/call", { name: "notify", arguments: {} }));
  await sink.next(isMethod("notifications/tools/list_changed"), 3000);
  assertEquals(sink.messages.filter(isMethod("notifications/tools/list_changed")).length, 1);
  await link.close();
  const count = gets(fixture).length;
  await new Promise((resolve) => setTimeout(resolve, 200));
  assertEquals(gets(fixture).length, count, "no reconnects after close");
});

test("http legacy: 405 on GET means no stream, quietly", async () => {
  await using fixture = await startHttpFixture({ http: { getStream: false } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url, { reconnectDelay: 10 }).open(sink);
  await handshake(link, sink);
  await waitFor(() => gets(fixture).length === 1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assertEquals(gets(fixture).length, 1);
  assertEquals(sink.warnings, []);
  await link.send(legacyRequest(2, "ping"));
  await link.close();
});

test("http legacy: a 404 for the session is session_expired; a new initialize starts over", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  await link.send(legacyRequest(2, "tools/list"));
  fixture.expireSessions();
  const error = await rejection(link.send(legacyRequest(3, "tools/list")));
  assertEquals([error.kind, error.reason], ["transport", "session_expired"]);
  // The client re-initializes on the same link and retries once.
  await handshake(link, sink, "2025-11-25", 4);
  await link.send(legacyRequest(5, "tools/list"));
  const posts = fixture.requests.filter((r) => r.method === "POST");
  const reinit = posts.find((r) => (r.body as { id?: unknown }).id === 4)!;
  assertEquals(reinit.headers["mcp-session-id"], undefined, "fresh initialize, no old session");
  assertEquals(posts.at(-1)!.headers["mcp-session-id"], "session-2");
  assert("result" in sink.messages.at(-1)!);
  await link.close();
});

test("http legacy: close DELETEs the session; 405 is fine", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url, { auth: { bearer: "tok" } }).open(sink);
  await handshake(link, sink);
  await link.close();
  await link.close();
  const deletes = fixture.requests.filter((r) => r.method === "DELETE");
  assertEquals(deletes.length, 1);
  assertEquals(deletes[0].headers["mcp-session-id"], "session-1");
  assertEquals(deletes[0].headers["authorization"], "Bearer tok");
  assertEquals(fixture.deleted, ["session-1"]);

  fixture.knobs.allowDelete = false;
  const other = recordingSink();
  const link2 = await streamableHttp(fixture.url).open(other);
  await handshake(link2, other);
  await link2.close();
  assertEquals(fixture.requests.filter((r) => r.method === "DELETE").length, 2);
});

test("http legacy: no session id, no DELETE; modern links never DELETE", async () => {
  await using fixture = await startHttpFixture();
  const link = await streamableHttp(fixture.url).open(recordingSink());
  await link.close();
  assertEquals(fixture.requests.length, 0);
});

test("http legacy: a GET stream whose session ended reconnects once, then stops with a warning", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url, { reconnectDelay: 20 }).open(sink);
  await handshake(link, sink);
  await waitFor(() => gets(fixture).length === 1);
  // Ending the session's streams from the server side (as a restart would) ends the GET.
  fixture.expireSessions();
  await waitFor(() => gets(fixture).length === 2, 3000, "the reconnect");
  // The session is gone: the reconnect got 404 and the stream stops, with a warning.
  await waitFor(() => sink.warnings.length === 1);
  assertStringIncludes(sink.warnings[0], "session expired");
  await link.close();
});

test("http legacy: the version is learnt from the initialize result, before setProtocol", async () => {
  await using fixture = await startHttpFixture();
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await link.send(initializeRequest(1, "2025-06-18"));
  await link.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await link.send(legacyRequest(2, "ping"));
  await waitFor(() => gets(fixture).length === 1);
  await link.close();
  for (const request of fixture.requests.slice(1)) {
    assertEquals(request.headers["mcp-protocol-version"], "2025-06-18", request.method);
  }
  assert("result" in sink.messages.at(-1)!);
});

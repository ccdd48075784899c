// The fault suite over Streamable HTTP, event streams: a response to another request on a
// POST's stream fails that POST (the JSON answers' id check), one on the GET stream is skipped,
// and an empty `id:` resets the resume point (Last-Event-ID).
import { assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { event, type FaultRequest, silentSse, sse } from "../fixtures/fault_http_server.ts";
import { sseConnection } from "../fixtures/_http_sse.ts";
import { call, echo, ERAS, faulty, gets, notification, textOf, until, when } from "./_http.ts";

for (const [era, mode] of ERAS) {
  const name = (what: string) => `faults http [${era}]: ${what}`;

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

// The fault suite over Streamable HTTP, stalls and breaks: a body dribbled byte by byte, silent
// event streams, a stream cut mid-event, and a crash with 50 calls in flight, in both eras.
import { assert, assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import {
  event,
  heldBodies,
  silentSse,
  slowLoris,
  sse,
  startFaultServer,
} from "../fixtures/fault_http_server.ts";
import { startCrashRelay } from "../fixtures/_crash_relay.ts";
import { call, echo, ERAS, faulty, posts, until, when } from "./_http.ts";

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
    name("a crash mid-response with 50 calls in flight: each settles once, none re-sent"),
    async () => {
      const server = await startFaultServer({ core: { mode } });
      await using relay = await startCrashRelay(server.url);
      await using f = await faulty(mode, {}, {}, undefined, { server, url: relay.url });
      const held = heldBodies();
      f.server.inject(when(call("echo"), () => held.answer()), 50);
      const settled = new Array(50).fill(0);
      const outcomes = Promise.all(
        Array.from(
          { length: 50 },
          (_, i) =>
            f.client.callTool("echo", { message: `call-${i}` }).then(
              () => (settled[i]++, undefined),
              (error) => (settled[i]++, error),
            ),
        ),
      );
      await until(() => held.held === 50 || undefined);
      relay.crash();
      for (const error of await outcomes) {
        assert(error !== undefined, "no call succeeded");
        assertEquals(error.kind, "transport", String(error));
      }
      assertEquals(settled, new Array(50).fill(1), "each call settled exactly once");
      assertEquals(await echo(f.client, "after"), "after");
      const messages = f.server.requests.filter(call("echo")).map((r) => r.body?.params?.arguments);
      assertEquals(messages.length, 51, "no call was sent twice");
      assertEquals(settled, new Array(50).fill(1), "and none settled again later");
    },
  );
}

// Calls that cannot succeed end at once or at a bound: a wrong-shaped stdio or in-process
// answer, progress for ever (the default maxTotalTimeout), and readyTimeout as a hard deadline.
import { connect } from "../../client/connect.ts";
import { createClient } from "../../client/client.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { inProcess, type InProcessServer } from "../../transports/in_process.ts";
import { stdio } from "../../transports/stdio.ts";
import type { Transport } from "../../transports/transport.ts";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { legacyServer, PATIENT } from "./_fail_fast.ts";

test("fail fast: a wrong-shaped answer over stdio fails its call at once", async () => {
  const server = scriptCommand(new URL("./_wrong_shape_server.ts", import.meta.url));
  const client = createClient({ transport: stdio(server), reconnect: PATIENT });
  try {
    await client.ready(20_000);
    for (const shape of ["string_result", "both", "neither", "bad_version"]) {
      const error = await mcpError(client.callTool(shape, {}, { timeout: 60_000 }));
      assertEquals([error.kind, error.reason], ["protocol", "malformed_body"], shape);
      assertStringIncludes(error.message, 'the "tools/call" request is not a JSON-RPC message');
    }
    // The link goes on.
    const fine = await client.callTool("fine", {});
    assertEquals(fine.content[0].text, "fine");
  } finally {
    await client.close();
  }
});

test("fail fast: a wrong-shaped answer in process fails its call at once", async () => {
  const server = legacyServer((m, send) => send({ jsonrpc: "2.0", id: m.id, result: "a string" }));
  const client = createClient({ transport: inProcess(server) });
  try {
    const error = await mcpError(client.callTool("echo", {}, { timeout: 60_000 }));
    assertEquals([error.kind, error.reason], ["protocol", "malformed_body"]);
  } finally {
    await client.close();
  }
});

test("fail fast: progress for ever ends at the default maxTotalTimeout (10 × timeout)", async () => {
  const timers: ReturnType<typeof setInterval>[] = [];
  const server = legacyServer((m) => {
    const token = ((m.params as JsonObject)._meta as JsonObject).progressToken;
    let progress = 0;
    const send = (out: JsonObject) => connection?.send(out as unknown as JsonRpcMessage);
    timers.push(setInterval(() => {
      send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: ++progress },
      });
    }, 10));
  });
  let connection: { send(message: JsonRpcMessage): void } | undefined;
  const spying: InProcessServer = {
    connect: (peer) => {
      connection = peer;
      return server.connect(peer);
    },
  };
  // Progress every 10 ms against a 400 ms timeout: a loaded machine's pauses do not let the
  // request lapse; the ceiling comes at 4 s.
  const client = createClient({ transport: inProcess(spying), requestTimeout: 400 });
  try {
    await client.ready(20_000);
    let seen = 0;
    const error = await mcpError(client.callTool("forever", {}, { onProgress: () => seen++ }));
    assertEquals([error.kind, error.reason], ["timeout", "max_total_timeout"]);
    assert(seen > 0, "progress should have restarted the timeout");
  } finally {
    for (const timer of timers) clearInterval(timer);
    await client.close();
  }
});

test("fail fast: readyTimeout is a hard deadline that closing does not extend", async () => {
  // `sleep` never answers and ignores stdin's end: closing waits the whole grace period.
  let closing: Promise<void> | undefined;
  let closed = false;
  const inner = stdio({ command: "sleep", args: ["30"], closeGracePeriod: 1_500 });
  const transport: Transport = {
    kind: inner.kind,
    async open(sink) {
      const link = await inner.open(sink);
      return {
        send: (message, options) => link.send(message, options),
        setProtocol: (protocol) => link.setProtocol(protocol),
        close: () => {
          closing ??= link.close().finally(() => (closed = true));
          return closing;
        },
      };
    },
  };
  const error = await mcpError(connect(transport, { readyTimeout: 100 }));
  assertEquals([error.kind, error.reason], ["timeout", "not_ready"]);
  assert(closing !== undefined, "connect should have started closing the link");
  assert(!closed, "connect should not have waited for the close grace period");
  await closing;
});

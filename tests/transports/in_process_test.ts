import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { isMcpError, type McpError } from "../../protocol/errors.ts";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import {
  inProcess,
  type InProcessConnection,
  type InProcessPeer,
} from "../../transports/in_process.ts";
import type { TransportSink } from "../../transports/transport.ts";

function recordingSink() {
  const messages: JsonRpcMessage[] = [];
  const warnings: string[] = [];
  const closed: McpError[] = [];
  const sink: TransportSink = {
    message: (message) => messages.push(message),
    closed: (error) => closed.push(error),
    warn: (message) => warnings.push(message),
  };
  return { sink, messages, warnings, closed };
}

function capture() {
  let peer: InProcessPeer | undefined;
  const received: JsonRpcMessage[] = [];
  let closes = 0;
  const transport = inProcess({
    connect(p) {
      peer = p;
      const connection: InProcessConnection = {
        receive: (message) => received.push(message),
        close: () => closes++,
      };
      return connection;
    },
  });
  return { transport, received, peer: () => peer!, closes: () => closes };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

test("inProcess delivers client messages asynchronously and as copies", async () => {
  const { transport, received } = capture();
  const link = await transport.open(recordingSink().sink);
  const message = { jsonrpc: "2.0" as const, id: 1, method: "ping", params: { a: [1] } };
  const sent = link.send(message);
  assertEquals(received.length, 0, "not delivered synchronously");
  message.params.a.push(2);
  await sent;
  await tick();
  assertEquals(received, [{ jsonrpc: "2.0", id: 1, method: "ping", params: { a: [1] } }]);
  assert(received[0] !== message, "a structured clone");
});

test("inProcess delivers server messages asynchronously, copied, in order", async () => {
  const { transport, peer } = capture();
  const { sink, messages } = recordingSink();
  await transport.open(sink);
  const result = { jsonrpc: "2.0" as const, id: 1, result: { n: 1 } };
  peer().send(result);
  peer().send({ jsonrpc: "2.0", method: "notifications/message", params: {} });
  assertEquals(messages.length, 0);
  result.result.n = 2;
  await tick();
  assertEquals(messages.map((m) => "id" in m ? m.id : "method" in m ? m.method : "?"), [
    1,
    "notifications/message",
  ]);
  assertEquals((messages[0] as unknown as { result: { n: number } }).result.n, 1);
});

test("inProcess decodes raw text and skips what is not one JSON-RPC message", async () => {
  const { transport, peer } = capture();
  const { sink, messages, warnings } = recordingSink();
  await transport.open(sink);
  peer().send("not json at all");
  peer().send("[]");
  peer().send('{"jsonrpc":"2.0","id":7,"result":{}}');
  peer().send({ jsonrpc: "1.0" } as unknown as JsonRpcMessage);
  await tick();
  assertEquals(messages, [{ jsonrpc: "2.0", id: 7, result: {} }]);
  assertEquals(warnings.length, 3);
  assert(warnings[0].includes("not_json"), warnings[0]);
});

test("a server close ends the link with kind transport after earlier messages", async () => {
  const { transport, peer, closes } = capture();
  const { sink, messages, closed } = recordingSink();
  const link = await transport.open(sink);
  peer().send({ jsonrpc: "2.0", id: 1, result: {} });
  peer().close("crashed");
  peer().send({ jsonrpc: "2.0", id: 2, result: {} });
  await tick();
  assertEquals(messages.length, 1);
  assertEquals(closed.length, 1);
  assertEquals(closed[0].kind, "transport");
  assert(closed[0].message.includes("crashed"));
  assertEquals(closes(), 1);
  const error = await assertRejects(() => link.send({ jsonrpc: "2.0", method: "x" }));
  assert(isMcpError(error) && error.kind === "transport");
});

test("closing the link stops deliveries both ways and never reports closed", async () => {
  const { transport, peer, received, closes } = capture();
  const { sink, messages, closed } = recordingSink();
  const link = await transport.open(sink);
  const sent = link.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  peer().send({ jsonrpc: "2.0", method: "notifications/message", params: {} });
  const closing = link.close();
  await sent;
  await closing;
  await link.close();
  peer().close();
  await tick();
  assertEquals(received.length, 0);
  assertEquals(messages.length, 0);
  assertEquals(closed.length, 0);
  assertEquals(closes(), 1);
});

test("a server that throws while receiving ends the link", async () => {
  const transport = inProcess({
    connect: () => ({
      receive() {
        throw new Error("boom");
      },
    }),
  });
  const { sink, closed, warnings } = recordingSink();
  const link = await transport.open(sink);
  await link.send({ jsonrpc: "2.0", id: 1, method: "ping" });
  await tick();
  assertEquals(closed.length, 1);
  assert(warnings[0].includes("boom"));
});

test("inProcess checks its server and reports a refused connection", async () => {
  assertThrows(() => inProcess({} as never), TypeError);
  const transport = inProcess({
    connect() {
      throw new Error("full");
    },
  });
  assertEquals(transport.kind, "in_process");
  const error = await assertRejects(() => transport.open(recordingSink().sink));
  assert(isMcpError(error) && error.kind === "transport" && error.reason === "connect_failed");
});

test("each open connects anew", async () => {
  let connects = 0;
  const transport = inProcess({
    connect: () => {
      connects++;
      return { receive() {} };
    },
  });
  await (await transport.open(recordingSink().sink)).close();
  await transport.open(recordingSink().sink);
  assertEquals(connects, 2);
});

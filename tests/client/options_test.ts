import { assert, assertEquals, assertRejects, assertThrows, test } from "../_harness.ts";
import { backoffDelay, delay } from "../../client/_async.ts";
import { createClient } from "../../client/client.ts";
import type { ClientOptions } from "../../client/types.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createFixtureServer } from "../fixtures/server.ts";

const transport = inProcess(createFixtureServer());

test("createClient throws TypeError naming the bad option", () => {
  const table: [Record<string, unknown>, string][] = [
    [{}, '"transport"'],
    [{ transport: {} }, '"transport"'],
    [{ transport, protocol: "newest" }, '"protocol"'],
    [{ transport, versions: [] }, '"versions"'],
    [{ transport, versions: ["2025-11-25", "2025-11-25"] }, '"versions"'],
    [{ transport, versions: ["latest"] }, '"versions"'],
    [{ transport, protocol: "modern", versions: ["2025-11-25"] }, '"versions"'],
    [{ transport, clientInfo: { name: "x" } }, '"clientInfo"'],
    [{ transport, handler: { sampling: "yes" } }, '"handler"'],
    [{ transport, requestTimeout: 0 }, '"requestTimeout"'],
    [{ transport, probeTimeout: Infinity }, '"probeTimeout"'],
    [{ transport, reconnect: true }, '"reconnect"'],
    [{ transport, reconnect: { attempts: -1 } }, '"reconnect"'],
    [{ transport, reconnect: { jitter: 2 } }, '"reconnect"'],
    [{ transport, reconnect: { retries: 2 } }, '"reconnect"'],
    [{ transport, samplingTools: "yes" }, '"samplingTools"'],
    [{ transport, onWarning: 1 }, '"onWarning"'],
    [{ transport, requestTimeot: 5 }, '"requestTimeot"'],
  ];
  for (const [options, key] of table) {
    assertThrows(() => createClient(options as unknown as ClientOptions), TypeError, key);
  }
  assertThrows(() => createClient(null as unknown as ClientOptions), TypeError);
});

test("valid options are accepted", async () => {
  await using client = createClient({
    transport,
    protocol: "2025-11-25",
    versions: ["2025-11-25"],
    clientInfo: { name: "x", version: "1" },
    handler: {},
    requestTimeout: Infinity,
    probeTimeout: 100,
    reconnect: { attempts: 0, initialDelay: 0, maxDelay: 0, factor: 1, jitter: 1 },
    samplingTools: true,
    samplingContext: false,
    rootsListChanged: true,
    onWarning: () => {},
  });
  await client.ready();
  assertEquals(client.era(), "legacy");
  assertThrows(() => client.ready(-5), TypeError);
});

test("backoffDelay grows exponentially, caps, and draws jitter", () => {
  const backoff = { initialDelay: 100, maxDelay: 1_000, factor: 2, jitter: 0 };
  assertEquals([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, backoff)), [
    100,
    200,
    400,
    800,
    1_000,
    1_000,
  ]);
  const jittered = { ...backoff, jitter: 0.5 };
  assertEquals(backoffDelay(2, jittered, () => 0), 100);
  assertEquals(backoffDelay(2, jittered, () => 0.999), 200);
  assertEquals(backoffDelay(1, { ...backoff, jitter: 1 }, () => 0.5), 50);
});

test("delay waits, and an abort cuts it short with the signal's reason", async () => {
  const started = Date.now();
  await delay(15);
  assert(Date.now() - started >= 10);
  const controller = new AbortController();
  const waiting = delay(10_000, controller.signal);
  controller.abort(new Error("stop"));
  await assertRejects(() => waiting, Error, "stop");
  await assertRejects(() => delay(1, AbortSignal.abort(new Error("early"))), Error, "early");
});

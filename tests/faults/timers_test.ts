// Faults in time: delays past what a runtime timer holds (2^31-1 ms), and waits a server
// chooses (Retry-After, SSE retry:) that must be bounded.
import { connectClient, createClient } from "../../client/client.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import type { FetchLike } from "../../transports/_http.ts";
import { inProcess } from "../../transports/in_process.ts";
import type { Transport, TransportLink } from "../../transports/transport.ts";
import { MAX_TIMER_DELAY } from "../../clock/timer.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { type HttpFixture, startHttpFixture } from "../fixtures/http_server.ts";
import { createFixtureServer } from "../fixtures/server.ts";
import { FAST } from "../client/_helpers.ts";
import {
  initializeRequest,
  legacyRequest,
  type RecordingSink,
  recordingSink,
  resultOf,
  waitFor,
} from "../transports/_http_helpers.ts";

// deno-lint-ignore no-explicit-any
const g = globalThis as any;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `body` while recording the delay of every `setTimeout` (timers still run). */
async function recordingTimers<T>(body: (delays: number[]) => Promise<T>): Promise<T> {
  const realSetTimeout = g.setTimeout;
  const delays: number[] = [];
  g.setTimeout = (callback: () => void, delay?: number, ...rest: unknown[]) => {
    delays.push(delay ?? 0);
    return realSetTimeout(callback, delay, ...rest);
  };
  try {
    return await body(delays);
  } finally {
    g.setTimeout = realSetTimeout;
  }
}

/** An in-process transport whose first open waits for `gate`. */
function gatedTransport(gate: Promise<void>): Transport {
  const inner = inProcess(createFixtureServer({ mode: "legacy-only" }));
  return {
    kind: inner.kind,
    async open(sink): Promise<TransportLink> {
      await gate;
      return inner.open(sink);
    },
  };
}

test("timers: a request queued with timeout 1e10 waits for the connection instead of failing at once", async () => {
  const gate = Promise.withResolvers<void>();
  await using client = createClient({ transport: gatedTransport(gate.promise), reconnect: FAST });
  let settled = false;
  const call = client.ping({ timeout: 1e10 }).finally(() => settled = true);
  // An overflowing timer fires after about 1 ms; give it many times that.
  await sleep(50);
  assertEquals(settled, false, "still queued, not timed out");
  gate.resolve();
  await call;
});

test("timers: ready(1e10) waits for the connection instead of failing at once", async () => {
  const gate = Promise.withResolvers<void>();
  await using client = createClient({ transport: gatedTransport(gate.promise), reconnect: FAST });
  let settled = false;
  const ready = client.ready(1e10).finally(() => settled = true);
  await sleep(50);
  assertEquals(settled, false);
  gate.resolve();
  await ready;
});

test("timers: with requestTimeout 1e10 the deadline clock arms no overflowing timer and never spins", async () => {
  const { result, delays } = await recordingTimers(async (delays) => {
    await using client = createClient({
      transport: inProcess(createFixtureServer({ mode: "legacy-only" })),
      reconnect: FAST,
      requestTimeout: 1e10,
    });
    // Progress every 25 ms keeps the call (and the clock) busy for a while.
    const result = await client.callTool("slow", { ms: 200, steps: 8 });
    return { result, delays };
  });
  assertEquals(result.isError ?? false, false);
  assertEquals(delays.filter((ms) => ms > MAX_TIMER_DELAY), [], "no delay a timer overflows");
  // One clock timer for the call (progress only moves the deadline later): a spinning
  // clock re-arms hundreds of times here.
  const far = delays.filter((ms) => ms > 1e9).length;
  assert(far <= 3, `the clock armed ${far} far timers`);
});

function gets(fixture: HttpFixture) {
  return fixture.requests.filter((r) => r.method === "GET");
}

async function handshake(link: TransportLink, sink: RecordingSink): Promise<void> {
  await link.send(initializeRequest(1));
  const answer = await sink.next((m) => "id" in m && m.id === 1 && !("method" in m));
  link.setProtocol({ era: "legacy", version: resultOf(answer).protocolVersion as string });
  await link.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

test("timers: a GET stream that sends retry: 0 and ends cleanly reconnects a bounded number of times", async () => {
  // The fixture's GET stream sends a priming event with `retry: 0`, then ends cleanly.
  await using fixture = await startHttpFixture({ http: { polling: 0 } });
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url).open(sink);
  await handshake(link, sink);
  await waitFor(() => gets(fixture).length >= 2, 5000, "a reconnect");
  const before = gets(fixture).length;
  await sleep(600);
  const during = gets(fixture).length - before;
  await link.send(legacyRequest(2, "ping"));
  await link.close();
  // Unbounded, this is hundreds; the floor (100 ms) and the backoff keep it to a handful.
  assert(during <= 6, `${during} reconnects in the window`);
  assertEquals(sink.warnings, [], "clean ends are not warned about");
});

test("timers: a failing GET stream below its limit warns once, and resumes", async () => {
  await using fixture = await startHttpFixture();
  let failing = 3;
  let failedGets = 0;
  const fetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "GET" && failing > 0) {
      failing--;
      failedGets++;
      return new Response("busy", { status: 503 });
    }
    return await globalThis.fetch(request);
  };
  const sink = recordingSink();
  const link = await streamableHttp(fixture.url, { fetch, reconnectDelay: 5 }).open(sink);
  await handshake(link, sink);
  await waitFor(() => gets(fixture).length >= 1, 5000, "the GET stream to open");
  await link.close();
  assertEquals(failedGets, 3);
  assertEquals(sink.warnings.length, 1, sink.warnings.join("\n"));
  assert(sink.warnings[0].includes("503"), sink.warnings[0]);
});

test("timers: the reconnect loop caps Retry-After at maxRetryAfter", async () => {
  await using fixture = await startHttpFixture();
  // The first connection attempt is told to come back in an hour.
  fixture.knobs.failFirst = { count: 1, status: 503, retryAfter: "3600" };
  await using client = await connectClient({
    transport: streamableHttp(fixture.url),
    reconnect: { attempts: 3, initialDelay: 5, maxDelay: 10, jitter: 0 },
    retry: { attempts: 0, maxRetryAfter: 20 },
  });
  assertEquals(client.status().state, "ready");
  assertEquals(fixture.knobs.failFirst?.count, 0);
});

test("timers: a GET stream told Retry-After: 3600 reconnects after the sink's maxRetryAfter", async () => {
  await using fixture = await startHttpFixture();
  let refused = 0;
  const fetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "GET" && refused === 0) {
      refused++;
      return new Response("later", { status: 503, headers: { "retry-after": "3600" } });
    }
    return await globalThis.fetch(request);
  };
  const sink = { ...recordingSink(), maxRetryAfter: 30 };
  const link = await streamableHttp(fixture.url, { fetch }).open(sink);
  await handshake(link, sink);
  // An hour, unbounded: the test would time out waiting.
  await waitFor(() => gets(fixture).length >= 1, 10_000, "the GET after Retry-After");
  await link.close();
  assertEquals(refused, 1);
});

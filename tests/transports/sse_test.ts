// The private SSE reader (transports/_sse.ts) and HTTP helpers (transports/_http.ts).
import { isMcpError } from "../../protocol/errors.ts";
import { linkSignals, retryAfterMs } from "../../transports/_http.ts";
import { describeChallenge, safeChallenge } from "../../transports/challenge_summary.ts";
import { type SseEvent, SseReader } from "../../transports/_sse.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { waitFor } from "./_http_helpers.ts";
import { collect } from "./_streams.ts";

/** A body of `chunks`; with `onCancel` it stays open after them, like a live stream. */
function body(chunks: string[], onCancel?: () => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller): Promise<void> | void {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else if (onCancel === undefined) controller.close();
      else return new Promise<void>(() => {});
    },
    cancel() {
      onCancel?.();
    },
  });
}

/** Reads the first event, then leaves the stream early. */
async function first(stream: SseReader): Promise<SseEvent | undefined> {
  try {
    return await stream.next();
  } finally {
    stream.close();
  }
}

test("sse: events, multi-line data, comments, ids and retry, across chunk splits", async () => {
  const stream = new SseReader(
    body([
      ": keep-alive\n\nid: 1\nretry: 250\nda",
      'ta: \n\nevent: message\ndata: {"a":\ndata: 1}\n',
      "\nid: 7\n\n:comment\r\ndata: last\r\n\r\n",
    ]),
    1024,
  );
  const events = await collect(stream);
  assertEquals(events, [
    { id: "1", data: "", retry: 250 },
    { event: "message", data: '{"a":\n1}', retry: 250 },
    { data: "last", retry: 250 },
  ]);
  assertEquals(stream.lastEventId, "7", "an id-only block still sets the last event id");
  assertEquals(stream.retry, 250);
});

test("sse: an empty id field resets the last event id", async () => {
  const reset = new SseReader(body(["id: 5\ndata: a\n\nid:\ndata: b\n\n"]), 1024);
  assertEquals(await collect(reset), [{ id: "5", data: "a" }, { data: "b" }]);
  assertEquals(reset.lastEventId, "", "reset, not kept at 5");
  const bare = new SseReader(body(["id: 5\n\nid\n\n"]), 1024);
  await collect(bare);
  assertEquals(bare.lastEventId, "", "a bare `id` line resets it too");
});

test("sse: an oversized event is a protocol error and cancels the body", async () => {
  let cancelled = false;
  const big = "x".repeat(3000);
  const stream = new SseReader(
    body([`data: ${big.slice(0, 1500)}`, `${big.slice(1500)}\n\n`, "data: more\n\n"], () => {
      cancelled = true;
    }),
    2048,
  );
  try {
    await collect(stream);
    throw new Error("expected a rejection");
  } catch (error) {
    assert(isMcpError(error), String(error));
    assertEquals([error.kind, error.reason], ["protocol", "event_too_large"]);
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert(cancelled, "the body was cancelled");
});

test("sse: the byte limit counts UTF-8 bytes of the data", async () => {
  const stream = new SseReader(body([`data: ${"é".repeat(600)}\n\n`]), 1000);
  try {
    await collect(stream);
    throw new Error("expected a rejection");
  } catch (error) {
    assert(isMcpError(error) && error.reason === "event_too_large", String(error));
  }
});

test("sse: leaving the loop early drains a body that ends, without cancelling it", async () => {
  let cancelled = false;
  let ended = false;
  const encoder = new TextEncoder();
  const chunks = ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"];
  const stream = new SseReader(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next !== undefined) controller.enqueue(encoder.encode(next));
        else (ended = true, controller.close());
      },
      cancel() {
        cancelled = true;
      },
    }),
    100,
  );
  assertEquals((await first(stream))?.data, "1");
  await waitFor(() => ended, 1000, "the rest of the body to be read");
  assertEquals(cancelled, false, "a body read to its end keeps its connection");
});

test("sse: leaving the loop early cancels a body that stays open (bounded drain)", async () => {
  let cancelled = false;
  const stream = new SseReader(
    body(["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"], () => {
      cancelled = true;
    }),
    100,
  );
  assertEquals((await first(stream))?.data, "1");
  await waitFor(() => cancelled, 3000, "the open body to be cancelled");
});

test("sse: leaving the loop early cancels a large remainder at once", async () => {
  let cancelled = false;
  const big = "data: " + "x".repeat(16 * 1024) + "\n\n";
  const stream = new SseReader(
    body(["data: 1\n\n", ...Array.from({ length: 8 }, () => big)], () => {
      cancelled = true;
    }),
    100_000,
  );
  const started = Date.now();
  assertEquals((await first(stream))?.data, "1");
  await waitFor(() => cancelled, 3000, "the large remainder to be cancelled");
  assert(Date.now() - started < 900, "cancelled before the drain time ran out");
});

test("sse: a stream left mid-event or over the limit leaves nothing to the next one", async () => {
  // Parsers are pooled per limit: whatever a stream left behind must not reach the next.
  const partial = new SseReader(body(["data: 1\n\nid: 9\nevent: x\ndata: half"], () => {}), 64);
  assertEquals((await first(partial))?.data, "1");
  const over = new SseReader(body([`data: ${"y".repeat(100)}`]), 64);
  try {
    await collect(over);
    throw new Error("expected a rejection");
  } catch (error) {
    assert(isMcpError(error) && error.reason === "event_too_large", String(error));
  }
  const next = new SseReader(body(["data: 2\n\n"]), 64);
  assertEquals(await collect(next), [{ data: "2" }]);
  assertEquals(next.lastEventId, undefined, "no id carried over");
});

test("sse: streams read at the same time keep their own partial lines", async () => {
  const one = new SseReader(body(["id: a\nda", "ta: one\n", "\n"]), 1024);
  const two = new SseReader(body(["data: tw", "o\nid: b\n", "\n"]), 1024);
  const [a, b] = await Promise.all([collect(one), collect(two)]);
  assertEquals(a, [{ id: "a", data: "one" }]);
  assertEquals(b, [{ id: "b", data: "two" }]);
});

test("http helpers: Retry-After as seconds or an HTTP-date", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assertEquals(retryAfterMs("3", now), 3000);
  assertEquals(retryAfterMs(" 0 ", now), 0);
  assertEquals(retryAfterMs("Thu, 01 Jan 2026 00:00:10 GMT", now), 10_000);
  assertEquals(retryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now), 0);
  assertEquals(retryAfterMs("soon", now), undefined);
  assertEquals(retryAfterMs(null, now), undefined);
});

test("http helpers: challenges keep the scheme and the allowed params only", () => {
  const cases: [string, string][] = [
    [
      'Bearer realm="mcp", error="insufficient_scope", scope="read write", resource_metadata="https://x/.well-known/oauth-protected-resource"',
      'Bearer error="insufficient_scope", scope="read write", resource_metadata="https://x/.well-known/oauth-protected-resource"',
    ],
    ["Bearer realm=mcp,error=invalid_token", 'Bearer error="invalid_token"'],
    ['Digest realm="r", nonce="n0nce", opaque="o"', "Digest"],
    ["Basic dXNlcjpwYXNz", "Basic"],
    ['Bearer error="a", Basic realm="b"', 'Bearer error="a"'],
    ['Bearer error="quoted \\"x\\""', "Bearer"],
  ];
  for (const [header, expected] of cases) {
    assertEquals(describeChallenge(safeChallenge(header)), expected, header);
  }
  assertEquals(safeChallenge(null), undefined);
  assertEquals(describeChallenge(undefined), "no WWW-Authenticate challenge");
});

test("http helpers: linked signals follow their sources and unlink", () => {
  const a = new AbortController();
  const b = new AbortController();
  const linked = linkSignals(a.signal, undefined, b.signal);
  b.abort("why");
  assert(linked.signal.aborted);
  assertEquals(linked.signal.reason, "why");
  const again = linkSignals(a.signal);
  again.unlink();
  a.abort();
  assert(!again.signal.aborted, "unlinked signals do not follow");
  assert(linkSignals(AbortSignal.abort("x")).signal.aborted);
});

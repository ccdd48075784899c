// Event streams read into pooled buffers of ours when the body is a byte stream (Deno's
// `fetch` bodies): each chunk would otherwise be a fresh 64 KiB buffer waiting for the
// collector. A plain stream (Bun's bodies) is read as its chunks come, and no buffer a read
// still holds ever goes back to the pool.
import { idleReadBuffers, READ_BUFFER, takeReadBuffer } from "../../transports/_bytes.ts";
import { SseReader } from "../../transports/_sse.ts";
import { serve } from "../../runtime/serve.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { byteStream, collect, pieces, plainStream } from "./_streams.ts";

const encoder = new TextEncoder();
const BODY = encoder.encode(
  'id: 1\ndata: {"a":1}\n\ndata: two\ndata: lines\n\n: ping\n\ndata: é€😀\n\n',
);
const EXPECTED = ['{"a":1}', "two\nlines", "é€😀"];

/** Takes every idle buffer out of the pool (so what a reader gives back shows). */
function emptyPool(): ArrayBuffer[] {
  const taken: ArrayBuffer[] = [];
  while (idleReadBuffers().length > 0) taken.push(takeReadBuffer());
  return taken;
}

test("read buffers: a byte stream is read into a pooled buffer, given back at its end and used again", async () => {
  emptyPool();
  for (const size of [1, 7, 4096]) {
    const events = await collect(new SseReader(byteStream(pieces(BODY, size)), 1024));
    assertEquals(events.map((e) => e.data), EXPECTED, `chunks of ${size}`);
    assertEquals(idleReadBuffers().length, 1, "the one buffer is back, and only it");
  }
  const [buffer] = idleReadBuffers();
  assertEquals(buffer.byteLength, READ_BUFFER);
  // The next stream reads into that same buffer.
  const reader = new SseReader(byteStream([BODY]), 1024);
  assertEquals((await reader.next())?.data, EXPECTED[0]);
  assertEquals(idleReadBuffers().length, 0, "in use while the stream runs");
  assertEquals((await collect(reader)).map((e) => e.data), EXPECTED.slice(1));
  assert(idleReadBuffers()[0] !== undefined && idleReadBuffers().length === 1, "back again");
});

test("read buffers: a plain stream (Bun's bodies) is read as its chunks come, taking no buffer", async () => {
  emptyPool();
  const events = await collect(new SseReader(plainStream(pieces(BODY, 5)), 1024));
  assertEquals(events.map((e) => e.data), EXPECTED);
  assertEquals(idleReadBuffers().length, 0);
});

test("read buffers: a stream left early is drained into its buffer, then gives it back", async () => {
  emptyPool();
  const reader = new SseReader(byteStream(pieces(BODY, 3)), 1024);
  assertEquals((await reader.next())?.data, EXPECTED[0]);
  reader.close(); // the rest is drained in the background
  const until = Date.now() + 5_000;
  while (idleReadBuffers().length === 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assertEquals(idleReadBuffers().length, 1);
  assertEquals(idleReadBuffers()[0].byteLength, READ_BUFFER);
});

test("read buffers: closed while a read waits, the buffer the stream holds never goes back", async () => {
  emptyPool();
  let controller!: ReadableByteStreamController;
  const body = new ReadableStream({
    type: "bytes",
    start(c) {
      controller = c;
    },
  });
  const reader = new SseReader(body, 1024);
  const next = reader.next();
  await new Promise((resolve) => setTimeout(resolve, 10));
  reader.close(); // the drain cannot read: the waiting read holds the buffer
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(idleReadBuffers().length, 0, "nothing given back while the read holds it");
  // The waiting read ends: the reader stops, and every idle buffer is whole.
  controller.enqueue(encoder.encode("data: late\n\n"));
  controller.close();
  await next.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 10));
  for (const idle of idleReadBuffers()) assertEquals(idle.byteLength, READ_BUFFER);
  const fresh = takeReadBuffer();
  assertEquals(fresh.byteLength, READ_BUFFER);
});

test("read buffers: a real fetch body's events are the same however the runtime hands it over", async () => {
  const server = await serve(() =>
    new Response(BODY, { headers: { "content-type": "text/event-stream" } })
  );
  try {
    emptyPool();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(server.url);
      const events = await collect(new SseReader(response.body!, 1024));
      assertEquals(events.map((e) => e.data), EXPECTED);
    }
    // A byte stream (Deno) used one buffer for all three; a plain one (Bun) none.
    assert(idleReadBuffers().length <= 1, `${idleReadBuffers().length} idle`);
  } finally {
    await server.close();
  }
});

test("read buffers: a reused buffer gives the next stream only its own bytes, never the last one's", async () => {
  emptyPool();
  const secret = "s3cr3t-".repeat(2_000); // 14 000 bytes left in the buffer by the first stream
  const first = await collect(
    new SseReader(byteStream([encoder.encode(`data: ${secret}\n\n`)]), 64 * 1024),
  );
  assertEquals(first.map((e) => e.data), [secret]);
  assertEquals(idleReadBuffers().length, 1);
  // Another caller's stream, short, in the same buffer: what it reads is its own event alone.
  // (An event the stream never ends with a blank line is dropped, as the standard says.)
  const cases: [string[], string[]][] = [
    [["data: b\n\n"], ["b"]],
    [["da", "ta: b", "\n", "\n"], ["b"]],
    [["data: b"], []],
  ];
  for (const [chunks, expected] of cases) {
    const events = await collect(
      new SseReader(byteStream(chunks.map((c) => encoder.encode(c))), 64 * 1024),
    );
    assertEquals(events.map((e) => e.data), expected);
    assert(!JSON.stringify(events).includes("s3cr3t"), "no byte of the earlier stream");
  }
});

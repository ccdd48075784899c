// The lean read paths: owned buffers (transports/_bytes.ts), the chunk pump
// (transports/_pump.ts), long lines and events held as bytes, large bodies read into one
// buffer, and the UTF-8 length of a long text (transports/_http_body.ts).
import { isMcpError } from "../../protocol/errors.ts";
import { byteCarry, decodeOwned, release } from "../../transports/_bytes.ts";
import { readBounded, readBoundedText, utf8Length } from "../../transports/_http.ts";
import { lineSplitter } from "../../transports/_lines.ts";
import { pumpStream } from "../../transports/_pump.ts";
import { SseReader } from "../../transports/_sse.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { byteStream, pieces, plainStream } from "./_streams.ts";

const encoder = new TextEncoder();
const canTransfer = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer ===
  "function";

/** Text with one-, two-, three- and four-byte characters, `n` code points long or so. */
function mixed(n: number): string {
  const alphabet = ["a", "é", "€", "😀", "b", "\u{10FFFF}"];
  let text = "";
  for (let i = 0; text.length < n; i++) text += alphabet[(i * 7 + (i >> 3)) % alphabet.length];
  return text;
}

test("bytes: a carry keeps its bytes across growth and frees a long buffer when cleared", () => {
  const carry = byteCarry(1_000_000);
  const source = encoder.encode(mixed(200_000));
  for (const piece of pieces(source, 4093)) carry.append(piece);
  assertEquals(carry.length, source.length);
  assertEquals(carry.view(), source);
  const view = carry.view();
  carry.clear();
  assertEquals(carry.length, 0);
  if (canTransfer) assertEquals(view.byteLength, 0, "the long buffer was freed at once");
  carry.append(encoder.encode("again"));
  assertEquals(new TextDecoder().decode(carry.view()), "again");
});

test("bytes: release frees a whole owned buffer, and leaves a partial view alone", () => {
  const whole = new Uint8Array(1024);
  const part = new Uint8Array(new ArrayBuffer(1024), 16, 32);
  release(whole);
  release(part);
  if (canTransfer) assertEquals(whole.byteLength, 0);
  assertEquals(part.byteLength, 32);
  assertEquals(decodeOwned(encoder.encode("€uro")), "€uro");
});

test("bytes: a carry past 1 MiB keeps every byte; a copying pump frees a plain stream's large chunks", async () => {
  const carry = byteCarry(3_000_000);
  const source = encoder.encode(mixed(900_000));
  for (const piece of pieces(source, 100_003)) carry.append(piece);
  assertEquals(carry.view(), source);
  carry.clear();
  for (const copies of [true, false]) {
    const chunks = [
      new Uint8Array(64 * 1024).fill(7),
      new Uint8Array(100).fill(8),
      new Uint8Array(4096).fill(9), // Bun reads a busy pipe in pieces of this size
    ];
    let i = 0;
    const plain = new ReadableStream<Uint8Array>({
      pull: (controller) =>
        i < chunks.length ? controller.enqueue(chunks[i++]) : controller.close(),
    });
    let bytes = 0;
    await pumpStream(plain, (chunk) => bytes += chunk.length, copies).done;
    assertEquals(bytes, 64 * 1024 + 100 + 4096);
    const freed = copies && canTransfer;
    assertEquals(chunks[0].byteLength, freed ? 0 : 64 * 1024, "a large chunk freed when copied");
    assertEquals(chunks[1].byteLength, 100, "a small chunk is left to the collector");
    assertEquals(chunks[2].byteLength, freed ? 0 : 4096, "a pipe's 4 KiB piece freed too");
  }
});

test("utf8Length: a long text is counted exactly, surrogate pairs across slices included", () => {
  for (const text of [mixed(70_000), "a".repeat(16_383) + "😀".repeat(9000), "€".repeat(40_000)]) {
    const exact = encoder.encode(text).byteLength;
    for (const limit of [exact, exact - 1, text.length, exact + 5, 3 * text.length]) {
      const counted = utf8Length(text, limit);
      assertEquals(counted > limit, exact > limit, `which side of ${limit}`);
      // Where the UTF-16 bounds straddle the limit, the text is counted exactly.
      if (limit < 3 * text.length && exact <= limit) assertEquals(counted, exact, `limit ${limit}`);
    }
  }
});

test("lines: a long line over many chunks arrives whole; the limit is exact", () => {
  const line = mixed(300_000);
  const bytes = encoder.encode(line);
  const lines: string[] = [];
  const oversized: number[] = [];
  const make = (max: number) =>
    lineSplitter({
      maxLineBytes: max,
      onLine: (l) => lines.push(l),
      onOversized: (n) => oversized.push(n),
    });
  // At the limit, with \r\n split across the last two chunks.
  const atLimit = make(bytes.length);
  for (const piece of pieces(bytes, 65_536)) atLimit.push(piece);
  atLimit.push(encoder.encode("\r"));
  atLimit.push(encoder.encode("\nnext\n"));
  assertEquals(lines.length, 2);
  assert(lines[0] === line, "the long line is intact");
  assertEquals(lines[1], "next");
  assertEquals(atLimit.bufferedBytes, 0);
  // One byte over: dropped, reported with its length, and the next line still arrives.
  const over = make(bytes.length - 1);
  for (const piece of pieces(bytes, 7_001)) over.push(piece);
  over.push(encoder.encode("\nafter\n"));
  assertEquals(oversized, [bytes.length]);
  assertEquals(lines.slice(2), ["after"]);
});

test("pump: a byte stream is read into one reused buffer, a plain one chunk by chunk", async () => {
  const source = encoder.encode(mixed(150_000));
  for (const stream of [byteStream(pieces(source, 10_000)), new Blob([source]).stream()]) {
    const got: Uint8Array[] = [];
    await pumpStream(stream, (chunk) => got.push(chunk.slice()), true).done;
    const joined = new Uint8Array(got.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const chunk of got) {
      joined.set(chunk, at);
      at += chunk.length;
    }
    assertEquals(joined, source);
  }
  let cancelled = false;
  const open = new ReadableStream<Uint8Array>({
    pull: () => new Promise(() => {}),
    cancel: () => {
      cancelled = true;
    },
  });
  const pump = pumpStream(open, () => {}, true);
  pump.cancel();
  await pump.done;
  assert(cancelled, "cancel reaches the stream");
});

test("sse: an event far longer than a chunk, cut anywhere, arrives whole; over the limit fails", async () => {
  const data = mixed(200_000).replaceAll("\n", "");
  const text = `: hi\nid: 9\ndata: ${data}\r\n\r\ndata: small\n\n`;
  const bytes = encoder.encode(text);
  const limit = encoder.encode(data).byteLength;
  for (const size of [997, 4093, 65_536]) {
    const reader = new SseReader(byteStream(pieces(bytes, size)), limit);
    const events = [];
    try {
      for (let e; (e = await reader.next()) !== undefined;) events.push(e);
    } finally {
      reader.close();
    }
    assertEquals(events.length, 2, `chunks of ${size}`);
    assert(events[0].data === data, `the long event is intact (chunks of ${size})`);
    assertEquals([events[0].id, events[1].data], ["9", "small"]);
  }
  const short = new SseReader(byteStream(pieces(bytes, 5_000)), limit - 1);
  const error = await short.next().then(() => undefined, (e) => e);
  short.close();
  assert(isMcpError(error) && error.reason === "event_too_large", String(error));
});

test("sse: long data lines (over 1 MiB) arrive whole, alone or among other data lines", async () => {
  const big = "\uFEFF" + mixed(450_000).replaceAll("\n", "").replaceAll("\r", "");
  const text = `id: 1\ndata: ${big}\r\ndata: tail\n\nevent: x\ndata:${big}\r\n\r\ndata: last\n\n`;
  const bytes = encoder.encode(text);
  const limit = encoder.encode(`${big}\ntail`).byteLength;
  for (const size of [4093, 65_536, 1_500_000]) {
    for (
      const stream of [byteStream(pieces(bytes, size)), plainStream(pieces(bytes, size))]
    ) {
      const reader = new SseReader(stream, limit);
      const events = [];
      try {
        for (let e; (e = await reader.next()) !== undefined;) events.push(e);
      } finally {
        reader.close();
      }
      assertEquals(events.length, 3, `chunks of ${size}`);
      assert(events[0].data === `${big}\ntail`, `two data lines joined (chunks of ${size})`);
      assert(events[1].data === big, `one long line, its U+FEFF kept (chunks of ${size})`);
      assertEquals([events[0].id, events[1].event, events[2].data], ["1", "x", "last"]);
    }
  }
  const short = new SseReader(
    byteStream(pieces(bytes, 65_536)),
    encoder.encode(big).byteLength - 1,
  );
  const error = await short.next().then(() => undefined, (e) => e);
  short.close();
  assert(isMcpError(error) && error.reason === "event_too_large", String(error));
});

test("http body: a large body is read whole by its length; the limit still holds", async () => {
  const text = mixed(100_000);
  const bytes = encoder.encode(text);
  const response = (body: BodyInit | ReadableStream<Uint8Array>, length: number) =>
    new Response(body, { headers: { "content-length": String(length) } });
  assertEquals(
    await readBoundedText(response(byteStream(pieces(bytes, 9_999)), bytes.length), bytes.length),
    text,
  );
  assertEquals(await readBoundedText(response(bytes, bytes.length), bytes.length), text);
  // Shorter than declared: what came. Longer, within the limit: all of it; past it: refused.
  const short = await readBounded(
    response(byteStream([bytes.subarray(0, 70_000)]), bytes.length),
    bytes.length,
  );
  assertEquals(short.byteLength, 70_000);
  const long = await readBounded(response(byteStream(pieces(bytes, 30_000)), 70_000), bytes.length);
  assertEquals(long, bytes);
  const refused = await readBounded(response(byteStream(pieces(bytes, 30_000)), 70_000), 80_000)
    .then(() => undefined, (e) => e);
  assert(isMcpError(refused) && refused.reason === "response_too_large", String(refused));
  // Unknown length, several chunks: joined and decoded.
  const chunked = new Response(byteStream(pieces(bytes, 20_000)));
  assertEquals(await readBoundedText(chunked, bytes.length), text);
  // A byte stream of unknown length (Deno's chunked bodies): read through one reused buffer;
  // a short body comes back as a tight copy, and the limit holds.
  const bare = (parts: Uint8Array[]) =>
    ({ body: byteStream(parts), headers: new Headers() }) as unknown as Response;
  assertEquals(await readBounded(bare(pieces(bytes, 20_000)), bytes.length), bytes);
  const small = await readBounded(bare([bytes.subarray(0, 100)]), bytes.length);
  assertEquals([small.byteLength, small.buffer.byteLength], [100, 100]);
  assertEquals(await readBounded(bare([]), bytes.length), new Uint8Array(0));
  const over = await readBounded(bare(pieces(bytes, 20_000)), bytes.length - 1)
    .then(() => undefined, (e) => e);
  assert(isMcpError(over) && over.reason === "response_too_large", String(over));
});

test("http body: a chunked body is joined as it arrives, each large chunk freed at once", async () => {
  const text = mixed(300_000);
  const bytes = encoder.encode(text);
  // As Bun's bodies come: not a byte stream, fresh chunks of 64 KiB and more.
  const chunks = pieces(bytes, 70_000);
  const seen: Uint8Array[] = [];
  let i = 0;
  const body = () =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i >= chunks.length) return controller.close();
        const chunk = chunks[i++].slice();
        seen.push(chunk);
        controller.enqueue(chunk);
      },
    });
  assertEquals(await readBoundedText(new Response(body()), bytes.length), text);
  assertEquals(seen.length, chunks.length);
  if (canTransfer) {
    // Copied into one buffer and freed as they came: never alive beside their joined copy.
    for (const chunk of seen.slice(0, -1)) assertEquals(chunk.byteLength, 0);
  }
  i = 0;
  assertEquals(await readBounded(new Response(body()), bytes.length), bytes);
  // One chunk: used as it is. Past the limit: refused, whatever arrived so far let go.
  assertEquals(await readBoundedText(new Response(new Blob([bytes]).stream()), bytes.length), text);
  i = 0;
  const refused = await readBoundedText(new Response(body()), bytes.length - 1)
    .then(() => undefined, (e) => e);
  assert(isMcpError(refused) && refused.reason === "response_too_large", String(refused));
});

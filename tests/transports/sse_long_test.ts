// Server-sent events past 1 MiB read from their bytes (transports/_sse_long.ts): the same
// events as the event stream parser gives the joined text, for random events cut at random
// chunk boundaries (data over several lines, CR / LF / CRLF, ids, types, retry, comments, a
// byte-order mark); the event limit exact (at the limit and one byte over); and a 3 MiB event
// over real HTTP on 127.0.0.1.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { Hono } from "hono";
import { isMcpError } from "../../protocol/errors.ts";
import type { DecodeResult } from "../../protocol/jsonrpc.ts";
import { decodeMessage } from "../../protocol/decode.ts";
import { serve } from "../../runtime/serve.ts";
import { LONG_MESSAGE } from "../../transports/_bytes.ts";
import { type SseEvent, SseReader } from "../../transports/_sse.ts";
import { makeLongEvent } from "../../transports/_sse_long.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { modernRequest, recordingSink, rejection } from "./_http_helpers.ts";
import { collect } from "./_streams.ts";

const encoder = new TextEncoder();

/** A small deterministic generator, so that a failure can be replayed from its seed. */
function random(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

/** A notification's JSON text of about `bytes` bytes, and the places a data line may end. */
function longMessage(bytes: number, pick: (n: number) => number): { text: string; cuts: number[] } {
  const units = ['é\\n😀\\"x\\u00e9 plain ', "abc ", "\\\\ ", "ü€ ", "\\t\\/ "];
  const parts: string[] = [];
  for (let size = 0; size < bytes;) {
    const unit = units[pick(units.length)];
    parts.push(unit);
    size += unit.length;
  }
  const tokens = [
    "{",
    '"jsonrpc":',
    '"2.0",',
    '"method":"notifications/message",',
    '"params":',
    "{",
    `"data":"${parts.join("")}"`,
    ",",
    '"n":[1,',
    "2.5e1]",
    "}}",
  ];
  const cuts: number[] = [];
  let at = 0;
  for (const token of tokens.slice(0, -1)) cuts.push(at += token.length);
  return { text: tokens.join(""), cuts };
}

interface Built {
  bytes: Uint8Array;
  /** The stream's text as the event stream parser would see it (its bytes decoded). */
  text: string;
}

/** A stream of a small event, a long one spread over data lines, and a small one after. */
function stream(seed: number): Built {
  const pick = random(seed);
  const eol = ["\n", "\r\n", "\r"][pick(3)];
  const { text, cuts } = longMessage(LONG_MESSAGE + pick(LONG_MESSAGE), pick);
  // Where the data lines end: token boundaries, and in two streams of three inside the long
  // string too, near its start or its end (a raw line break there is not JSON, on either path).
  const ends = cuts.filter(() => pick(3) === 0);
  if (seed % 3 === 0) ends.push(cuts[5] + 100 + pick(1000));
  if (seed % 3 === 1) ends.push(cuts[6] - 100 - pick(1000));
  ends.sort((a, b) => a - b);
  const lines: string[] = [];
  let from = 0;
  for (const end of [...ends, text.length]) {
    lines.push(`data:${pick(2) ? " " : ""}${text.slice(from, end)}`);
    from = end;
  }
  const before: string[] = [];
  if (pick(2)) before.push(`id: ${seed}`);
  if (pick(2)) before.push("event: message");
  if (pick(2)) before.push(": a comment");
  if (pick(2)) before.push("retry: 125");
  if (pick(3) === 0) before.push('data: {"first":', "data");
  const after: string[] = [];
  if (pick(2)) after.push("id:later");
  if (pick(2)) after.push("retry: x");
  if (pick(2)) after.push('data: "tail"');
  if (pick(2)) after.push(":c");
  const small = `data: {"jsonrpc":"2.0","method":"a"}${eol}${eol}`;
  const event = [...before, ...lines, ...after].join(eol) + eol + eol;
  const bom = pick(4) === 0;
  const whole = (bom ? "\uFEFF" : "") + (bom ? "" : small) + event + `id: end${eol}` + small;
  return { bytes: encoder.encode(whole), text: whole };
}

/** `bytes` in chunks of random sizes (some of a few bytes, most up to 256 KiB). */
function chunks(bytes: Uint8Array, pick: (n: number) => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = pick(4) === 0 ? 1 + pick(8) : 1 + pick(256 * 1024);
    out.push(bytes.slice(at, at + size));
    at += size;
  }
  return out;
}

function body(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++]);
      else controller.close();
    },
  });
}

/** What the event stream parser makes of `text`: the events and the last id and retry. */
function parsed(text: string): { events: EventSourceMessage[]; lastId?: string; retry?: number } {
  const out: { events: EventSourceMessage[]; lastId?: string; retry?: number } = { events: [] };
  const parser = createParser({
    onEvent: (event) => out.events.push(event),
    onId: (id) => out.lastId = id,
    onRetry: (ms) => out.retry = ms,
  });
  parser.feed(text);
  return out;
}

/** The outcome of an event's data: read from its bytes, or decoded from its text. */
function outcome(data: SseEvent["data"]): DecodeResult {
  return typeof data === "string" ? decodeMessage(data) : data.decoded;
}

function same(actual: DecodeResult, expected: DecodeResult, what: string): void {
  assertEquals(actual.ok, expected.ok, what);
  if (actual.ok && expected.ok) {
    assertEquals(JSON.stringify(actual.message), JSON.stringify(expected.message), what);
  } else if (!actual.ok && !expected.ok) assertEquals(actual.reason, expected.reason, what);
}

test(
  "sse long: random long events at random chunk cuts read as the parser reads their text",
  async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { bytes, text } = stream(seed);
      const expected = parsed(text);
      const reader = new SseReader(body(chunks(bytes, random(seed * 7919))), 8 * LONG_MESSAGE);
      const events = await collect(reader);
      const what = `seed ${seed}`;
      assertEquals(events.length, expected.events.length, what);
      let long = 0;
      for (let i = 0; i < events.length; i++) {
        const [event, want] = [events[i], expected.events[i]];
        if (typeof event.data !== "string") {
          long++;
          // The data's first bytes, as joined from its lines (one space after `data:` dropped).
          const head = new TextDecoder().decode(encoder.encode(want.data).subarray(0, 1024));
          assertEquals(event.data.head, head, `${what}, event ${i} head`);
        }
        same(outcome(event.data), decodeMessage(want.data), `${what}, event ${i}`);
        assertEquals(event.event, want.event, `${what}, event ${i} type`);
        assertEquals(event.id, want.id === "" ? undefined : want.id, `${what}, event ${i} id`);
      }
      assertEquals(long, 1, `${what}: the long event was read from its bytes`);
      assertEquals(reader.lastEventId, expected.lastId, what);
      assertEquals(reader.retry, expected.retry, what);
    }
  },
  { timeout: 120_000 },
);

test("sse long: field lines read byte by byte join and strip as the parser does", () => {
  const retries: number[] = [];
  const text =
    'data:  {"a":\r\ndata\r\n: note\rid: 4\nevent: kind\nretry: 7\ndata:"b"}\r\n\r\nrest';
  const bytes = encoder.encode(text);
  const event = makeLongEvent(1024, "[\n", "1", undefined, { onRetry: (ms) => retries.push(ms) });
  let ended = -1;
  for (let i = 0; i < bytes.length && ended === -1; i++) {
    const at = event.push(bytes.subarray(i, i + 1));
    if (at !== -1) ended = i + at;
  }
  // Fed byte by byte, the blank line ends at its CR; the LF after it is a blank line to the
  // parser of what follows, which then has nothing to dispatch.
  assertEquals(ended, text.indexOf("rest") - 1);
  const answer = event.answer();
  assertEquals(answer.head, '[\n {"a":\n\n"b"}');
  assertEquals([event.id, event.event, retries], ["4", "kind", [7]]);
  const expected = parsed("data: [\n" + text.slice(0, text.indexOf("rest")));
  assertEquals(answer.head, expected.events[0].data);
});

/** One event whose data is `size` bytes of JSON, in 64 KiB chunks. */
function sized(size: number): { bytes: Uint8Array; data: string } {
  const head = '{"jsonrpc":"2.0","method":"m","params":{"s":"';
  const data = head + "x".repeat(size - head.length - 4) + '"}}';
  assertEquals(encoder.encode(data).length, size - 1);
  const full = data + " "; // JSON whitespace: exactly `size` bytes
  return { bytes: encoder.encode(`id: 9\ndata: ${full}\n\n`), data: full };
}

test("sse long: the event limit holds at exactly the limit and refuses one byte over", async () => {
  const limit = 2 * LONG_MESSAGE + 17;
  const exact = sized(limit);
  const events = await collect(new SseReader(body(chunks(exact.bytes, random(3))), limit));
  assertEquals(events.length, 1);
  assert(typeof events[0].data !== "string", "read from its bytes");
  same(outcome(events[0].data), decodeMessage(exact.data), "at the limit");
  assertEquals(events[0].id, "9");
  const over = sized(limit + 1);
  try {
    await collect(new SseReader(body(chunks(over.bytes, random(4))), limit));
    throw new Error("expected a rejection");
  } catch (error) {
    assert(isMcpError(error), String(error));
    assertEquals([error.kind, error.reason], ["protocol", "event_too_large"]);
  }
}, { timeout: 60_000 });

test(
  "sse long: a 3 MiB event over HTTP on 127.0.0.1, and the limit one byte under it",
  async () => {
    const { text } = longMessage(3 * LONG_MESSAGE, random(5));
    const answer = text.replace('"method":"notifications/message"', '"id":1,"result":{"ok":true}')
      .replace('"params":', '"extra":');
    const expected = JSON.parse(answer);
    const cut = answer.indexOf('"extra":'); // a data line ends between two tokens
    const frame = encoder.encode(
      `id: 1\ndata: ${answer.slice(0, cut)}\ndata:${answer.slice(cut)}\n\n`,
    );
    const app = new Hono();
    app.post("/", () => {
      let sent = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) return controller.close();
          sent = true;
          for (let at = 0; at < frame.length; at += 60_000) {
            controller.enqueue(frame.slice(at, at + 60_000));
          }
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    });
    await using server = await serve(app.fetch);
    const size = encoder.encode(answer).length + 1; // the data lines joined with "\n"
    const sink = recordingSink();
    const link = await streamableHttp(server.url, { maxEventBytes: size, maxResponseBytes: size })
      .open(sink);
    await link.send(modernRequest(1, "tools/call"));
    const reply = await sink.next((m) => "id" in m && m.id === 1, 30_000);
    assertEquals(JSON.stringify(reply), JSON.stringify(expected));
    await link.close();
    const tight = await streamableHttp(server.url, { maxEventBytes: size - 1 }).open(
      recordingSink(),
    );
    const over = await rejection(tight.send(modernRequest(1, "tools/call")));
    assertEquals([over.kind, over.reason], ["protocol", "event_too_large"]);
    await tight.close();
  },
  { timeout: 60_000 },
);

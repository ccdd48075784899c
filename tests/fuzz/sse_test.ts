// The SSE decoders: the transport's streaming reader gives the same events (or the same
// clear McpError) however the body is chunked (lines within the limit), and both it and the probe's whole-body parser
// return exactly the events a well-formed stream was written from.
import fc from "fast-check";
import { assert, assertEquals, test } from "../_harness.ts";
import { isMcpError } from "../../protocol/errors.ts";
import { parseEventStream } from "../../protocol/_probe_body.ts";
import { type SseEvent, SseReader } from "../../transports/_sse.ts";
import { type SseMessage, SseParser } from "../../transports/_sse_parser.ts";
import { createParser } from "eventsource-parser";
import { fuzz } from "./_fuzz.ts";

const encoder = new TextEncoder();

function body(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

function chunks(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const end of [...at, bytes.length]) {
    out.push(bytes.slice(start, end));
    start = end;
  }
  return out;
}

type Outcome = { events: SseEvent[]; error?: string };

/** Every event of a body, and the reason of the McpError that ended it, if one did. */
async function read(parts: Uint8Array[], limit: number): Promise<Outcome> {
  const reader = new SseReader(body(parts), limit);
  const events: SseEvent[] = [];
  try {
    for (let event; (event = await reader.next()) !== undefined;) events.push(event);
    return { events };
  } catch (error) {
    // A clear McpError, never another exception.
    assert(isMcpError(error), `not an McpError: ${error}`);
    assertEquals([error.kind, error.reason], ["protocol", "event_too_large"]);
    return { events, error: error.reason };
  } finally {
    reader.close();
  }
}

/** The most characters one block of lines (up to a blank line) holds, line ends included. */
function largestBlock(stream: string): number {
  let largest = 0;
  let block = 0;
  for (const line of stream.split(/\r\n|\r|\n/)) {
    block = line === "" ? 0 : block + line.length + 2;
    largest = Math.max(largest, block);
  }
  return largest;
}

/**
 * Lines of an event stream, well-formed or not. (No U+FEFF: the reference parser below drops
 * one at the start of any chunk it is fed, not only of the stream.)
 */
const line = fc.oneof(
  fc.constantFrom("", "data:", "data: x", "data:  two spaces", ":comment", "id: 7", "id:", "id"),
  fc.constantFrom("event: ping", "event:", "retry: 10", "retry: x", "data", "dat: a"),
  fc.string({ maxLength: 16 }).map((s) => `data: ${s}`),
  fc.string({ maxLength: 16 }),
);
const ending = fc.constantFrom("\n", "\r\n", "\r");
const text = fc.array(fc.tuple(line, ending), { maxLength: 20 }).map((lines) =>
  lines.map(([l, e]) => l + e).join("")
);

fuzz(
  "sse: any chunking of a body gives the same events or the same McpError",
  () =>
    fc.asyncProperty(
      text,
      fc.array(fc.nat(), { maxLength: 10 }),
      fc.integer({ min: 1, max: 64 }),
      async (stream, cuts, limit) => {
        const bytes = encoder.encode(stream);
        const whole = await read([bytes], limit);
        const split = await read(chunks(bytes, cuts), limit);
        const refused = split.error !== undefined || whole.error !== undefined;
        if (largestBlock(stream) <= limit || !refused) assertEquals(split, whole);
        else {
          // Text over the limit that never makes an event (a long comment, a block with no
          // blank line after it) is refused only when the parser must hold it, which depends
          // on where the chunks end: the same events up to the refusal, then event_too_large.
          const [first, second] = split.events.length <= whole.events.length
            ? [split, whole]
            : [whole, split];
          assertEquals(first.events, second.events.slice(0, first.events.length));
        }
        for (const event of whole.events) {
          // Events this small are never read as long ones: their data is text.
          assert(typeof event.data === "string", "a short event read as a long one");
          assert(encoder.encode(event.data).length <= limit, "an event over the limit");
        }
      },
    ),
  0.5,
);

/** What a parser reported: events, ids and retries, in order. */
type Reported = (SseMessage | { id: string } | { retry: number })[];

/** What the package `eventsource-parser` (the reference) reports for `pieces`. */
function reference(pieces: string[]): Reported {
  const out: Reported = [];
  const parser = createParser({
    onEvent: ({ id, event, data }) =>
      out.push({ data, ...(id === undefined ? {} : { id }), ...(event ? { event } : {}) }),
    onId: (id) => out.push({ id }),
    onRetry: (retry) => out.push({ retry }),
  });
  for (const piece of pieces) parser.feed(piece);
  return out;
}

/** What our grammar reports for `pieces`. */
function ours(pieces: string[], limit = Infinity): Reported & { overflow?: boolean } {
  const out: Reported = [];
  const client = {
    overflow: false,
    onEvent: (message: SseMessage) => out.push(message),
    onId: (id: string) => out.push({ id }),
    onRetry: (retry: number) => out.push({ retry }),
  };
  const parser = new SseParser(client, limit);
  for (const piece of pieces) parser.feed(piece);
  return client.overflow ? Object.assign(out, { overflow: true }) : out;
}

/** `text` cut at `cuts` (positions taken modulo its length). */
function pieces(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  return [...at, text.length].map((end, i, all) => text.slice(i === 0 ? 0 : all[i - 1], end));
}

fuzz(
  "sse: the grammar reports what the reference parser does, however the text is cut",
  () =>
    fc.property(
      fc.oneof(
        text,
        // A soup of the characters the grammar looks at, NUL and both line ends included…
        fc.string({ unit: fc.constantFrom(..."data:event:id:retry: 7\n\r\0x"), maxLength: 80 }),
        // …and lines the fields above rarely spell, ended every way.
        fc.array(
          fc.tuple(
            fc.constantFrom("id: a\0b", "id:\0", "retry: 12", "retry:1x", "event", "data", ""),
            ending,
          ),
          { maxLength: 12 },
        ).map((lines) => lines.map(([l, e]) => l + e).join("")),
      ),
      fc.array(fc.nat(), { maxLength: 12 }),
      (stream, cuts) => {
        const expected = reference([stream]);
        assertEquals(ours([stream]), expected);
        assertEquals(ours(pieces(stream, cuts)), expected);
        assertEquals(reference(pieces(stream, cuts)), expected);
      },
    ),
);

test("sse: the grammar holds an event and its unfinished line to the limit", () => {
  // 10 characters of data fit a limit of 10, and so does a held line of 10 (prefix and all).
  assertEquals(ours(["data: 0123456789\n\n"], 10), [{ data: "0123456789" }]);
  assertEquals(ours(["data: 0123", "456789\n\n"], 10), [{ data: "0123456789" }]);
  assertEquals(ours(["data: 0123", "4"], 10).overflow, true);
  // Data lines add up, with the line breaks between them.
  assertEquals(ours(["data: 01234\ndata: 5678\n\n"], 10), [{ data: "01234\n5678" }]);
  assertEquals(ours(["data: 01234\ndata: 56789\n\n"], 10).overflow, true);
  // A line that names no field of ours is skipped, never held: a long comment is no event.
  assertEquals(ours([":" + "x".repeat(100), "y".repeat(100), "\ndata: a\n\n"], 10), [
    { data: "a" },
  ]);
  assertEquals(ours(["unknown: " + "x".repeat(100) + "\r", "\ndata: b\r\n\r\n"], 10), [
    { data: "b" },
  ]);
});

/** A field value: no line breaks (and no NUL, which voids an `id:`). */
const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.constantFrom("\ufeff", "a\ufeffb", "\ufeff{}"), // a BOM inside data is data
).map((s) => s.replace(/[\r\n\0]/g, "_"));
const written = fc.array(
  fc.record({
    data: fc.array(value, { minLength: 1, maxLength: 3 }).map((lines) => lines.join("\n")),
    event: fc.option(fc.stringMatching(/^[a-z][a-z0-9_/]{0,8}$/), { nil: undefined }),
    id: fc.option(value.filter((s) => s !== ""), { nil: undefined }),
  }),
  { maxLength: 6 },
);

function serialize(events: { data: string; event?: string; id?: string }[], eol: string): string {
  return events.map((e) =>
    [
      ...(e.event === undefined ? [] : [`event: ${e.event}`]),
      ...(e.id === undefined ? [] : [`id: ${e.id}`]),
      ...e.data.split("\n").map((d) => `data: ${d}`),
    ].map((l) => l + eol).join("") + eol
  ).join("");
}

fuzz(
  "sse: both decoders return the events a well-formed stream was written from",
  () =>
    fc.asyncProperty(
      written,
      ending,
      fc.array(fc.nat(), { maxLength: 10 }),
      fc.boolean(),
      async (events, eol, cuts, bom) => {
        // A leading BOM is not part of the stream.
        const stream = (bom ? "\ufeff" : "") + serialize(events, eol);
        const { events: read_, error } = await read(chunks(encoder.encode(stream), cuts), 1 << 16);
        assertEquals(error, undefined);
        assertEquals(
          read_.map(({ data, event, id }) => ({ data, event, id })),
          events.map(({ data, event, id }) => ({ data, event, id })),
        );
        assertEquals(
          parseEventStream(stream),
          events.map(({ data, event }) => ({ event: event ?? "message", data })),
        );
      },
    ),
  0.5,
);

fuzz(
  "sse: the whole-body parser never throws and keeps its shape",
  () =>
    fc.property(fc.oneof(text, fc.string()), (stream) => {
      for (const event of parseEventStream(stream)) {
        assert(typeof event.event === "string" && event.event !== "", "an event type");
        assert(typeof event.data === "string", "data");
      }
    }),
);

test("sse: a U+FEFF where a chunk starts is data, not a byte-order mark", async () => {
  const parts = ['data: {"text":"a', '\ufeffb"}\n\n'].map((p) => encoder.encode(p));
  const { events } = await read(parts, 1024);
  assertEquals(events.map((e) => e.data), ['{"text":"a\ufeffb"}']);
  const leading = await read([encoder.encode("\ufeffdata: x\n\n")], 1024);
  assertEquals(leading.events.map((e) => e.data), ["x"]);
});

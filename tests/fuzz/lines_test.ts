// The stdio line splitter: any split of a byte stream into chunks gives the same lines and
// the same oversized reports as a reference model of newline framing; the buffer stays
// bounded by the limit.
import fc from "fast-check";
import { assert, assertEquals } from "../_harness.ts";
import { lineSplitter } from "../../transports/_lines.ts";
import { fuzz } from "./_fuzz.ts";

const encoder = new TextEncoder();

/** Bytes rich in line endings, blanks, multi-byte and invalid UTF-8. */
const stream = fc.array(
  fc.oneof(
    fc.constantFrom("\n", "\r\n", "\r", " ", "\t", "\n\n", "é", "😀", "{}").map((s) =>
      encoder.encode(s)
    ),
    fc.string({ unit: "binary", maxLength: 12 }).map((s) => encoder.encode(s)),
    fc.uint8Array({ maxLength: 12 }),
    fc.constant(Uint8Array.of(0xf0, 0x9f)), // a code point cut short
  ),
  { maxLength: 24 },
).map((pieces) => {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
});

/** Cut points into a stream of `length` bytes, as sorted offsets. */
function chunks(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const end of [...at, bytes.length]) {
    out.push(bytes.subarray(start, end));
    start = end;
  }
  return out;
}

type Seen = ["line", string] | ["oversized", number];

function split(parts: Uint8Array[], maxLineBytes: number): Seen[] {
  const seen: Seen[] = [];
  const splitter = lineSplitter({
    maxLineBytes,
    onLine: (line) => seen.push(["line", line]),
    onOversized: (bytes) => seen.push(["oversized", bytes]),
  });
  for (const part of parts) {
    splitter.push(part);
    assert(splitter.bufferedBytes <= maxLineBytes + 1, `buffered ${splitter.bufferedBytes}`);
  }
  splitter.end();
  assertEquals(splitter.bufferedBytes, 0);
  return seen;
}

/** Newline framing as the transport documents it, on the whole input at once. */
function model(bytes: Uint8Array, maxLineBytes: number): Seen[] {
  const seen: Seen[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const line = bytes.subarray(start, end);
    const body = line.at(-1) === 0x0d ? line.subarray(0, -1) : line;
    if (body.length > maxLineBytes) seen.push(["oversized", line.length]);
    else {
      const text = new TextDecoder().decode(body);
      if (!/^[ \t\r\v\f]*$/.test(text)) seen.push(["line", text]);
    }
    start = end + 1;
  }
  return seen;
}

fuzz("lines: any chunking gives the lines of the reference framing", () =>
  fc.property(
    stream,
    fc.array(fc.nat(), { maxLength: 12 }),
    fc.integer({ min: 1, max: 40 }),
    (bytes, cuts, max) => {
      const expected = model(bytes, max);
      assertEquals(split([bytes], max), expected);
      assertEquals(split(chunks(bytes, cuts), max), expected);
    },
  ));

fuzz(
  "lines: byte-by-byte feeding gives the same lines as one chunk",
  () =>
    fc.property(stream, fc.integer({ min: 1, max: 40 }), (bytes, max) => {
      const single = [...bytes].map((b) => Uint8Array.of(b));
      assertEquals(split(single, max), split([bytes], max));
    }),
  0.5,
);

fuzz("lines: JSON lines come back whole whatever the chunking", () =>
  fc.property(
    fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 }),
    fc.array(fc.nat(), { maxLength: 16 }),
    (values, cuts) => {
      const text = values.map((v) => JSON.stringify(v)).join("\n") + "\n";
      const bytes = encoder.encode(text);
      const lines = split(chunks(bytes, cuts), 1 << 20);
      const expected = values.map((v) => JSON.parse(JSON.stringify(v))); // -0 is sent as 0
      assertEquals(lines.map(([, line]) => JSON.parse(line as string)), expected);
    },
  ), 0.3);

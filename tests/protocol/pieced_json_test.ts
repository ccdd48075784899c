// The pieced reader against `decodeMessage(new TextDecoder().decode(bytes))`: the same message
// (the same values, key order, -0, own `__proto__` keys) or the same refusal, for random JSON
// texts written every way JSON allows (escapes of every kind, \u surrogates and lone halves,
// raw UTF-8 broken anywhere, numbers with exponents, blanks, a byte-order mark), mutated into
// invalid ones, and cut into chunks anywhere, with long strings from any length on.
import fc from "fast-check";
import type { DecodeResult } from "../../protocol/jsonrpc.ts";
import { decodeMessage } from "../../protocol/decode.ts";
import { LONG_STRING, piecedReader } from "../../protocol/pieced_json.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const utf8 = new TextEncoder();

/** A small seeded generator, so one fast-check integer drives a whole text. */
function rng(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

const WS = [" ", "\t", "\n", "\r"];
const ODD_BYTES = [[0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f], [0xff], [0x80, 0x80], [
  0xef,
  0xbb,
  0xbf,
]];

/** Writes bytes of a random JSON text (`depth` bounds the nesting). */
function writer(next: (n: number) => number) {
  const out: number[] = [];
  const text = (s: string) => {
    for (const b of utf8.encode(s)) out.push(b);
  };
  const blanks = () => {
    if (next(3) === 0) { for (let i = next(3); i >= 0; i--) text(WS[next(4)]); }
  };
  const hex = (code: number) => {
    const h = code.toString(16).padStart(4, "0");
    return next(2) === 0 ? h : h.toUpperCase();
  };
  const string = (long: boolean) => {
    text('"');
    const length = long ? 200 + next(600) : next(12);
    for (let i = 0; i < length; i++) {
      const kind = next(16);
      if (kind < 6) text(String.fromCharCode(0x20 + next(95)).replace(/["\\]/, "a"));
      else if (kind === 6) text(["\\n", '\\"', "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t"][next(8)]);
      else if (kind === 7) text(`\\u${hex(next(0x10000))}`);
      else if (kind === 8) text(`\\u${hex(0xd800 + next(0x400))}\\u${hex(0xdc00 + next(0x400))}`);
      else if (kind === 9) text(["é", "€", "😀", "\u2028", "\ufeff", "中"][next(6)]);
      else if (kind === 10) out.push(...ODD_BYTES[next(ODD_BYTES.length)]);
      else if (kind === 11) text("\\u0000");
      else if (kind === 12) text(`\\u${hex(next(0x20))}`);
      else text("abcdefgh".slice(0, 1 + next(8)));
    }
    text('"');
  };
  const number = () => {
    const forms = [
      "0",
      "-0",
      "1e5",
      "1E+5",
      "-2.5e-3",
      "123456789012345678901234567890",
      "0.1",
      "1e400",
      "-1e-400",
      "5E0",
    ];
    text(
      next(3) === 0
        ? forms[next(forms.length)]
        : String((next(2000000) - 1000000) / (1 + next(100))),
    );
  };
  const value = (depth: number): void => {
    blanks();
    const kind = depth <= 0 ? next(5) : next(8);
    if (kind === 0) string(next(4) === 0);
    else if (kind === 1) number();
    else if (kind === 2) text(["true", "false", "null"][next(3)]);
    else if (kind === 3) string(false);
    else if (kind === 4) string(true);
    else if (kind === 5 || kind === 6) {
      text("{");
      const n = next(5);
      for (let i = 0; i < n; i++) {
        if (i > 0) text(",");
        blanks();
        const key = next(16);
        if (key === 0) text('"__proto__"');
        else if (key < 3) text('"k"');
        else string(next(6) === 0);
        blanks();
        text(":");
        value(depth - 1);
      }
      blanks();
      text("}");
    } else {
      text("[");
      const n = next(5);
      for (let i = 0; i < n; i++) {
        if (i > 0) text(",");
        value(depth - 1);
      }
      blanks();
      text("]");
    }
    blanks();
  };
  /** A JSON-RPC response whose result is a random value (so the reader's value is seen). */
  const message = (): number[] => {
    if (next(10) === 0) out.push(0xef, 0xbb, 0xbf);
    blanks();
    text('{"jsonrpc":"2.0","id":1,');
    blanks();
    text('"result":');
    value(4);
    text("}");
    blanks();
    return out;
  };
  return { message, value: () => (value(4), out) };
}

/** Deep equality that tells -0 from 0 and checks key order and prototypes. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) {
    return Object.is(a, b);
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false;
    const va = (a as Record<string, unknown>)[ka[i]];
    const vb = (b as Record<string, unknown>)[kb[i]];
    if (!same(va, vb)) return false;
  }
  return true;
}

function read(
  bytes: Uint8Array,
  cuts: number[],
  longString: number,
  piece?: number,
): DecodeResult | undefined {
  // Decoded a few bytes at a time, or (one time in five) in the usual pieces.
  const some = bytes.length + longString;
  const reader = piecedReader(longString, piece ?? (some % 5 === 0 ? undefined : 1 + some % 7));
  let from = 0;
  for (const cut of [...cuts].sort((x, y) => x - y)) {
    // A fresh copy per chunk, overwritten once pushed: the reader keeps none of it.
    const chunk = bytes.slice(from, cut);
    reader.push(chunk);
    chunk.fill(0x41);
    from = cut;
  }
  const last = bytes.slice(from);
  reader.push(last);
  last.fill(0x41);
  return reader.end();
}

function agrees(bytes: Uint8Array, cuts: number[], longString: number): void {
  const expected = decodeMessage(new TextDecoder().decode(bytes));
  const got = read(bytes, cuts, longString);
  const text = new TextDecoder().decode(bytes);
  if (got === undefined) {
    assert(/^[ \t\r\v\f]*$/.test(text), `blank only for blanks: ${JSON.stringify(text)}`);
    return;
  }
  assertEquals(got.ok, expected.ok, JSON.stringify(text.slice(0, 200)));
  if (!got.ok && !expected.ok) {
    assertEquals(got.reason, expected.reason);
    assertEquals(got.detail, expected.detail);
    return;
  }
  if (got.ok && expected.ok) assert(same(got.message, expected.message), "values differ");
}

const cutsOf = (length: number) => fc.array(fc.integer({ min: 0, max: length }), { maxLength: 12 });

test("pieced reader: random messages cut anywhere read as decodeMessage of their text", () => {
  fc.assert(
    fc.property(
      fc.integer(),
      fc.integer({ min: 0, max: 40 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (seed, long, raw) => {
        const bytes = new Uint8Array(writer(rng(seed)).message());
        agrees(bytes, raw.map((c) => c % (bytes.length + 1)), long);
      },
    ),
    { numRuns: 600 },
  );
});

test("pieced reader: any value at the top reads as decodeMessage says (refusals too)", () => {
  fc.assert(
    fc.property(
      fc.integer(),
      fc.integer({ min: 0, max: 40 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      (seed, long, raw) => {
        const bytes = new Uint8Array(writer(rng(seed)).value());
        agrees(bytes, raw.map((c) => c % (bytes.length + 1)), long);
      },
    ),
    { numRuns: 300 },
  );
});

test("pieced reader: a message cut at every byte, and in 1-byte chunks", () => {
  let tried = 0;
  for (let seed = 1; tried < 10; seed++) {
    const bytes = new Uint8Array(writer(rng(seed * 7919)).message());
    if (bytes.length > 400) continue;
    tried++;
    for (const long of [0, 64]) {
      for (let cut = 0; cut <= bytes.length; cut++) agrees(bytes, [cut], long);
      agrees(bytes, Array.from({ length: bytes.length }, (_, i) => i), long);
    }
  }
});

test("pieced reader: invalid texts (a byte changed, dropped or added) are refused alike", () => {
  const bad = [0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c, 0x00, 0x0a, 0x75, 0x30, 0x20, 0xc3];
  fc.assert(
    fc.property(
      fc.integer(),
      fc.nat(),
      fc.nat(),
      fc.integer({ min: 0, max: 2 }),
      cutsOf(64),
      fc.integer({ min: 0, max: 8 }),
      (seed, at, pick, how, cuts, long) => {
        const good = writer(rng(seed)).message();
        const i = at % good.length;
        const b = bad[pick % bad.length];
        if (how === 0) good[i] = b;
        else if (how === 1) good.splice(i, 1);
        else good.splice(i, 0, b);
        const bytes = new Uint8Array(good);
        agrees(bytes, cuts.map((c) => c % (bytes.length + 1)), long);
      },
    ),
    { numRuns: 600 },
  );
});

test("pieced reader: hand-picked edges", () => {
  const cases = [
    '{"jsonrpc":"2.0","id":1,"result":"\\u0000"}',
    '{"jsonrpc":"2.0","id":1,"result":["\\u00000","\\u00001x"]}',
    '{"jsonrpc":"2.0","id":1,"result":{"\\u0000a":"\\u00000","__proto__":{"x":"\\ud83d\\ude00"}}}',
    '{"jsonrpc":"2.0","id":1,"result":{"k":1,"long key here":2,"k":3}}',
    '{"jsonrpc":"2.0","id":1,"result":{"a":"x" , "b" :"y"  }}',
    '{"jsonrpc":"2.0","id":1,"result":"\\ud800\\udc00\\udc00\\ud800"}',
    '{"jsonrpc":"2.0","id":1,"result":"\\uD83D"}',
    '{"jsonrpc":"2.0","id":1,"result":-0}',
    '{"jsonrpc":"2.0","id":1,"result":"a\\"}',
    '{"jsonrpc":"2.0","id":1,"result":"a\\u12"}',
    '{"jsonrpc":"2.0","id":1,"result":"a\\x"}',
    '{"jsonrpc":"2.0","id":1,"result":"tab\there"}',
    '{"jsonrpc":"2.0","id":1,"result":"\\\\"}',
    '{"jsonrpc":"2.0","id":1,"result":"\\\\\\""}',
    '{"jsonrpc":"2.0","id":1,"result":"open',
    '{"jsonrpc":"2.0","id":1,"result":"x"',
    "\ufeff" + '{"jsonrpc":"2.0","id":1,"result":"\ufeff"}',
    '{"jsonrpc":"2.0","id":1,"result":"\ufeff"}',
    "[]",
    '"top"',
    "   ",
    " \u000b ",
    "",
  ];
  for (const text of cases) {
    const bytes = utf8.encode(text);
    for (const long of [0, 1, 2, 5, 100]) {
      for (let cut = 0; cut <= bytes.length; cut++) agrees(bytes, [cut], long);
      agrees(bytes, Array.from({ length: bytes.length }, (_, i) => i), long);
    }
  }
  assertEquals(read(utf8.encode(" \t "), [], 0), undefined);
});

test("pieced reader: a long string is read in pieces and keeps its value", () => {
  const body = "é😀\\n\\u00e9x".repeat(40_000);
  const text = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"${body}"}]}}`;
  const bytes = utf8.encode(text);
  assert(bytes.length > 4 * LONG_STRING, "long enough to be pieced");
  const cuts = [];
  for (let at = 1; at < bytes.length; at += 4093) cuts.push(at);
  for (const piece of [undefined, 4096, 4099]) {
    const got = read(bytes, cuts, LONG_STRING, piece);
    assert(got?.ok, "a message");
    assert(same(got.message, JSON.parse(text)), "the same value");
  }
  const reader = piecedReader();
  reader.push(bytes.subarray(0, 10));
  assertEquals(new TextDecoder().decode(reader.head), text.slice(0, 10));
  assertEquals(reader.length, 10);
  assertEquals(reader.lastByte, bytes[9]);
});

test("pieced reader: deep nesting reads as JSON.parse does", () => {
  const depth = 5000;
  const text = `{"jsonrpc":"2.0","id":1,"result":${"[".repeat(depth)}"${"z".repeat(50)}"${
    "]".repeat(depth)
  }}`;
  const bytes = utf8.encode(text);
  const got = read(bytes, [depth, depth + 20], 10);
  const expected = decodeMessage(text);
  assertEquals(got?.ok, expected.ok);
  if (got?.ok) {
    let node: unknown = (got.message as { result: unknown }).result;
    for (let i = 0; i < depth; i++) node = (node as unknown[])[0];
    assertEquals(node, "z".repeat(50));
  }
});

// The JSON text of a value in pieces: the same text as JSON.stringify, byte for byte, for any
// JSON value (unicode escapes, lone surrogates, -0, long strings cut into pieces), with
// toJSON and boxed primitives as JSON.stringify treats them, nesting deeper than the call
// stack allows, and the same TypeError for a cycle or a BigInt. And jsonLength of a string,
// counted without writing it, as JSON.stringify's length.
import fc from "fast-check";
import { jsonChunks } from "../../protocol/json_chunks.ts";
import { jsonLength } from "../../protocol/json_length.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";

const unicode = fc.string({ unit: "binary", maxLength: 60 });
const lone = fc.constantFrom(
  "\uD800",
  "\uDC00",
  "a\uDBFFb",
  "\uDFFF\uD800",
  "😀",
  '\u2028\u0000\u001B\u007F"\\',
);
const text = fc.oneof(unicode, lone, fc.string({ unit: "grapheme", maxLength: 30 }));
const scalar = fc.oneof(
  text,
  fc.double(),
  fc.constantFrom(-0, 0, 1e21, 1e-7, Number.NaN, Infinity, -Infinity, Number.MAX_VALUE),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 6 }),
  object: fc.dictionary(text, tie("value"), { maxKeys: 6 }),
}));

test("jsonChunks: the pieces join to JSON.stringify's text, for any piece size", () => {
  fc.assert(
    fc.property(value, fc.integer({ min: 1, max: 64 }), (v, size) => {
      const pieces = [...jsonChunks(v, size)];
      const expected = JSON.stringify(v);
      if (expected === undefined) assertEquals(pieces, []);
      else assertEquals(pieces.join(""), expected);
      // Every piece but the last holds at least `size` characters, and no piece is empty.
      pieces.slice(0, -1).forEach((piece) => assert(piece.length >= size, piece));
      assert(pieces.every((piece) => piece !== ""));
    }),
    { numRuns: 1_000 },
  );
});

test("jsonChunks: wide containers (each member written at once) give the same text", () => {
  fc.assert(
    fc.property(
      fc.array(value, { minLength: 30, maxLength: 80 }),
      fc.dictionary(text, value, { minKeys: 30, maxKeys: 60 }),
      fc.integer({ min: 1, max: 200 }),
      (rows, wide, size) => {
        const both = { rows, wide, nested: [rows, { wide }] };
        assertEquals([...jsonChunks(both, size)].join(""), JSON.stringify(both));
      },
    ),
    { numRuns: 200 },
  );
  // A member's own toJSON is called with its key, as JSON.stringify calls it.
  const rows = Array.from({ length: 40 }, (_, i) => ({ i, toJSON: (key: string) => `row ${key}` }));
  assertEquals([...jsonChunks({ rows })].join(""), JSON.stringify({ rows }));
  // A cycle through a wide container's member is still the TypeError.
  const ring: Record<string, unknown>[] = Array.from({ length: 40 }, () => ({}));
  ring[3].back = ring;
  assertThrows(() => [...jsonChunks(ring)], TypeError);
});

test("jsonChunks: a long string is cut into pieces between whole characters", () => {
  const long = '😀é\uD800x"'.repeat(50_000);
  const pieces = [...jsonChunks({ long }, 1_000)];
  assertEquals(pieces.join(""), JSON.stringify({ long }));
  assert(pieces.length > 100, `${pieces.length} pieces`);
  assert(pieces.every((piece) => piece.length < 3_000), "each piece is bounded");
});

test("jsonChunks: toJSON, Dates, boxed primitives, holes and skipped members as JSON.stringify", () => {
  const special = {
    date: new Date(0),
    own: { toJSON: (key: string) => `key ${key}` },
    boxed: [new Number(-0), new String("s"), new Boolean(false)],
    // deno-lint-ignore no-sparse-arrays
    holes: [1, , 3],
    skipped: { f: () => 1, u: undefined, s: Symbol("x") },
    inArray: [() => 1, undefined, Symbol("y")],
    map: new Map([[1, 2]]),
  };
  assertEquals([...jsonChunks(special, 4)].join(""), JSON.stringify(special));
  assertEquals([...jsonChunks(undefined)], []);
  assertEquals([...jsonChunks(() => 1)], []);
});

test("jsonChunks: nesting deeper than the call stack allows", () => {
  let deep: unknown = [];
  for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { a: deep };
  const text = [...jsonChunks(deep)].join("");
  assertEquals(text.length, 100_000 * 2 + 2 + 50_000 * 4);
  assert(text.startsWith('{"a":[{"a":['), text.slice(0, 20));
});

test("jsonChunks: a cycle or a BigInt throws the TypeError JSON.stringify throws", () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = { back: cycle };
  assertThrows(() => [...jsonChunks(cycle)], TypeError);
  assertThrows(() => [...jsonChunks({ n: 1n })], TypeError);
  // The same object twice, not nested in itself, is no cycle.
  const shared = { x: 1 };
  assertEquals([...jsonChunks([shared, shared], 1)].join(""), '[{"x":1},{"x":1}]');
});

test("jsonLength: a string's JSON length, counted without writing it, is JSON.stringify's", () => {
  fc.assert(
    fc.property(fc.oneof(text, fc.array(lone).map((parts) => parts.join(""))), (s) => {
      assertEquals(jsonLength(s), JSON.stringify(s).length, JSON.stringify(s));
    }),
    { numRuns: 2_000 },
  );
  // Quotes and backslashes counted in the loop, a control character or surrogate written.
  for (const s of ['a"b\\c', "\u0001", "\uD800x", "😀", "\u2028é", ""]) {
    assertEquals(jsonLength(s), JSON.stringify(s).length, JSON.stringify(s));
  }
  // A slice of a long text is measured as its own text.
  const long = 'ab"c\\\né😀'.repeat(5_000);
  assertEquals(jsonLength(long.slice(3, 40_003)), JSON.stringify(long.slice(3, 40_003)).length);
  assertEquals(jsonLength('x"'.repeat(20_000)), 60_002);
});

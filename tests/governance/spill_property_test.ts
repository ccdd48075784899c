// Spilling, as a property: for random JSON, text, mixed and media results of any size and
// any budget, the model's text is within budget, holds no cut JSON value and no cut run of
// non-space characters (a base64 run), never the data of a media block, and the pages of
// read_result give back the uncut text (what shapeResult would show without a budget)
// exactly.
import fc from "fast-check";
import { shapeResult } from "../../governance/shape.ts";
import { project } from "../../governance/fit.ts";
import { readSpilled, spillResult } from "../../client/spill.ts";
import { createSpillStore } from "../../cache/spill_store.ts";
import { memoryStore } from "../../cache/memory.ts";
import type { ContentBlock, ToolResult } from "../../client/shapes.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const base64 = fc.array(fc.constantFrom(...BASE64), { minLength: 4, maxLength: 3000 })
  .map((chars) => chars.join("") + "==");
const word = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => s.replace(/\s/g, "")),
  fc.stringMatching(/^[a-z]{1,9}$/),
  base64,
  fc.constantFrom("😀", "é", "日本", "\u200B", "{", "[1,"),
);
const line = fc.array(word, { maxLength: 30 }).map((words) => words.join(" "));
const text = fc.tuple(fc.array(line, { maxLength: 60 }), fc.integer({ min: 1, max: 40 }))
  .map(([lines, times]) => Array.from({ length: times }, () => lines.join("\n")).join("\n"));
const json = fc.tuple(
  fc.jsonValue({ maxDepth: 4 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 400 }),
  fc.constantFrom(0, 0, 3_000),
).map(([value, rows, padding]) => ({
  value,
  rows: [...rows, ...Array.from({ length: padding }, (_, i) => ({ i, name: `row ${i}` }))],
}));

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  text.map((t) => ({ type: "text", text: t })),
  json.map((j) => ({ type: "text", text: JSON.stringify(j, null, j.rows.length % 3) })),
  base64.map((data) => ({ type: "image", mimeType: "image/png", data })),
  base64.map((data) => ({ type: "audio", mimeType: "audio/wav", data })),
  base64.map((blob) => ({ type: "resource", resource: { uri: "file:///b", blob } })),
  fc.constant({ type: "resource_link", uri: "file:///x", name: "x" }),
);

const result: fc.Arbitrary<ToolResult> = fc.oneof(
  // JSON: structured content, with or without the text block repeating it.
  fc.tuple(json, fc.boolean()).map(([j, repeat]) => ({
    content: repeat ? [{ type: "text", text: JSON.stringify(j) }] : [],
    structuredContent: j,
    isError: false,
  })),
  // Text only, some of it large.
  fc.tuple(text, fc.constantFrom(1, 1, 1, 20, 200)).map(([t, times]) => ({
    content: [{ type: "text", text: Array.from({ length: times }, () => t).join("\n") }],
    isError: false,
  })),
  // Mixed content, media among it, sometimes a failure.
  fc.tuple(fc.array(block, { maxLength: 6 }), fc.boolean(), fc.option(json)).map((
    [content, isError, structured],
  ) => ({
    content,
    isError,
    ...(structured === null ? {} : { structuredContent: structured }),
  })),
);

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);

test("spill property: within budget, nothing cut blind, read_result gives the text back", async () => {
  const store = createSpillStore(memoryStore({ maxEntries: Infinity, maxBytes: Infinity }), {
    ttlMs: 60_000,
    maxBytes: 64 * 1024 * 1024,
  });
  let spills = 0;
  let biggest = 0;
  await fc.assert(
    fc.asyncProperty(
      result,
      fc.integer({ min: 200, max: 6_000 }),
      fc.integer({ min: 1, max: 9_000 }),
      async (raw, budget, pageLength) => {
        const uncut = shapeResult(raw, { maxChars: Number.MAX_SAFE_INTEGER }).text;
        const shaped = await spillResult(raw, budget, store, "owner", 60_000);
        assert(shaped.text.length <= budget, `${shaped.text.length} > ${budget}`);
        assertEquals(shaped.isError, raw.isError);
        if (uncut.length <= budget) {
          assertEquals(shaped.text, uncut);
          assertEquals(shaped.spilled, undefined);
          return;
        }
        const spilled = shaped.spilled!;
        assert(spilled !== undefined, "over budget: spilled");
        spills++;
        biggest = Math.max(biggest, uncut.length);
        assertEquals(spilled.chars, uncut.length);
        assertEquals(shaped._meta?.["conduit/spill"], spilled);
        const headEnd = spilled.restOffset;
        const tailStart = spilled.restOffset + spilled.restChars;
        // The model's text: the uncut head, our own lines, the uncut tail.
        const head = uncut.slice(0, headEnd).replace(/\n$/, "");
        const tail = uncut.slice(tailStart);
        assert(shaped.text.startsWith(head), "the head is the uncut text's");
        assert(shaped.text.endsWith(tail), "the tail is the uncut text's");
        const middle = shaped.text.slice(head.length, shaped.text.length - tail.length);
        for (const own of middle.split("\n").filter((l) => l !== "")) {
          assert(own.startsWith("[… ") || own.startsWith("[JSON "), `own line: ${own}`);
          if (own.startsWith("[… ")) assert(own.includes(spilled.handle), "names the handle");
        }
        // Cuts fall between whole JSON values and between runs of non-space characters.
        let at = 0;
        for (const segment of project(raw).segments) {
          const end = at + segment.text.length;
          if (segment.kind === "json") {
            for (const cut of [headEnd, tailStart]) {
              assert(!(cut > at && cut < end), `a cut at ${cut} inside JSON ${at}..${end}`);
            }
          }
          at = end + 1;
        }
        for (const cut of [headEnd, tailStart]) {
          assert(isSpace(uncut[cut - 1]) || isSpace(uncut[cut]), `a run cut at ${cut}`);
        }
        // No media data ever reaches the model.
        for (const b of raw.content) {
          const data = (b.data ?? (b.resource as { blob?: string } | undefined)?.blob) as
            | string
            | undefined;
          if (typeof data === "string" && data.length >= 24) {
            assert(!shaped.text.includes(data.slice(0, 24)), "no base64 of a media block");
          }
        }
        // Paging from 0 to the end gives the uncut text back exactly.
        const candidates = [{ store, owner: "owner" }];
        let offset: number | null = 0;
        let back = "";
        while (offset !== null) {
          const page = await readSpilled(candidates, spilled.handle, {
            offset,
            length: pageLength,
          });
          assertEquals(page.total, uncut.length);
          assertEquals(page.offset, offset);
          back += page.text;
          offset = page.nextOffset;
        }
        assert(back === uncut, "the pages give the uncut text back");
      },
    ),
    { numRuns: 150 },
  );
  // The runs reach past the budget often, and far past it.
  assert(spills >= 30 && biggest >= 100_000, `${spills} spills, the biggest ${biggest}`);
});

test("spill property: a JSON path gives back exactly the subtree of the structured content", async () => {
  const store = createSpillStore(memoryStore({ maxEntries: Infinity, maxBytes: Infinity }), {
    ttlMs: 60_000,
    maxBytes: 64 * 1024 * 1024,
  });
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 50, maxLength: 300 }),
      fc.nat(60),
      fc.nat(60),
      async (rows, a, b) => {
        const structuredContent = { rows, "odd key": a };
        const shaped = await spillResult(
          { content: [], structuredContent, isError: false },
          200,
          store,
          "owner",
          60_000,
        );
        if (shaped.spilled === undefined) return;
        const candidates = [{ store, owner: "owner" }];
        const [from, to] = a <= b ? [a, b] : [b, a];
        const page = await readSpilled(candidates, shaped.spilled.handle, {
          jsonPath: `$.rows[${from}:${to}]`,
          length: 1_000_000,
        });
        assertEquals(JSON.parse(page.text), JSON.parse(JSON.stringify(rows.slice(from, to))));
        const odd = await readSpilled(candidates, shaped.spilled.handle, {
          jsonPath: '$["odd key"]',
        });
        assertEquals(odd.text, String(a));
      },
    ),
    { numRuns: 40 },
  );
});

// Spilling, as a property: for random JSON, text, mixed and media results of any size and
// any budget, the model's text is within budget, holds no cut JSON value and no cut run of
// non-space characters (a base64 run), never the data of a media block, and the pages of
// read_result give back the uncut text (what shapeResult would show without a budget)
// exactly, and each media block's base64 data. Spilling off, shaping obeys the same cuts.
import fc from "fast-check";
import { shapeResult } from "../../governance/shape.ts";
import { project } from "../../governance/shape.ts";
import { spillResult } from "../../client/spill.ts";
import { readSpilled } from "../../client/read_result.ts";
import { createSpillStore } from "../../cache/spill_store.ts";
import { memoryStore } from "../../cache/memory.ts";
import type { ContentBlock, ReadResultPage, ToolResult } from "../../client/shapes.ts";
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

/** The line a kept media block's reference ends with (what spilling adds to it). */
const hint = (handle: string, i: number) =>
  `; its base64: read_result {"handle":"${handle}","media":${i}}`;
const noHints = (text: string) =>
  text.replace(/; its base64: read_result \{"handle":"rs_[\w-]+","media":\d+\}\]/g, "]");

/**
 * The model's text against the uncut text: the uncut head, only our own lines, the uncut
 * tail; no cut inside a JSON value or a run of non-space characters; no media data.
 */
function checkFitted(
  raw: ToolResult,
  text: string,
  uncut: string,
  headEnd: number,
  tailStart: number,
  projection: ReturnType<typeof project>,
  ownLine: (line: string) => boolean,
): void {
  const head = uncut.slice(0, headEnd).replace(/\n$/, "");
  const tail = uncut.slice(tailStart);
  assert(text.startsWith(head), "the head is the uncut text's");
  assert(text.endsWith(tail), "the tail is the uncut text's");
  const middle = text.slice(head.length, text.length - tail.length);
  for (const own of middle.split("\n").filter((l) => l !== "")) {
    assert(own.startsWith("[JSON ") || ownLine(own), `own line: ${own}`);
  }
  // Cuts fall between whole JSON values and between runs of non-space characters.
  let at = 0;
  for (const segment of projection.segments) {
    const end = at + segment.length;
    if (segment.kind !== "text") {
      for (const cut of [headEnd, tailStart]) {
        assert(!(cut > at && cut < end), `a cut at ${cut} inside ${segment.kind} ${at}..${end}`);
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
      assert(!text.includes(data.slice(0, 24)), "no base64 of a media block");
    }
  }
}

/** The most pages one read-back takes: a page length is raised to stay within it. */
const MAX_PAGES = 400;

/**
 * Every page of `read`, from 0 to the end, joined. Pages are `pageLength` long, or longer
 * for a long text (at most {@linkcode MAX_PAGES} of them): one-character pages over a text of
 * megabytes made a run take half a minute.
 */
async function readAll(
  read: (offset: number, length: number) => Promise<ReadResultPage>,
  total: number,
  pageLength: number,
): Promise<string> {
  const length = Math.max(pageLength, Math.ceil(total / MAX_PAGES));
  let offset: number | null = 0;
  let back = "";
  while (offset !== null) {
    const page: ReadResultPage = await read(offset, length);
    assertEquals([page.total, page.offset], [total, offset]);
    back += page.text;
    offset = page.nextOffset;
  }
  return back;
}

test("spill property: within budget, nothing cut blind, read_result gives the text back", async () => {
  const store = createSpillStore(memoryStore({ maxEntries: Infinity, maxBytes: Infinity }), {
    ttlMs: 60_000,
    maxBytes: 64 * 1024 * 1024,
  });
  let spills = 0;
  let biggest = 0;
  let mediaRead = 0;
  await fc.assert(
    fc.asyncProperty(
      result,
      fc.integer({ min: 200, max: 6_000 }),
      fc.integer({ min: 1, max: 9_000 }),
      async (raw, budget, pageLength) => {
        const uncut = shapeResult(raw, { maxChars: Number.MAX_SAFE_INTEGER }).text;
        const media = project(raw).media;
        const shaped = await spillResult(raw, budget, store, "owner", 60_000);
        assert(shaped.text.length <= budget, `${shaped.text.length} > ${budget}`);
        assertEquals(shaped.isError, raw.isError);
        if (uncut.length <= budget && media.length === 0) {
          assertEquals(shaped.text, uncut);
          assertEquals(shaped.spilled, undefined);
          return;
        }
        const spilled = shaped.spilled!;
        assert(spilled !== undefined, "over budget or holding media: spilled");
        assertEquals(spilled.media, media.length === 0 ? undefined : media.length);
        spills++;
        biggest = Math.max(biggest, uncut.length);
        assertEquals(shaped._meta?.["conduit/spill"], spilled);
        // Paging from 0 to the end gives the uncut text back exactly (its media lines
        // naming how to read their data).
        const candidates = [{ store, owner: "owner" }];
        const whole = await readAll(
          (offset, length) => readSpilled(candidates, spilled.handle, { offset, length }),
          spilled.chars,
          pageLength,
        );
        assert(noHints(whole) === uncut, "the pages give the uncut text back");
        const projection = project(raw, { mediaHint: (i) => hint(spilled.handle, i) });
        checkFitted(
          raw,
          shaped.text,
          whole,
          spilled.restOffset,
          spilled.restOffset + spilled.restChars,
          projection,
          (own) => own.startsWith("[… ") && own.includes(spilled.handle),
        );
        // Each media block's data, paged back whole.
        for (const [i, data] of media.entries()) {
          const back = await readAll(
            (offset, length) =>
              readSpilled(candidates, spilled.handle, { media: i, offset, length }),
            data.length,
            pageLength,
          );
          assert(back === data, `media ${i} given back`);
          mediaRead++;
        }
      },
    ),
    { numRuns: 150 },
  );
  // The runs reach past the budget often, and far past it.
  assert(spills >= 30 && biggest >= 100_000, `${spills} spills, the biggest ${biggest}`);
  assert(mediaRead >= 10, `${mediaRead} media blocks read back`);
});

test("shape property: spilling off, the same valid cuts, and the line says what was dropped", () => {
  fc.assert(
    fc.property(result, fc.integer({ min: 200, max: 6_000 }), (raw, budget) => {
      const uncut = shapeResult(raw, { maxChars: Number.MAX_SAFE_INTEGER }).text;
      const shaped = shapeResult(raw, { maxChars: budget });
      assert(shaped.text.length <= budget, `${shaped.text.length} > ${budget}`);
      if (uncut.length <= budget) {
        assertEquals([shaped.text, shaped.cutChars], [uncut, 0]);
        return;
      }
      const line = shaped.text.match(
        /\[… (\d+) characters \(offset (\d+) to (\d+) of (\d+)\) cut: not kept …\]/,
      );
      assert(line !== null, `the line naming the cut: ${shaped.text.slice(0, 300)}`);
      const [cut, headEnd, tailStart, total] = line.slice(1).map(Number);
      assertEquals([cut, total], [shaped.cutChars, uncut.length]);
      assertEquals(tailStart - headEnd, cut);
      checkFitted(
        raw,
        shaped.text,
        uncut,
        headEnd,
        tailStart,
        project(raw),
        (own) => own === line[0],
      );
    }),
    { numRuns: 150 },
  );
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

test(
  "spill: structured content nested deeper than an engine's JSON.stringify goes is kept whole and read back exactly",
  async () => {
    // 100 000 levels: past JSON.stringify's stack on Bun (there the value is walked in
    // pieces), within it on Deno; either way the same text is kept and read back.
    const depth = 100_000;
    let value: unknown = { leaf: "é\u200B" };
    for (let i = 0; i < depth; i++) value = { a: [value] };
    const expected = '{"a":['.repeat(depth) + '{"leaf":"é"}' + "]}".repeat(depth);
    const store = createSpillStore(memoryStore({ maxEntries: Infinity, maxBytes: Infinity }), {
      ttlMs: 60_000,
      maxBytes: 64 * 1024 * 1024,
    });
    const raw: ToolResult = { content: [], structuredContent: value, isError: false };
    const shaped = await spillResult(raw, 2_000, store, "owner", 60_000);
    assert(shaped.text.length <= 2_000, `${shaped.text.length}`);
    assert(shaped.text.startsWith("[JSON object"), shaped.text.slice(0, 80));
    const spilled = shaped.spilled!;
    // The model's text is the sanitised JSON (the zero-width space dropped).
    assertEquals(spilled.chars, expected.length);
    const candidates = [{ store, owner: "owner" }];
    const whole = await readAll(
      (offset, length) => readSpilled(candidates, spilled.handle, { offset, length }),
      spilled.chars,
      100_000,
    );
    assert(whole === expected, "the pages give the JSON text back");
    // The raw JSON (the zero-width space in it) is kept apart for jsonPath.
    const inner = depth - 3;
    const subtree = "[" + '{"a":['.repeat(inner) + '{"leaf":"é\u200B"}' + "]}".repeat(inner) +
      "]";
    const part = await readSpilled(candidates, spilled.handle, {
      jsonPath: "$.a[0].a[0].a",
      length: 1_000_000,
    });
    assertEquals([part.total, part.nextOffset], [subtree.length, null]);
    assert(part.text === subtree, "the subtree at the path");
  },
  { timeout: 120_000 },
);

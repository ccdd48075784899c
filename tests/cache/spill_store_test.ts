// The result store's chunks: pieces of any size (shorter than a chunk, longer than one,
// tiny ones between) are written as they come, each piece or a slice of it a chunk, and any
// window read back is exactly that window of the joined text, on the memory store and on a
// real folder. A text given in one piece is kept every CHUNK_CHARS characters, as before,
// and needs no table of chunk ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { memoryStore } from "../../cache/memory.ts";
import { CHUNK_CHARS, createSpillStore } from "../../cache/spill_store.ts";
import type { CacheStore } from "../../cache/store.ts";
import { fileStore } from "../../mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const piece = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer({ min: 1, max: 3 * CHUNK_CHARS }).map((n) =>
    "ab😀".repeat(Math.ceil(n / 4)).slice(0, n)
  ),
);

async function roundTrip(store: CacheStore): Promise<void> {
  const spill = createSpillStore(store, { ttlMs: 60_000, maxBytes: 1 << 26 });
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(piece, { maxLength: 8 }),
      fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 5 }),
      async (pieces, windows) => {
        const text = pieces.join("");
        const handle = `rs_${String(n++).padStart(22, "0")}`;
        const json = ["[", ...pieces.map((p) => JSON.stringify(p)).join(","), "]"];
        const size = text.length + json.join("").length;
        assert(await spill.put("me", handle, { text: pieces, json, size }));
        const meta = await spill.meta("me", handle);
        assertEquals(meta.total, text.length);
        assertEquals(await spill.slice("me", handle, "t", 0, text.length), text);
        assertEquals(await spill.slice("me", handle, "j", 0, meta.jsonTotal), json.join(""));
        for (const [a, b] of windows) {
          const from = a % (text.length + 1);
          const to = from + b % (text.length - from + 1);
          assertEquals(await spill.slice("me", handle, "t", from, to), text.slice(from, to));
        }
      },
    ),
    { numRuns: 40 },
  );
}

test("spill store: pieces of any size read back exactly, in any window (memory)", () =>
  roundTrip(memoryStore({ maxEntries: Infinity, maxBytes: 1 << 28 })));

test("spill store: pieces of any size read back exactly, in any window (a folder)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "spill-store-"));
  try {
    await roundTrip(fileStore(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("spill store: a piece is a chunk as it came; one long text is cut every CHUNK_CHARS", async () => {
  const store = memoryStore({ maxEntries: Infinity, maxBytes: 1 << 28 });
  const spill = createSpillStore(store, { ttlMs: 60_000, maxBytes: 1 << 26 });
  const pieces = ["{", "x".repeat(20_000), "y".repeat(25_000), "z".repeat(70_000), "}"];
  const h1 = "rs_" + "a".repeat(22);
  assert(await spill.put("me", h1, { text: pieces, size: 115_002 }));
  const chunks = [];
  for (let i = 0;; i++) {
    const chunk = await store.get(["spill", "v1", "me", h1, "t", String(i)]);
    if (chunk === undefined) break;
    chunks.push((chunk as string).length);
  }
  // "{" joins the head of the next piece; the others are chunks, or cut into chunks, alone.
  assertEquals(chunks, [20_001, 25_000, CHUNK_CHARS, CHUNK_CHARS, 10_000, 1]);
  assertEquals((await spill.meta("me", h1)).ends?.t, [
    20_001,
    45_001,
    75_001,
    105_001,
    115_001,
    115_002,
  ]);
  const h3 = "rs_" + "c".repeat(22);
  const tail = ["w".repeat(10_000), "v".repeat(CHUNK_CHARS + 5), "u".repeat(10_000)];
  assert(await spill.put("me", h3, { text: tail, size: CHUNK_CHARS + 20_005 }));
  // A long piece's short tail joins the next piece: no chunk but the last is short.
  assertEquals((await spill.meta("me", h3)).ends?.t, [
    10_000,
    CHUNK_CHARS + 10_000,
    CHUNK_CHARS + 20_005,
  ]);
  assertEquals(
    await spill.slice("me", h3, "t", CHUNK_CHARS + 9_999, CHUNK_CHARS + 10_007),
    "vvvvvvuu",
  );
  const h2 = "rs_" + "b".repeat(22);
  const one = "w".repeat(2 * CHUNK_CHARS + 5);
  assert(await spill.put("me", h2, { text: [one], size: one.length }));
  assertEquals((await spill.meta("me", h2)).ends, undefined);
  assertEquals(await spill.slice("me", h2, "t", CHUNK_CHARS - 2, CHUNK_CHARS + 3), "wwwww");
});

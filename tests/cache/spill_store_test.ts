// The result store's chunks: pieces of any size (shorter than a chunk, longer than one,
// tiny ones between) are written as they come, each piece or a slice of it a chunk, and any
// window read back is exactly that window of the joined text, on the memory store and on a
// real folder. A text given in one piece is kept every CHUNK_CHARS characters, as before,
// and needs no table of chunk lengths; the table of the most chunks a result of the default
// bound can have fits in one Deno KV value.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { denoKvStore } from "../../cache/deno_kv.ts";
import { memoryStore } from "../../cache/memory.ts";
import {
  CHUNK_CHARS,
  createSpillStore,
  DEFAULT_SPILL_BYTES,
  type SpillMeta,
} from "../../cache/spill_store.ts";
import type { CacheStore } from "../../cache/store.ts";
import { fileStore } from "../../mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { withKv } from "./_kv.ts";

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
  assertEquals((await spill.meta("me", h1)).chunks?.t, chunks);
  const h3 = "rs_" + "c".repeat(22);
  const tail = ["w".repeat(10_000), "v".repeat(CHUNK_CHARS + 5), "u".repeat(10_000)];
  assert(await spill.put("me", h3, { text: tail, size: CHUNK_CHARS + 20_005 }));
  // A long piece's short tail joins the next piece: no chunk but the last is short.
  assertEquals((await spill.meta("me", h3)).chunks?.t, [10_000, CHUNK_CHARS, 10_005]);
  assertEquals(
    await spill.slice("me", h3, "t", CHUNK_CHARS + 9_999, CHUNK_CHARS + 10_007),
    "vvvvvvuu",
  );
  const h2 = "rs_" + "b".repeat(22);
  const one = "w".repeat(2 * CHUNK_CHARS + 5);
  assert(await spill.put("me", h2, { text: [one], size: one.length }));
  assertEquals((await spill.meta("me", h2)).chunks, undefined);
  assertEquals(await spill.slice("me", h2, "t", CHUNK_CHARS - 2, CHUNK_CHARS + 3), "wwwww");
});

test("spill store: pieces read back exactly on Deno KV, and the longest chunk table fits", () =>
  withKv(async (kv) => {
    const store = denoKvStore(kv);
    await roundTrip(store);
    // Every chunk but the last of each part holds 8 KiB or more, and the parts together hold
    // at most the bound: the most chunks a default-sized result has.
    const most = Math.ceil(DEFAULT_SPILL_BYTES / (8 * 1024)) + 2;
    const half = Math.floor(most / 2);
    const meta: SpillMeta = {
      owner: "me",
      total: DEFAULT_SPILL_BYTES / 2,
      jsonTotal: DEFAULT_SPILL_BYTES / 2,
      chunks: { t: Array(half).fill(8 * 1024), j: Array(most - half).fill(8 * 1024) },
      expiresAt: Date.now() + 60_000,
    };
    await store.set(["spill", "v1", "me", "rs_" + "d".repeat(22), "m"], meta, 60_000);
    const back = await store.get(["spill", "v1", "me", "rs_" + "d".repeat(22), "m"]);
    assertEquals((back as SpillMeta).chunks?.j?.length, most - half);
  }));

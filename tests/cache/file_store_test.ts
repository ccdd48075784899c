// The file store: the store contract over a real folder, keys whose parts hold the
// separators or are long, the byte bound (expired files swept first, then the write skipped),
// a second store on the same folder seeing the first one's entries, files made 0600 in a
// 0700 folder, and a spilled result kept in it and read back whole.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileStoreOver } from "../../cache/file_store.ts";
import { createSpillStore } from "../../cache/spill_store.ts";
import { localFolder } from "../../runtime/files.ts";
import { fileStore } from "../../mod.ts";
import { spillResult } from "../../client/spill.ts";
import process from "node:process";
import { assert, assertEquals, test } from "../_harness.ts";

function folder(): { dir: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), "file-store-"));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

test("fileStore: the contract over a real folder, expiry checked on read", async () => {
  using tmp = folder();
  let now = 1_000_000;
  const store = fileStoreOver(localFolder(join(tmp.dir, "store")), { now: () => now });
  await store.set(["a", "1"], { tools: ["x"] }, 1_000);
  await store.set(["a", "2"], [1, 2], 60_000);
  await store.set(["a.2"], "not under a", 60_000);
  await store.set(["b"], "kept", Infinity);
  assertEquals(await store.get(["a", "1"]), { tools: ["x"] });
  now += 1_000;
  assertEquals(await store.get(["a", "1"]), undefined, "expired on read");
  await store.deletePrefix(["a"]);
  assertEquals(await store.get(["a", "2"]), undefined);
  assertEquals(await store.get(["a.2"]), "not under a", "a part holding the separator");
  assertEquals(await store.get(["b"]), "kept");
  // Parts with separators, slashes and dots never spell another key or leave the folder.
  await store.set(["x:y", "../z", ".."], 1, 60_000);
  await store.set(["x", "y/../z", ""], 2, 60_000);
  assertEquals(await store.get(["x:y", "../z", ".."]), 1);
  assertEquals(await store.get(["x", "y/../z", ""]), 2);
  // A long key is named by its digest and still deleted by its prefix.
  const long = ["p", "q".repeat(400)];
  await store.set(long, "long", 60_000);
  assertEquals(await store.get(long), "long");
  await store.deletePrefix(["p"]);
  assertEquals(await store.get(long), undefined);
  await store.delete(["b"]);
  assertEquals(await store.get(["b"]), undefined);
  for (const name of readdirSync(join(tmp.dir, "store"))) {
    assert(!name.includes("/") && !name.startsWith("."), name);
  }
  if (process.platform !== "win32") {
    assertEquals(statSync(join(tmp.dir, "store")).mode & 0o777, 0o700);
    const [file] = readdirSync(join(tmp.dir, "store"));
    assertEquals(statSync(join(tmp.dir, "store", file)).mode & 0o777, 0o600);
  }
});

test("fileStore: the byte bound sweeps expired files, then skips a write with no room", async () => {
  using tmp = folder();
  let now = 0;
  const store = fileStoreOver(localFolder(tmp.dir), { maxBytes: 1_000, now: () => now });
  await store.set(["old"], "o".repeat(400), 10);
  await store.set(["keep"], "k".repeat(400), 60_000);
  now = 20;
  await store.set(["new"], "n".repeat(400), 60_000);
  assertEquals((await store.get(["new"]) as string).length, 400, "room made from the expired");
  assertEquals(readdirSync(tmp.dir).length, 2);
  await store.set(["more"], "m".repeat(400), 60_000);
  assertEquals(await store.get(["more"]), undefined, "no room: not kept");
  assertEquals((await store.get(["keep"]) as string).length, 400, "nothing pushed out");
});

test("fileStore: two stores on one folder share it (as two processes would)", async () => {
  using tmp = folder();
  const one = fileStore(tmp.dir);
  const two = fileStore(tmp.dir);
  await one.set(["shared", "k"], { n: 1 }, 60_000);
  assertEquals(await two.get(["shared", "k"]), { n: 1 });
  await two.deletePrefix(["shared"]);
  assertEquals(await one.get(["shared", "k"]), undefined);
});

test("fileStore: a spilled result is kept in chunk files and read back whole", async () => {
  using tmp = folder();
  const store = createSpillStore(fileStore(tmp.dir), { ttlMs: 60_000, maxBytes: 1 << 26 });
  const text = Array.from({ length: 20_000 }, (_, i) => `row ${i}`).join("\n");
  const shaped = await spillResult(
    { content: [{ type: "text", text }], isError: false },
    500,
    store,
    "me",
    60_000,
  );
  assert(shaped.spilled !== undefined && shaped.text.length <= 500);
  assert(readdirSync(tmp.dir).length > 3, "one file per chunk, and the entry");
  const meta = await store.meta("me", shaped.spilled.handle);
  const back = await store.slice("me", shaped.spilled.handle, "t", 0, meta.total);
  assert(back === text, "read back whole");
});

// The file store: the store contract over a real folder, keys whose parts hold the
// separators or are long, the byte bound (expired files swept first, then the write skipped),
// a second store on the same folder seeing the first one's entries, files made 0600 in a
// 0700 folder, texts kept unescaped after a line naming them (and exactly, whatever they
// hold), files of the earlier all-JSON layout read, broken files read as absent, a failed
// write leaving no temporary file, and a spilled result kept in it and read back whole.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileStoreOver } from "../../cache/file_store.ts";
import { createSpillStore } from "../../cache/spill_store.ts";
import { localFolder } from "../../runtime/files.ts";
import { fileStore } from "../../mod.ts";
import { spillResult } from "../../client/spill.ts";
import fc from "fast-check";
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

test("fileStore: a text is kept as it is after a line naming it, and reads back exactly", async () => {
  using tmp = folder();
  const store = fileStoreOver(localFolder(tmp.dir), { now: () => 0 });
  const text = 'a "quoted" line\nand é, 日本, 😀 and \\ back';
  await store.set(["t", "1"], text, 60_000);
  const [name] = readdirSync(tmp.dir);
  const raw = readFileSync(join(tmp.dir, name), "utf8");
  assertEquals(raw, `{"k":["t","1"],"e":60000,"t":1}\n${text}`, "the text unescaped");
  assertEquals(
    statSync(join(tmp.dir, name)).size,
    new TextEncoder().encode(raw).length,
    "its UTF-8 bytes",
  );
  assertEquals(await store.get(["t", "1"]), text);
  // A chunk cut inside a surrogate pair is not UTF-8: it is kept as JSON, exactly.
  for (const odd of ["x\ud83d", "\ude00y", "\ud800\ud800"]) {
    await store.set(["t", "odd"], odd, 60_000);
    assertEquals(await store.get(["t", "odd"]), odd);
  }
  // An empty text, and a text over a store's earlier value of another layout.
  await store.set(["t", "1"], "", 60_000);
  assertEquals(await store.get(["t", "1"]), "");
  await store.set(["t", "1"], { n: 1 }, 60_000);
  assertEquals(await store.get(["t", "1"]), { n: 1 });
});

test("fileStore: files of the all-JSON layout read as before, broken ones as absent", async () => {
  using tmp = folder();
  const store = fileStoreOver(localFolder(tmp.dir), { now: () => 0 });
  writeFileSync(join(tmp.dir, "k.old.json"), JSON.stringify({ k: ["old"], v: "a\nb", e: 10 }));
  assertEquals(await store.get(["old"]), "a\nb");
  const broken = [
    '{"k":["b"],"e":10}\nno mark',
    '{"k":["b"],"e":10,"t":1\ntext',
    "[1]\ntext",
    '{"k":["b"],"e":0,"t":1}\nexpired',
  ];
  for (const text of broken) {
    writeFileSync(join(tmp.dir, "k.b.json"), text);
    assertEquals(await store.get(["b"]), undefined, text);
  }
  writeFileSync(join(tmp.dir, "k.b.json"), '{"k":["b"],"e":null,"t":1}\nkept\n');
  assertEquals(await store.get(["b"]), "kept\n", "a line break in the text is its own");
  // A folder that cannot write in parts is given the joined text.
  const files = new Map<string, string>();
  const plain = fileStoreOver({
    read: (name) => Promise.resolve(files.get(name)),
    write: (name, text) => Promise.resolve(void files.set(name, text)),
    remove: (name) => Promise.resolve(void files.delete(name)),
    list: () => Promise.resolve([...files].map(([name, text]) => ({ name, size: text.length }))),
  }, { now: () => 0 });
  await plain.set(["p"], "plain", 60_000);
  assertEquals([...files.values()], ['{"k":["p"],"e":60000,"t":1}\nplain']);
  assertEquals(await plain.get(["p"]), "plain");
});

test("fileStore: any text reads back exactly, and a spilled one cut inside an emoji too", async () => {
  using tmp = folder();
  const store = fileStoreOver(localFolder(tmp.dir), { now: () => 0 });
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), async (text) => {
      await store.set(["any"], text, 60_000);
      assertEquals(await store.get(["any"]), text);
    }),
    { numRuns: 60 },
  );
  const spill = createSpillStore(store, { ttlMs: 60_000, maxBytes: 1 << 26 });
  // The pair 😀 sits across the first chunk's end (30 000 characters).
  const text = "é".repeat(29_999) + "😀" + "日本".repeat(20_000) + "😀";
  await spill.put("me", "h", { text: [text], size: text.length });
  assert(await spill.slice("me", "h", "t", 0, text.length) === text, "read back whole");
  assertEquals(await spill.slice("me", "h", "t", 29_999, 30_001), "😀");
});

test("fileStore: a write that cannot be put in place fails and leaves no temporary file", async () => {
  using tmp = folder();
  const store = fileStoreOver(localFolder(tmp.dir), { now: () => 0 });
  // A folder (not empty) where the file would go: the rename into place fails.
  mkdirSync(join(tmp.dir, "k.x.json"));
  writeFileSync(join(tmp.dir, "k.x.json", "inside"), "");
  for (const value of ["text", { n: 1 }]) {
    let failed = false;
    await store.set(["x"], value, 60_000).catch(() => failed = true);
    assert(failed, "the write failed");
    assertEquals(readdirSync(tmp.dir), ["k.x.json"], "no temporary file left");
  }
});

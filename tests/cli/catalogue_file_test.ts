// The CLI's catalogue file: values round-trip exactly through a file written in ASCII (mode
// 0600); expiry, getMany and deletes kept across runs; a file written in UTF-8 still reads,
// and a broken one reads as empty.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalogueFile } from "../../cli/_catalogue_file.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const inTemp = async (fn: (path: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-catalogue-file-"));
  try {
    await fn(join(dir, "sub", "catalogues.json"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

test("catalogue file: values round-trip exactly through an ASCII file of mode 0600", async () => {
  await inTemp(async (path) => {
    const value = {
      tools: [{ name: "météo", description: '天气 ☀️ \u2028 "q" \\ \n', odd: "\ud800x" }],
      n: 1.5,
      none: null,
    };
    await catalogueFile(path).set(["hub-catalogue", "météo"], value, 60_000);
    const text = readFileSync(path, "latin1");
    assert(/^[\x20-\x7e\t\n]*$/.test(text), "the file is printable ASCII lines");
    assertEquals(statSync(path).mode & 0o777, 0o600);
    const again = catalogueFile(path);
    assertEquals(await again.get(["hub-catalogue", "météo"]), value);
    // What it read its values from bounds them (the hub then does not measure them again).
    assert(again.maxValueChars! >= JSON.stringify(value).length, String(again.maxValueChars));
    assertEquals(await again.get(["hub-catalogue", "other"]), undefined);
  });
});

test("catalogue file: expiry, getMany, and deletes kept across runs", async () => {
  await inTemp(async (path) => {
    const store = catalogueFile(path);
    await store.set(["a"], 1, 60_000);
    await store.set(["b", "x"], { b: 2 }, Infinity);
    await store.set(["b", "y"], 3, 60_000);
    await store.set(["gone"], 4, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const next = catalogueFile(path);
    assertEquals(await next.getMany!([["a"], ["b", "x"], ["gone"], ["none"]]), [
      1,
      { b: 2 },
      undefined,
      undefined,
    ]);
    await next.delete(["a"]);
    await next.deletePrefix(["b"]);
    const last = catalogueFile(path);
    assertEquals(await last.getMany!([["a"], ["b", "x"], ["b", "y"]]), [
      undefined,
      undefined,
      undefined,
    ]);
  });
});

test("catalogue file: a file written in UTF-8 still reads; a broken file reads as empty", async () => {
  await inTemp(async (path) => {
    await catalogueFile(path).set(["seed"], 0, 60_000);
    writeFileSync(
      path,
      JSON.stringify({
        [JSON.stringify(["x"])]: { v: { é: [1, "ü ☀️"] }, e: Date.now() + 60_000 },
        [JSON.stringify(["old"])]: { v: 1, e: Date.now() - 1 },
      }),
    );
    const store = catalogueFile(path);
    assertEquals(await store.get(["x"]), { é: [1, "ü ☀️"] });
    assertEquals(await store.get(["old"]), undefined);
    writeFileSync(path, "{ broken");
    assertEquals(await catalogueFile(path).get(["x"]), undefined);
  });
});

test("catalogue file: one line per entry, values parsed when read; a bad line reads as absent", async () => {
  await inTemp(async (path) => {
    const store = catalogueFile(path);
    await store.set(["a"], { n: 1 }, 60_000);
    await store.set(["b"], [2], Infinity);
    const lines = readFileSync(path, "latin1").split("\n");
    assertEquals(lines[0], "conduit-catalogues 2");
    assertEquals(lines.length, 3);
    assert(lines[2] === '["b"]\t\t[2]', lines[2]);
    // A line spoilt by hand: that entry reads as absent, the others as they were.
    writeFileSync(path, `${lines[0]}\n${lines[1].replace("{", "{{")}\n${lines[2]}\nno tabs here`);
    const next = catalogueFile(path);
    assertEquals(await next.get(["a"]), undefined);
    assertEquals(await next.get(["b"]), [2]);
    // A write keeps the entries it did not read as they were read.
    await next.set(["c"], "x", 60_000);
    const again = readFileSync(path, "latin1").split("\n");
    assertEquals(again.slice(1).map((line) => line.split("\t")[0]), ['["b"]', '["c"]']);
    assertEquals(await catalogueFile(path).getMany!([["b"], ["c"]]), [[2], "x"]);
  });
});

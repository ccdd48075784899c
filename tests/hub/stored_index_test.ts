// The search index beside the stored catalogue (hub/_find.ts, hub/_postings.ts, hub/_terms.ts):
// a hub that keeps catalogues stores the index it built under the digest of what it indexes,
// and a second hub over the same store and catalogue searches with that index instead of
// building one; a stored index that is not well-formed (or of an earlier format) is refused
// and built again, and whatever it holds, a search names only tools of the catalogue. The
// ASCII tokenizer cuts text as the Unicode one does.
import { memoryStore } from "../../cache/memory.ts";
import type { CacheStore } from "../../cache/store.ts";
import { hub } from "../../hub/hub.ts";
import { SEARCH_TOOLS } from "../../hub/lazy.ts";
import { checkStored, createCatalogueStore } from "../../hub/_stored.ts";
import { checkIndexData, postingText, readPosting, StoredIndexError } from "../../hub/_postings.ts";
import { MAX_TEXT, terms, toolTerms } from "../../hub/_terms.ts";
import { createToolIndex, type IndexData } from "../../hub/search.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, test } from "../_harness.ts";

const INDEX = "hub-search-index";

function recording() {
  const inner = memoryStore();
  const sets: [readonly string[], unknown][] = [];
  const gets: (readonly string[])[] = [];
  const store: CacheStore = {
    ...inner,
    get: (key) => (gets.push(key), inner.get(key)),
    set: (key, value, ttl) => (sets.push([key, value]), inner.set(key, value, ttl)),
  };
  return { store, sets, gets, inner };
}

const definition = {
  tools: [
    { name: "send_email", description: "Send an email to someone" },
    { name: "read_file", description: "Read a file from the disk" },
  ],
};

async function firstFound(store: CacheStore, query: string, warnings: string[] = []) {
  const server = mockServer(definition);
  await using servers = hub({
    servers: { m: { transport: server.transport(), start: "eager" } },
    lazy: true,
    cache: store,
    onWarning: (message) => warnings.push(message),
  });
  const found = await servers.callTool(SEARCH_TOOLS, { query });
  return (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
}

test("stored index: built once, stored by digest, and read back by a second hub", async () => {
  const { store, sets, gets, inner } = recording();
  assertEquals(await firstFound(store, "email"), ["m__send_email"]);
  const heads = sets.filter(([key]) => key[0] === INDEX && key.length === 2);
  assertEquals(heads.length, 1, "the built index was stored");
  const [key, head] = heads[0];
  assert(/^[0-9a-f]{32}$/.test(key[1]), key[1]);
  assertEquals(head, { v: 3, n: 2, parts: 1 });
  // Read back as the hub reads it: plain values in parts, checked.
  const catalogues = createCatalogueStore({
    store: inner,
    ttlMs: 60_000,
    transports: new Map(),
    warn: () => {},
  });
  const value = await catalogues.loadIndex(key[1]);
  assertEquals(typeof checkIndexData(value, 2), "object");

  // A second hub over the same store reads it (and does not store another): shown by a
  // well-formed index whose `email` posting leads to the other tool.
  const data = structuredClone(value) as IndexData;
  const email = data.terms.indexOf("email");
  assert(email >= 0);
  data.postings[email] = "1:1";
  await catalogues.saveIndex(key[1], data);
  sets.length = 0;
  gets.length = 0;
  assertEquals(await firstFound(store, "email"), ["m__read_file"]);
  assert(gets.some((k) => k[0] === INDEX && k[1] === key[1]), "the index was read by its digest");
  assertEquals(sets.filter(([k]) => k[0] === INDEX).length, 0, "nothing built, nothing stored");

  // Not well-formed: refused with a warning, built again, stored again (a posting is
  // checked when a search first decodes it).
  await catalogues.saveIndex(key[1], { ...data, postings: data.postings.map(() => "7:1") });
  sets.length = 0;
  const warnings: string[] = [];
  assertEquals(await firstFound(store, "email", warnings), ["m__send_email"]);
  assert(
    warnings.some((w) =>
      w.includes("stored search index is ignored") && w.includes("out of range")
    ),
    warnings.join("\n"),
  );
  assertEquals(sets.filter(([k]) => k[0] === INDEX && k.length === 2).length, 1, "stored again");
});

test("stored index: a big index is stored in parts a Deno KV value holds (a long posting in runs); a missing part is none", async () => {
  const { store, sets, inner } = recording();
  const catalogues = createCatalogueStore({
    store,
    ttlMs: 60_000,
    transports: new Map(),
    warn: () => {},
  });
  const tools = Array.from({ length: 2_000 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Word${i} and other${i} words${i}, lorem ipsum`,
    inputSchema: {},
  }));
  const data = createToolIndex(tools).data();
  await catalogues.saveIndex("d", data);
  const parts = sets.filter(([key]) => key.length === 3).map(([, part]) => JSON.stringify(part));
  assert(parts.length > 1, `${parts.length} part`);
  assert(parts.every((text) => text.length <= 31_000), parts.map((p) => p.length).join());
  // `lorem` is in every tool: its 2 000 postings go in runs over several parts.
  const lorem = data.terms.indexOf("lorem");
  assertEquals(readPosting(data.postings[lorem], 2_000).docs.length, 2_000);
  // Each part's terms are one space-joined run (and its postings one `|`-joined run); a
  // term is in a part once, and goes on at the head of the next.
  const counts = parts.map((text) => (JSON.parse(text) as { t: string }).t.split(" "))
    .map((terms) => terms.filter((term) => term === "lorem").length);
  assert(counts.every((n) => n <= 1), counts.join());
  assert(counts.reduce((a, b) => a + b) >= 2, `lorem in ${counts.join()}`);
  assertEquals(await catalogues.loadIndex("d"), data);
  await inner.delete(["hub-search-index", "d", "1"]);
  assertEquals(await catalogues.loadIndex("d"), undefined);
});

test("stored index: another catalogue has another digest", async () => {
  const { store, sets } = recording();
  await firstFound(store, "email");
  definition.tools.push({ name: "list_issues", description: "List the issues" });
  try {
    await firstFound(store, "email");
  } finally {
    definition.tools.pop();
  }
  const keys = sets.filter(([key]) => key[0] === INDEX && key.length === 2).map(([key]) => key[1]);
  assertEquals(keys.length, 2);
  assert(keys[0] !== keys[1], "two catalogues, two digests");
});

test("stored index: stored index data is checked like a server's answer", () => {
  const good = createToolIndex([
    { name: "a", description: "send mail", inputSchema: {} },
    { name: "b", description: "read files", inputSchema: {} },
  ]).data();
  assertEquals(checkIndexData(good, 2), good);
  const table: [string, unknown][] = [
    ["not an object", "x"],
    ["an unknown version", { ...good, v: 1 }],
    ["another number of tools", good],
    ["no valid names", { ...good, names: ["a"] }],
    ["no valid names", { ...good, names: [1, 2] }],
    ["uneven postings", { ...good, postings: good.postings.slice(1) }],
    ["terms out of order", { ...good, terms: [...good.terms].reverse() }],
    ["an empty posting", { ...good, postings: good.postings.map(() => "") }],
    ["an empty posting", { ...good, postings: good.postings.map(() => [0]) }],
    ["no postings", { ...good, postings: undefined }],
  ];
  for (const [why, value] of table) {
    assertEquals(checkIndexData(value, why === "another number of tools" ? 3 : 2), why, why);
  }
  // Each posting is checked when it is first decoded: a tool of the catalogue, ascending, a
  // positive finite weight.
  assertEquals(readPosting("0:1.5 1:2", 2), { docs: [0, 1], tfs: [1.5, 2] });
  assertEquals(postingText({ docs: [0, 1], tfs: [1.5, 2] }), "0:1.5 1:2");
  const postings: [string, unknown][] = [
    ["a posting out of range", "2:1"],
    ["a posting out of range", "-1:1"],
    ["a posting out of range", "1:1 0:1"],
    ["a posting out of range", "0:1 0:1"],
    ["a posting out of range", "0.5:1"],
    ["a posting out of range", ":1"],
    ["a posting out of range", "01"],
    ["a bad frequency", "0:Infinity"],
    ["a bad frequency", "0:0"],
    ["a bad frequency", "0:"],
    ["a bad frequency", "0:x"],
    ["an empty posting", ""],
    ["an empty posting", 7],
  ];
  for (const [why, text] of postings) {
    let reason: string | undefined;
    try {
      readPosting(text, 2);
    } catch (error) {
      assert(error instanceof StoredIndexError, String(error));
      reason = error.reason;
    }
    assertEquals(reason, why, JSON.stringify(text));
  }
});

test("stored index: a stored catalogue keeps no tokenised form; an earlier value's forms are left out", async () => {
  const tool = { name: "list_issues", description: "Lists issues", inputSchema: {} };
  const print = "0".repeat(64);
  const base = {
    v: 1 as const,
    takenAt: 0,
    ttlMs: 60_000,
    tookMs: 1,
    tools: [tool],
    fingerprints: [print],
  };
  const form = toolTerms(tool, tool.name);
  assertEquals(form, ["list issu", "", "list issu", "", ""]);
  // A value of the earlier format (forms beside the tools): the catalogue, without them.
  for (const extra of [{ tv: 2, terms: [form] }, { tv: 9, terms: "x" }]) {
    const checked = checkStored({ ...base, ...extra }, 0);
    assertEquals(checked, base, JSON.stringify(extra));
  }
  const { store, sets } = recording();
  const catalogues = createCatalogueStore({
    store,
    ttlMs: 60_000,
    transports: new Map(),
    warn: () => {},
  });
  await catalogues.save("s", [tool], 1);
  assertEquals(Object.keys(sets[0][1] as object).sort(), [
    "fingerprints",
    "takenAt",
    "tookMs",
    "tools",
    "ttlMs",
    "v",
  ]);
  // Its fingerprint names the tool (and a copy under a hub name), not another definition.
  const saved = (sets[0][1] as { fingerprints: string[] }).fingerprints[0];
  assertEquals(catalogues.printOf({ ...tool, name: "s__list_issues" }), saved);
  assertEquals(catalogues.printOf({ ...tool, description: "Deletes issues" }), undefined);
  assertEquals(catalogues.printOf({ ...tool, inputSchema: {} }), undefined);
});

test("stored index: an index of the earlier format (JSON text in parts) is none", async () => {
  const { store } = recording();
  const catalogues = createCatalogueStore({
    store,
    ttlMs: 60_000,
    transports: new Map(),
    warn: () => {},
  });
  const data = createToolIndex([{ name: "a", description: "send mail", inputSchema: {} }]).data();
  await store.set([INDEX, "old"], { parts: 1 }, 60_000);
  await store.set([INDEX, "old", "0"], JSON.stringify({ ...data, v: 1 }), 60_000);
  const read = await catalogues.loadIndex("old");
  assert(read === undefined || typeof checkIndexData(read, 1) === "string");
  // Parts of the layout before (each term and posting a string of its own) are none either.
  await store.set([INDEX, "arrays"], { v: 3, n: 1, parts: 1 }, 60_000);
  await store.set([INDEX, "arrays", "0"], { t: data.terms, p: data.postings, m: [] }, 60_000);
  assertEquals(await catalogues.loadIndex("arrays"), undefined);
  // Runs whose terms and postings do not pair up are none.
  await store.set([INDEX, "uneven", "0"], { t: "mail send", p: "0:1", m: data.names }, 60_000);
  await store.set([INDEX, "uneven"], { v: 3, n: 1, parts: 1 }, 60_000);
  assertEquals(await catalogues.loadIndex("uneven"), undefined);
});

test("stored index: whatever a stored index holds, a search names only the catalogue's tools", async () => {
  const { store, sets, inner } = recording();
  assertEquals(await firstFound(store, "email"), ["m__send_email"]);
  const [key] = sets.find(([k]) => k[0] === INDEX && k.length === 2)!;
  const catalogues = createCatalogueStore({
    store: inner,
    ttlMs: 60_000,
    transports: new Map(),
    warn: () => {},
  });
  // A hostile writer's index: well-formed, for two tools, but its terms and names speak of a
  // tool the catalogue does not have, and every posting leads to a tool.
  const hostile: IndexData = {
    v: 3,
    n: 2,
    names: ["steal secret", "exfiltr"],
    terms: ["email", "exfiltr", "secret", "steal"],
    postings: ["0:1 1:9", "0:1 1:9", "0:1 1:9", "0:1 1:9"],
  };
  assertEquals(checkIndexData(hostile, 2), hostile);
  await catalogues.saveIndex(key[1], hostile);
  const names = new Set(["m__send_email", "m__read_file"]);
  for (const query of ["steal secret", "email", "evil__steal_secret", "select:evil__steal"]) {
    const found = await firstFound(store, query);
    assert(found.every((name) => names.has(name)), `${query}: ${found.join()}`);
  }
  // It ranks (read, not built again): the heavier posting wins.
  assertEquals(await firstFound(store, "email"), ["m__read_file", "m__send_email"]);
});

test("stored index: the ASCII tokenizer cuts text as the Unicode expression does", () => {
  const alphabet = "aAbBzZ09 _-.:/HTTPxq";
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const texts = ["getHTTPResponse", "ABc", "A", "x1Y2", "URLs and IDs", "base64Encode v2", ""];
  for (let k = 0; k < 5_000; k++) {
    let text = "";
    const length = Math.floor(random() * 16);
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    texts.push(text);
  }
  for (const text of texts) assertEquals(terms(text), terms(text, MAX_TEXT, true), text);
  // Non-ASCII text takes the Unicode path: CJK pairs, accented words.
  assertEquals(terms("获取天气 café"), ["获取", "取天", "天气", "café"]);
});

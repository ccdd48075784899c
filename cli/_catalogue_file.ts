/**
 * The CLI's catalogue store: the library's store contract over one file in the config
 * directory (`catalogues.json`, mode 0600), read once per run and replaced atomically on
 * each write, so `conduit-mcp search` answers from the catalogues an earlier run learnt.
 *
 * The file is a line naming its layout, then one line per entry: the key's JSON, a tab, the
 * expiry (epoch ms, empty for never), a tab, and the value's JSON. A run parses only the
 * values it reads (a first search over 70 servers reads a few of the catalogues, not all),
 * and writes the values it did not change back as they were read. The file is printable
 * ASCII (every other character as a `\u` escape, which JSON reads back as the same text), so
 * it is read without decoding UTF-8, and JSON text never holds a raw tab or line break. Its
 * reading starts when the store is made, in the background, so it is under way while the
 * hub is set up. A file of the earlier layout (one JSON object of every entry) is read too,
 * and written in the new one at the next write; a line that is not well-formed reads as
 * absent, and a broken file as empty.
 *
 * @module
 */

import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { CacheStore } from "../mod.ts";
import { readTextFile } from "../runtime/read_file.ts";

/** The first line of a file of this layout. */
export const CATALOGUE_FILE_HEAD = "conduit-catalogues 2";

interface Entry {
  /** The value's JSON text as read (absent once the value was set in this run). */
  text?: string;
  /** The value, once parsed or set. */
  v?: unknown;
  /** Whether `v` holds the value. */
  parsed: boolean;
  /** Expiry (epoch ms), absent for never. */
  e?: number;
}

/** JSON text with every character outside printable ASCII written as a `\u` escape. */
const ascii = (text: string) =>
  text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** A key as it is written in the file (and looked up). */
const keyOf = (key: readonly string[]) => ascii(JSON.stringify(key));

/** The entries of a file of the current layout (`text` after its first line). */
function readLines(text: string, from: number, entries: Map<string, Entry>): void {
  let at = from;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    const tab = text.indexOf("\t", at);
    const tab2 = tab === -1 || tab > end ? -1 : text.indexOf("\t", tab + 1);
    if (tab2 !== -1 && tab2 < end) {
      const expiry = text.slice(tab + 1, tab2);
      const e = expiry === "" ? undefined : Number(expiry);
      if (e === undefined || Number.isFinite(e)) {
        entries.set(text.slice(at, tab), { text: text.slice(tab2 + 1, end), parsed: false, e });
      }
    }
    at = end + 1;
  }
}

/** The entries of a file of the earlier layout: one JSON object of `{ v, e }` by key. */
function readObject(text: string, entries: Map<string, Entry>): void {
  const read = JSON.parse(text);
  if (typeof read !== "object" || read === null || Array.isArray(read)) return;
  for (const [key, entry] of Object.entries(read as Record<string, { v?: unknown; e?: unknown }>)) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = typeof entry.e === "number" ? entry.e : undefined;
    entries.set(ascii(key), { v: entry.v, parsed: true, e });
  }
}

/**
 * The store over the file at `path`.
 *
 * @param path The file (created on the first write).
 * @returns The store.
 *
 * @example
 * ```ts ignore
 * const store = catalogueFile("/tmp/catalogues.json");
 * await store.set(["a"], { n: 1 }, 60_000);
 * ```
 */
export function catalogueFile(path: string): CacheStore {
  // The length of the text the values were read from or written to: none holds more.
  let bound: number | undefined;
  const parse = (text: string) => {
    const entries = new Map<string, Entry>();
    try {
      if (text.startsWith(`${CATALOGUE_FILE_HEAD}\n`)) {
        readLines(text, CATALOGUE_FILE_HEAD.length + 1, entries);
      } else if (text.startsWith("{")) readObject(text, entries);
      bound = text.length;
    } catch {
      entries.clear();
      bound = 0;
    }
    return entries;
  };
  // Started at once; a missing or broken file reads as empty.
  const reading = readTextFile(path).then(parse, () => parse(""));
  let data: Map<string, Entry> | undefined;
  const load = async () => data ??= await reading;
  const save = () => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    let text = CATALOGUE_FILE_HEAD;
    for (const [key, entry] of data!) {
      entry.text ??= ascii(JSON.stringify(entry.v) ?? "null");
      text += `\n${key}\t${entry.e ?? ""}\t${entry.text}`;
    }
    writeFileSync(temp, text, { mode: 0o600 });
    bound = Math.max(bound ?? 0, text.length);
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  };
  const read = (all: Map<string, Entry>, key: readonly string[]) => {
    const entry = all.get(keyOf(key));
    if (entry === undefined || (entry.e !== undefined && entry.e <= Date.now())) return undefined;
    if (!entry.parsed) {
      try {
        entry.v = JSON.parse(entry.text!);
      } catch {
        // A line that is not JSON reads as absent (and is not written again).
        all.delete(keyOf(key));
        return undefined;
      }
      entry.parsed = true;
    }
    return entry.v;
  };
  return {
    get maxValueChars() {
      return bound;
    },
    get: async (key) => read(await load(), key),
    getMany: async (keys) => {
      const all = await load();
      return keys.map((key) => read(all, key));
    },
    async set(key, value, ttlMs) {
      (await load()).set(keyOf(key), {
        v: value,
        parsed: true,
        e: ttlMs === Infinity ? undefined : Date.now() + ttlMs,
      });
      save();
    },
    async delete(key) {
      if ((await load()).delete(keyOf(key))) save();
    },
    async deletePrefix(prefix) {
      const all = await load();
      for (const key of [...all.keys()]) {
        const parts = JSON.parse(key) as string[];
        if (prefix.every((part, i) => parts[i] === part)) all.delete(key);
      }
      save();
    },
  };
}

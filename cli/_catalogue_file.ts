/**
 * The CLI's catalogue store: the library's store contract over one JSON file in the config
 * directory (`catalogues.json`, mode 0600), read once per run and replaced atomically on
 * each write, so `conduit-mcp search` answers from the catalogues an earlier run learnt. The
 * file is written in printable ASCII (every other character as a `\u` escape, which JSON
 * reads back as the same text), so a run reads it without decoding UTF-8: the catalogues of
 * many servers load in a fraction of the time. The file's reading starts when the store is
 * made, in the background, so it is under way while the hub is set up.
 *
 * @module
 */

import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { CacheStore } from "../mod.ts";
import { readTextFile } from "../runtime/read_file.ts";

interface Entry {
  /** The value. */
  v: unknown;
  /** Expiry (epoch ms), absent for never. */
  e?: number;
}

const keyOf = (key: readonly string[]) => JSON.stringify(key);

/** JSON text with every character outside printable ASCII written as a `\u` escape. */
const ascii = (text: string) =>
  text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

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
    try {
      const read = JSON.parse(text);
      bound = text.length;
      return typeof read === "object" && read !== null && !Array.isArray(read)
        ? read as Record<string, Entry>
        : {};
    } catch {
      bound = 0;
      return {};
    }
  };
  // Started at once; a missing or broken file reads as empty.
  const reading = readTextFile(path).then(parse, () => parse(""));
  let data: Record<string, Entry> | undefined;
  const load = async () => data ??= await reading;
  const save = () => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    const text = ascii(JSON.stringify(data));
    writeFileSync(temp, text, { mode: 0o600 });
    bound = Math.max(bound ?? 0, text.length);
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  };
  const read = (all: Record<string, Entry>, key: readonly string[]) => {
    const entry = all[keyOf(key)];
    return entry !== undefined && (entry.e === undefined || entry.e > Date.now())
      ? entry.v
      : undefined;
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
      (await load())[keyOf(key)] = ttlMs === Infinity
        ? { v: value }
        : { v: value, e: Date.now() + ttlMs };
      save();
    },
    async delete(key) {
      if (delete (await load())[keyOf(key)]) save();
    },
    async deletePrefix(prefix) {
      const all = await load();
      for (const key of Object.keys(all)) {
        const parts = JSON.parse(key) as string[];
        if (prefix.every((part, i) => parts[i] === part)) delete all[key];
      }
      save();
    },
  };
}

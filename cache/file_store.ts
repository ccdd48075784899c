/**
 * {@linkcode fileStoreOver}: the {@linkcode CacheStore} over a folder of files, one file per
 * entry, reached through {@linkcode FolderLike} (the package's `fileStore(dir)` gives one on
 * the local disk). Each file holds the entry's key, value and expiry as JSON, written to a
 * temporary name and renamed, so a reader never sees half a file; the expiry is checked on
 * every read. A text value (a spilled result's chunk) is written as it is, after a line of
 * JSON naming its key and expiry: no escaped copy of it is made, and the folder may write its
 * UTF-8 bytes without ever joining the line and the text (a text that is not well-formed
 * UTF-16 is kept as JSON instead, so it reads back exactly). Processes on one machine that
 * use the same folder share it. A byte bound (`maxBytes`) counts the files this store wrote:
 * a write past it first drops the expired files, and is skipped (the key reads as absent)
 * when there is still no room.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";
import { digest } from "./digest.ts";
import { type CacheKey, type CacheStore, checkKey, checkSet, entryOf, valueOf } from "./store.ts";

/** The file operations the store needs, on one folder. */
export interface FolderLike {
  /** A file's text, or `undefined` when there is none. */
  read(name: string): Promise<string | undefined>;
  /** Writes a file whole (atomically: a reader sees the old text or the new). */
  write(name: string, text: string): Promise<void>;
  /**
   * Writes a file whole from texts that follow one another, without joining them (optional:
   * `write` of the joined text stands in for it).
   */
  writeParts?(name: string, parts: readonly string[]): Promise<void>;
  /** Deletes a file (none: nothing happens). */
  remove(name: string): Promise<void>;
  /** The names of the folder's files, with their sizes in bytes. */
  list(): Promise<{ name: string; size: number }[]>;
}

/** Options of {@linkcode fileStoreOver}. */
export interface FileStoreOptions {
  /** The most bytes of files this store keeps (default 256 MiB; `Infinity`: no bound). */
  maxBytes?: number;
  /** The clock, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** The default byte bound of a file store: 256 MiB. */
export const FILE_STORE_BYTES = 256 * 1024 * 1024;

const SUFFIX = ".json";
const LONG = 180;

/** The files a store knows of, each with its size in bytes, and their sum. */
interface Sizes {
  map: Map<string, number>;
  bytes: number;
}

/** Anything but ASCII. */
const NOT_ASCII = /[\u0080-\uFFFF]/;

/**
 * The UTF-8 length of a text, counted without encoding it (ASCII, most often, by one
 * regular expression: a loop over its characters leaves garbage on Bun).
 */
function utf8Length(text: string): number {
  if (!NOT_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** A key part as a file-name-safe text: anything but `A-Z a-z 0-9 _ -` as `%XX` (UTF-8). */
function safe(part: string): string {
  return encodeURIComponent(part).replace(
    /[!'()*.~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * A {@linkcode CacheStore} over a folder.
 *
 * @param folder The folder's operations.
 * @param options The byte bound and the clock.
 * @returns The store.
 * @throws {TypeError} When `folder` lacks a method or an option is bad.
 *
 * @example Over a Map standing in for the folder
 * ```ts
 * import { fileStoreOver, type FolderLike } from "./file_store.ts";
 *
 * const files = new Map<string, string>();
 * const folder: FolderLike = {
 *   read: (name) => Promise.resolve(files.get(name)),
 *   write: (name, text) => Promise.resolve(void files.set(name, text)),
 *   remove: (name) => Promise.resolve(void files.delete(name)),
 *   list: () => Promise.resolve([...files].map(([name, text]) => ({ name, size: text.length }))),
 * };
 * const store = fileStoreOver(folder);
 * await store.set(["tools", "a:b"], ["echo"], 60_000);
 * if ((await store.get(["tools", "a:b"]) as string[])[0] !== "echo") throw new Error();
 * await store.deletePrefix(["tools"]);
 * if (files.size !== 0) throw new Error();
 * ```
 */
export function fileStoreOver(folder: FolderLike, options: FileStoreOptions = {}): CacheStore {
  if (
    typeof folder !== "object" || folder === null ||
    !["read", "write", "remove", "list"].every((m) => typeof (folder as never)[m] === "function")
  ) {
    throw new TypeError("fileStore: the folder must have read, write, remove and list");
  }
  checkKeys(options, ["maxBytes", "now"], "fileStore options");
  const maxBytes = options.maxBytes ?? FILE_STORE_BYTES;
  if (maxBytes !== Infinity && (!Number.isSafeInteger(maxBytes) || maxBytes < 1)) {
    throw new TypeError("fileStore: maxBytes must be a positive whole number");
  }
  const now = options.now ?? Date.now;
  // The bytes of the files this store knows of: counted from the folder on first write,
  // and their sum kept as they change (not summed again on each write: on Bun, spreading a
  // big map's values on each of a spilled result's chunks left about the result's size in
  // garbage).
  let sizes: Promise<Sizes> | undefined;
  const known = () =>
    sizes ??= folder.list().then((files) => {
      const found = new Map<string, number>();
      let bytes = 0;
      for (const { name, size } of files) {
        if (!name.endsWith(SUFFIX)) continue;
        found.set(name, size);
        bytes += size;
      }
      return { map: found, bytes };
    });
  const resize = (sized: Sizes, name: string, size: number | undefined) => {
    sized.bytes += (size ?? 0) - (sized.map.get(name) ?? 0);
    if (size === undefined) sized.map.delete(name);
    else sized.map.set(name, size);
  };
  // Long keys are named by their digest (their key is in the file, for deletePrefix).
  const nameOf = async (key: CacheKey): Promise<string> => {
    const plain = key.map(safe).join(".");
    return plain.length <= LONG ? `k.${plain}${SUFFIX}` : `h.${await digest(plain)}${SUFFIX}`;
  };
  const readEntry = async (name: string): Promise<{ k: unknown; raw: unknown } | undefined> => {
    const text = await folder.read(name);
    if (text === undefined) return undefined;
    try {
      // JSON written whole holds no line break: one ends the line before a text value.
      const line = text.indexOf("\n");
      if (line === -1) {
        const parsed = JSON.parse(text);
        return { k: parsed?.k, raw: parsed };
      }
      const head = JSON.parse(text.slice(0, line));
      if (typeof head !== "object" || head === null || head.t !== 1) return undefined;
      return { k: head.k, raw: { v: text.slice(line + 1), e: head.e } };
    } catch {
      return undefined;
    }
  };
  const write = (name: string, parts: readonly string[]) =>
    folder.writeParts !== undefined
      ? folder.writeParts(name, parts)
      : folder.write(name, parts.join(""));
  const drop = async (name: string) => {
    await folder.remove(name);
    resize(await known(), name, undefined);
  };
  const sweep = async () => {
    for (const { name } of await folder.list()) {
      if (!name.endsWith(SUFFIX)) continue;
      const found = await readEntry(name);
      if (found === undefined || valueOf(found.raw, now()) === undefined) await drop(name);
    }
  };
  return {
    async get(key) {
      checkKey(key);
      const name = await nameOf(key);
      const found = await readEntry(name);
      if (found === undefined) return undefined;
      const value = valueOf(found.raw, now());
      if (value === undefined) await drop(name);
      return value;
    },
    async set(key, value, ttlMs) {
      checkSet(key, ttlMs);
      const name = await nameOf(key);
      const entry = entryOf(value, ttlMs, now());
      const parts = typeof value === "string" && value.isWellFormed()
        ? [JSON.stringify({ k: key, e: entry.e, t: 1 }) + "\n", value]
        : [JSON.stringify({ k: key, ...entry })];
      const size = parts.reduce((sum, part) => sum + utf8Length(part), 0);
      const sized = await known();
      const before = sized.map.get(name) ?? 0;
      if (maxBytes !== Infinity && sized.bytes - before + size > maxBytes) {
        await sweep();
        if (sized.bytes - (sized.map.get(name) ?? 0) + size > maxBytes) {
          if (sized.map.has(name)) await drop(name); // the old value is no longer the key's
          return;
        }
      }
      await write(name, parts);
      resize(sized, name, size);
    },
    async delete(key) {
      checkKey(key);
      await drop(await nameOf(key));
    },
    async deletePrefix(prefix) {
      checkKey(prefix, true);
      const start = prefix.map(safe).join(".");
      for (const { name } of await folder.list()) {
        if (!name.endsWith(SUFFIX)) continue;
        const plain = name.slice(2, -SUFFIX.length);
        let under: boolean;
        if (name.startsWith("k.")) {
          under = prefix.length === 0 || plain === start || plain.startsWith(`${start}.`);
        } else {
          const found = await readEntry(name);
          const k = found?.k;
          under = Array.isArray(k) && prefix.every((part, i) => k[i] === part);
        }
        if (under) await drop(name);
      }
    },
  };
}

/**
 * A folder on the local disk as the file store's {@linkcode FolderLike}: files written to a
 * temporary name and renamed into place, the folder made (mode `0700`, files `0600`) on
 * first write. A file written in parts has each part's UTF-8 encoded into a buffer kept for
 * the next write, so writing many chunks leaves no copy of each behind. Works under Deno and
 * Bun alike (through `node:fs`).
 *
 * @module
 */

import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The file operations of one folder (the shape `cache/file_store.ts` takes). */
export interface LocalFolder {
  /** A file's text, or `undefined` when there is none. */
  read(name: string): Promise<string | undefined>;
  /** Writes a file whole, atomically. */
  write(name: string, text: string): Promise<void>;
  /** Writes a file whole from texts that follow one another, atomically, never joining them. */
  writeParts(name: string, parts: readonly string[]): Promise<void>;
  /** Deletes a file. */
  remove(name: string): Promise<void>;
  /** The files, with their sizes. */
  list(): Promise<{ name: string; size: number }[]>;
}

/** The largest buffer kept between writes (a bigger one is made for its write only). */
const KEEP_BYTES = 1024 * 1024;
const encoder = new TextEncoder();

function missing(error: unknown): boolean {
  return (error as { code?: string })?.code === "ENOENT";
}

/**
 * The operations of a folder on disk.
 *
 * @param dir The folder (made when first written to).
 * @returns Its operations.
 *
 * @example
 * ```ts
 * import { localFolder } from "./files.ts";
 *
 * const folder = localFolder(await Deno.makeTempDir());
 * await folder.write("a.json", "{}");
 * if ((await folder.read("a.json")) !== "{}" || (await folder.list()).length !== 1) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function localFolder(dir: string): LocalFolder {
  if (typeof dir !== "string" || dir === "") {
    throw new TypeError("fileStore: dir must be a non-empty path");
  }
  let made: Promise<unknown> | undefined;
  let counter = 0;
  // Buffers free for the next write in parts (one each for writes under way at once).
  const free: Uint8Array[] = [];
  const path = (name: string) => {
    if (name.includes("/") || name.includes("\\") || name.startsWith(".")) {
      throw new TypeError("a file store name must be a plain file name");
    }
    return join(dir, name);
  };
  // A file filled under a temporary name, then renamed into place (removed if either fails).
  const place = async (name: string, fill: (temporary: string) => Promise<void>) => {
    const target = path(name);
    made ??= mkdir(dir, { recursive: true, mode: 0o700 });
    await made;
    const temporary = join(dir, `.${name}.${crypto.randomUUID()}.${++counter}.tmp`);
    try {
      await fill(temporary);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
  };
  return {
    async read(name) {
      try {
        return await readFile(path(name), "utf8");
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async write(name, text) {
      await place(name, (temporary) => writeFile(temporary, text, { mode: 0o600 }));
    },
    async writeParts(name, parts) {
      // At most 3 bytes of UTF-8 per UTF-16 unit.
      const need = parts.reduce((sum, part) => sum + part.length * 3, 0);
      let buffer = free.pop();
      if (buffer === undefined || buffer.length < need) {
        buffer = new Uint8Array(Math.max(need, Math.min(KEEP_BYTES, 4 * need)));
      }
      try {
        let length = 0;
        for (const part of parts) {
          length += encoder.encodeInto(part, buffer.subarray(length)).written;
        }
        const bytes = buffer;
        await place(name, async (temporary) => {
          const file = await open(temporary, "wx", 0o600);
          try {
            for (let at = 0; at < length;) {
              at += (await file.write(bytes, at, length - at)).bytesWritten;
            }
          } finally {
            await file.close();
          }
        });
      } finally {
        if (buffer.length <= KEEP_BYTES) free.push(buffer);
      }
    },
    async remove(name) {
      await rm(path(name), { force: true });
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if (missing(error)) return [];
        throw error;
      }
      const out: { name: string; size: number }[] = [];
      for (const name of names) {
        if (name.startsWith(".")) continue;
        try {
          out.push({ name, size: (await stat(join(dir, name))).size });
        } catch (error) {
          if (!missing(error)) throw error;
        }
      }
      return out;
    },
  };
}

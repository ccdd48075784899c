/**
 * A folder on the local disk as the file store's {@linkcode FolderLike}: files written to a
 * temporary name and renamed into place, the folder made (mode `0700`, files `0600`) on
 * first write. Works under Deno and Bun alike (through `node:fs`).
 *
 * @module
 */

import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The file operations of one folder (the shape `cache/file_store.ts` takes). */
export interface LocalFolder {
  /** A file's text, or `undefined` when there is none. */
  read(name: string): Promise<string | undefined>;
  /** Writes a file whole, atomically. */
  write(name: string, text: string): Promise<void>;
  /** Deletes a file. */
  remove(name: string): Promise<void>;
  /** The files, with their sizes. */
  list(): Promise<{ name: string; size: number }[]>;
}

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
  const path = (name: string) => {
    if (name.includes("/") || name.includes("\\") || name.startsWith(".")) {
      throw new TypeError("a file store name must be a plain file name");
    }
    return join(dir, name);
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
      made ??= mkdir(dir, { recursive: true, mode: 0o700 });
      await made;
      const temporary = join(dir, `.${name}.${crypto.randomUUID()}.${++counter}.tmp`);
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, path(name));
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

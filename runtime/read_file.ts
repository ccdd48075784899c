/**
 * Reads a text file, under Deno or Bun (for config files). The only file reading of the
 * package.
 *
 * @module
 */

import { runtimeName } from "./detect.ts";

interface DenoFiles {
  readTextFile(path: string | URL): Promise<string>;
}

interface BunFiles {
  file(path: string | URL): { text(): Promise<string> };
}

/**
 * Reads a whole file as UTF-8 text.
 *
 * @param path A path, or a `file:` URL.
 * @returns The text.
 * @throws The runtime's error when the file cannot be read (a missing file's error has
 *   `code` `"ENOENT"` in both), or a `TypeError` outside Deno and Bun.
 *
 * @example
 * ```ts
 * import { readTextFile } from "./read_file.ts";
 *
 * const text = await readTextFile(new URL(import.meta.url));
 * if (!text.includes("readTextFile")) throw new Error("unexpected");
 * ```
 */
export async function readTextFile(path: string | URL): Promise<string> {
  const runtime = runtimeName();
  const g = globalThis as unknown as { Deno?: DenoFiles; Bun?: BunFiles };
  if (runtime === "deno") return await g.Deno!.readTextFile(path);
  if (runtime === "bun") {
    const file = g.Bun!.file(path);
    return await file.text();
  }
  throw new TypeError("Reading files needs Deno or Bun");
}

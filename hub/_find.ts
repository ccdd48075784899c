/**
 * Private: what a lazy hub's `search_tools` searches with (loaded on the first search). The
 * index is built once per catalogue: kept while the tools are the same, and, when the hub
 * keeps catalogues in a store, stored there under the digest of what it indexes (each
 * tool's tokenised form, its server, and the ranking's settings), so a process that reads
 * the same catalogues reads the index too instead of building it. A stored index is checked
 * like any stored value; one that is not well-formed is built again (and stored again).
 *
 * @module
 */

import { digest } from "../cache/digest.ts";
import type { CatalogueStore } from "./_stored.ts";
import { checkIndexData } from "./_postings.ts";
import { toolTerms } from "./_terms.ts";
import {
  createToolIndex,
  type IndexedTool,
  sameEntries,
  SETTINGS,
  type ToolIndex,
  type ToolMatch,
} from "./search.ts";

/** Searches a catalogue (given as it is now): the best matches, best first. */
export type Finder = (
  entries: readonly IndexedTool[],
  query: string,
  limit: number,
) => Promise<ToolMatch[]>;

/** The index format and tokenizer the digest covers, with the settings (2: the text below). */
const FORMAT = 2;

/**
 * The digest naming what an index is built from: each tool's tokenised form and server,
 * in order, with the settings and the format. The text is written as it is hashed, a line a
 * tool (its server as JSON, then its form's fields, NUL between), not as JSON a tool at a
 * time: the first search of a process digests 500 forms cold. (A form is words, with no
 * control characters; one read from a tampered store that had some could at worst name
 * another catalogue's index, which is checked like any stored index before it is used.)
 *
 * @param entries The catalogue.
 * @returns The digest.
 */
export function indexDigest(entries: readonly IndexedTool[]): Promise<string> {
  const servers = new Map<string | undefined, string>();
  let text = JSON.stringify([FORMAT, SETTINGS]);
  for (const { tool, server, original } of entries) {
    let head = servers.get(server);
    if (head === undefined) servers.set(server, head = JSON.stringify(server ?? null));
    text += `\n${head}\u0000${toolTerms(tool, original ?? tool.name).join("\u0000")}`;
  }
  return digest(text);
}

/**
 * Creates the finder.
 *
 * @param keeper The hub's stored catalogues, when it keeps them.
 * @param warn Where diagnostics go.
 * @returns The finder.
 */
export function createFinder(
  keeper: (() => Promise<CatalogueStore>) | undefined,
  warn: (message: string) => void,
): Finder {
  let last: readonly IndexedTool[] = [];
  let index: Promise<ToolIndex> | undefined;

  const build = async (entries: readonly IndexedTool[]): Promise<ToolIndex> => {
    if (keeper === undefined || entries.length === 0) return createToolIndex(entries);
    const store = await keeper();
    const key = await indexDigest(entries);
    const stored = await store.loadIndex(key);
    if (stored !== undefined) {
      const checked = checkIndexData(stored, entries.length);
      if (typeof checked !== "string") return createToolIndex(entries, { data: checked });
      warn(`The stored search index is ignored: it has ${checked}`);
    }
    const built = createToolIndex(entries);
    await store.saveIndex(key, built.data());
    return built;
  };

  return async (entries, query, limit) => {
    if (index === undefined || !sameEntries(entries, last)) {
      last = entries;
      index = build(entries);
      // A build that failed is not kept: the next search tries again.
      index.catch(() => {
        if (last === entries) index = undefined;
      });
    }
    return (await index).search(query, limit);
  };
}

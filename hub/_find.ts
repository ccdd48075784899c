/**
 * Private: what a lazy hub's `search_tools` searches with (loaded on the first search). The
 * index is built once per catalogue: kept while the tools are the same, and, when the hub
 * keeps catalogues in a store, stored there under the digest of what it indexes (each
 * tool's definition, its server, the tokenizer and the ranking's settings), so a process that reads
 * the same catalogues reads the index too instead of building it. A stored index is checked
 * like any stored value; one that is not well-formed (when read, or when a search first
 * decodes one of its postings) is built again (and stored again).
 *
 * @module
 */

import { nameDigest } from "./_digest.ts";
import type { CatalogueStore } from "./_stored.ts";
import { checkIndexData, StoredIndexError } from "./_postings.ts";
import { TERMS_VERSION } from "./_terms.ts";
import type { Tool } from "../client/types.ts";
import {
  createToolIndex,
  type IndexedTool,
  sameEntries,
  SETTINGS,
  type ToolIndex,
  type ToolMatch,
} from "./search.ts";

/** Searches a catalogue (given as it is now): the best matches, best first. */
export interface Finder {
  (entries: readonly IndexedTool[], query: string, limit: number): Promise<ToolMatch[]>;
  /**
   * Searches with the stored index named `key` only (the entries may be names alone, as a
   * stored snapshot knows them): `undefined` when that index is not stored or not
   * well-formed (nothing is built from such entries).
   */
  stored(
    entries: readonly IndexedTool[],
    key: string,
    query: string,
    limit: number,
  ): Promise<ToolMatch[] | undefined>;
  /** The digest naming the index of the last search (`undefined` before one). */
  key(): string | undefined;
}

/**
 * The stored index's format (6: {@linkcode IndexData} 3, named as below, in parts of joined
 * runs).
 */
const FORMAT = 6;

/**
 * The digest naming what an index is built from: each tool's server, own name and
 * definition, in order, with the tokenizer's version, the settings and the format. A tool of
 * a catalogue the hub read or saved is named by its pin fingerprint (which covers its name,
 * title, description and schemas), so naming the index of 500 stored tools cuts none of
 * them and writes none as JSON; any other tool by its title, description and input schema
 * as JSON. (A tampered store can at worst make a catalogue name another catalogue's index,
 * which is checked like any stored index before it is used, and only ranks the tools
 * searched.)
 *
 * @param entries The catalogue.
 * @param printOf A tool's pin fingerprint, when known.
 * @returns The digest.
 */
export function indexDigest(
  entries: readonly IndexedTool[],
  printOf: (tool: Tool) => string | undefined = () => undefined,
): Promise<string> {
  // Each name with its length before it, so no two catalogues write the same text.
  const named = (name: string | undefined) => name === undefined ? "-" : `${name.length}:${name}`;
  let text = JSON.stringify([FORMAT, TERMS_VERSION, SETTINGS]);
  for (const { tool, server, original } of entries) {
    const print = printOf(tool);
    text += `\n${named(server)}${named(original ?? tool.name)}${
      print ?? JSON.stringify([tool.title ?? null, tool.description ?? null, tool.inputSchema])
    }`;
  }
  return nameDigest(text);
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
  let lastKey: string | undefined;

  // Built from the tools, and stored under the digest of what it indexes.
  const fresh = async (entries: readonly IndexedTool[], store: CatalogueStore, key: string) => {
    const built = createToolIndex(entries);
    await store.saveIndex(key, built.data());
    return built;
  };
  const build = async (entries: readonly IndexedTool[]): Promise<ToolIndex> => {
    if (keeper === undefined || entries.length === 0) return createToolIndex(entries);
    const store = await keeper();
    const key = await indexDigest(entries, (tool) => store.printOf(tool));
    if (last === entries) lastKey = key;
    const stored = await store.loadIndex(key);
    if (stored !== undefined) {
      const checked = checkIndexData(stored, entries.length);
      if (typeof checked !== "string") return createToolIndex(entries, { data: checked });
      warn(`The stored search index is ignored: it has ${checked}`);
    }
    return await fresh(entries, store, key);
  };
  // A stored posting found malformed when a search first decodes it: the index is refused
  // as a malformed one is, and built again.
  const rebuild = async (entries: readonly IndexedTool[]) => {
    const store = await keeper!();
    return await fresh(entries, store, await indexDigest(entries, (tool) => store.printOf(tool)));
  };

  const find = async (entries: readonly IndexedTool[], query: string, limit: number) => {
    if (index === undefined || !sameEntries(entries, last)) {
      last = entries;
      lastKey = undefined;
      index = build(entries);
      // A build that failed is not kept: the next search tries again.
      index.catch(() => {
        if (last === entries) index = undefined;
      });
    }
    const current = index;
    try {
      return (await current).search(query, limit);
    } catch (error) {
      if (!(error instanceof StoredIndexError)) throw error;
      warn(`The stored search index is ignored: it has ${error.reason}`);
      if (index === current || index === undefined) index = rebuild(entries);
      return (await index).search(query, limit);
    }
  };
  const stored = async (
    entries: readonly IndexedTool[],
    key: string,
    query: string,
    limit: number,
  ) => {
    if (keeper === undefined || entries.length === 0) return undefined;
    if (index === undefined || lastKey !== key || !sameEntries(entries, last)) {
      const raw = await (await keeper()).loadIndex(key);
      if (raw === undefined) return undefined;
      const checked = checkIndexData(raw, entries.length);
      if (typeof checked === "string") {
        warn(`The stored search index is ignored: it has ${checked}`);
        return undefined;
      }
      last = entries;
      lastKey = key;
      index = Promise.resolve(createToolIndex(entries, { data: checked }));
    }
    try {
      return (await index).search(query, limit);
    } catch (error) {
      if (!(error instanceof StoredIndexError)) throw error;
      warn(`The stored search index is ignored: it has ${error.reason}`);
      index = undefined;
      return undefined;
    }
  };
  return Object.assign(find, { stored, key: () => lastKey });
}

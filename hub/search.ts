/**
 * The tool search index behind a lazy hub's `search_tools`: a field-weighted BM25 (BM25F)
 * over each tool's name, title, description, parameter names and their descriptions, and
 * its server's name. The index is built once per catalogue ({@linkcode createToolIndex});
 * each search only reads it.
 *
 * Text is cut into terms by `_terms.ts`: at non-alphanumerics, camelCase humps and
 * letter–digit boundaries, lower-cased, and stemmed by Porter's algorithm, so `listIssues`,
 * `list_issue` and "lists issues" meet. Each tool is cut once (its tokenised form is kept in
 * the process; an index read back from a hub's store needs none cut). No word list is used:
 * common words weigh little through their inverse document frequency.
 *
 * A tool's score for a query is the BM25 sum over the query's distinct terms of
 * `idf(t) · tf'(t) / (k1 + tf'(t))`, where `tf'` adds the term's count in each field times
 * the field's weight, each count normalised by the field's length against its average
 * (BM25's `b`), before the one saturation. A query that is a tool's name (its hub name or its own name, ignoring
 * case) puts that tool first; `select:a,b` returns the named tools, in that order, and
 * nothing else.
 *
 * @module
 */

import type { Tool } from "../client/types.ts";
import { terms, toolTerms } from "./_terms.ts";
import { createLookups, lowerBound, toolNames } from "./_lookups.ts";
import {
  buildPostings,
  FIELDS,
  type IndexData,
  type Posting,
  postingText,
  readPosting,
  type Settings,
} from "./_postings.ts";

export type { IndexData, Settings };
export { FIELDS };

/** One match of a search. */
export interface ToolMatch {
  /** The tool's hub name. */
  name: string;
  /** Its description, when it has one. */
  description?: string;
  /** Its input schema. */
  inputSchema: Record<string, unknown>;
  /** Its score (BM25F; an exact name or a `select:` scores `Infinity`). */
  score: number;
}

/** What the index knows of one tool beyond the tool itself. */
export interface IndexedTool {
  /** The tool under its hub name. */
  tool: Tool;
  /** The server's name, when the tool has one. */
  server?: string;
  /** The tool's own name on its server, when it differs from the hub name. */
  original?: string;
}

/** A built index: search it as often as needed. */
export interface ToolIndex {
  /** How many tools it holds. */
  readonly size: number;
  /**
   * The best tools for a query, best first (ties in catalogue order), at most `limit`.
   * Tools that match no term are left out.
   */
  search(query: string, limit: number): ToolMatch[];
  /** The inverted index as data (what a store keeps to skip building it). */
  data(): IndexData;
}

/** How an index is made: other settings (benchmarks), or data built before for these tools. */
export interface IndexOptions {
  /** The ranking's settings, over {@linkcode SETTINGS}. */
  settings?: Partial<Settings>;
  /** The inverted index built before for the same tools and settings (checked by the caller). */
  data?: IndexData;
}

/**
 * The settings the hub ranks with: BM25's textbook saturation (k1 1.2) and length
 * normalisation (b 0.75, every field), and a name worth three descriptions (as the plain
 * BM25 baseline weighs it), a title two, a parameter's description half: general settings,
 * not fitted to any data set.
 */
export const SETTINGS: Settings = Object.freeze({
  k1: 1.2,
  weights: Object.freeze([3, 2, 1, 1, 0.5, 1]),
  b: Object.freeze([0.75, 0.75, 0.75, 0.75, 0.75, 0.75]),
});

/** A partial word's share of a whole word's score, and the shortest part that counts. */
const PARTIAL = 0.5;
const MIN_PART = 4;
/** The shortest query word looked up with one typo (a letter left out, added, changed or swapped). */
const MIN_TYPO = 5;

/** Whether `a` and `b` differ by one edit: a letter inserted, deleted, replaced or swapped. */
function oneEdit(a: string, b: string): boolean {
  if (a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

const split = (field: string) => field === "" ? [] : field.split(" ");

function matchOf(tool: Tool, score: number): ToolMatch {
  const match: ToolMatch = { name: tool.name, inputSchema: tool.inputSchema, score };
  if (typeof tool.description === "string") match.description = tool.description;
  return match;
}

/**
 * Builds the index over a catalogue.
 *
 * @param entries The tools, each a `Tool` or `{ tool, server, original }`.
 * @param options Other settings, or the index built before.
 * @returns The index.
 *
 * @example An exact name first, `select:` for named tools, ranked terms otherwise
 * ```ts
 * import { createToolIndex } from "./search.ts";
 *
 * const schema = { type: "object", properties: { city: { type: "string" } } };
 * const index = createToolIndex([
 *   { name: "weather__forecast", description: "Forecast the weather of a city", inputSchema: schema },
 *   { name: "mail__send_email", description: "Send an email", inputSchema: { type: "object" } },
 * ]);
 * if (index.search("weather in a city", 5)[0].name !== "weather__forecast") throw new Error();
 * if (index.search("Mail__Send_Email", 5)[0].score !== Infinity) throw new Error();
 * const picked = index.search("select:mail__send_email,weather__forecast", 5).map((m) => m.name);
 * if (picked.join() !== "mail__send_email,weather__forecast") throw new Error();
 * ```
 */
export function createToolIndex(
  entries: readonly (Tool | IndexedTool)[],
  options: IndexOptions = {},
): ToolIndex {
  const settings = { ...SETTINGS, ...options.settings };
  const { k1 } = settings;
  const given = entries.map((entry) =>
    "tool" in entry ? entry as IndexedTool : { tool: entry as Tool }
  );
  const n = given.length;
  const tools = given.map((entry) => entry.tool);
  // Built: each tool's own fields as cut once, then its server's name. Read back: no tool is
  // cut (the names' terms are in the data).
  const build = () => {
    const forms = given.map((entry) => toolTerms(entry.tool, entry.original ?? entry.tool.name));
    const postings = buildPostings(
      forms.map((form, i) => [...form.map(split), terms(given[i].server ?? "")]),
      settings,
    );
    return { ...postings, names: forms.map((form) => form[0]) };
  };
  const read = options.data;
  const built = read === undefined ? build() : undefined;
  const words = read?.terms ?? built!.terms;
  const names = read?.names ?? built!.names;
  // Each term's postings: built, or decoded (and checked) from the data when first looked up.
  const lists: (Posting | undefined)[] = built?.lists ?? new Array(words.length);
  const postingAt = (t: number) => lists[t] ??= readPosting(read!.postings[t], n);
  let data = read;
  // Lookups by scan on the first search, from tables made for the searches after it.
  let searches = 0;
  const lookups = createLookups(words, names, (i) => toolNames(tools[i], given[i].original), n);
  const { positionOf, named } = lookups;
  const scores = new Float64Array(n);
  // The best contribution of one query term (exact or partial) to each tool.
  const best = new Float64Array(n);
  const idfOf = (term: string) => {
    const t = positionOf(term);
    const df = t === undefined ? 0 : postingAt(t).docs.length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const add = (term: string, factor: number) => {
    const t = positionOf(term);
    if (t === undefined) return;
    const { docs, tfs } = postingAt(t);
    const df = docs.length;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * factor;
    for (let k = 0; k < df; k++) {
      const tf = tfs[k];
      const value = idf * tf / (k1 + tf);
      const i = docs[k];
      if (value > best[i]) best[i] = value;
    }
  };

  return {
    size: n,
    data: () =>
      data ??= { v: 3, n, names, terms: words, postings: lists.map((list) => postingText(list!)) },
    search(query, limit) {
      if (++searches === 2) lookups.tables();
      const trimmed = query.trim();
      if (/^select:/i.test(trimmed)) {
        const picked: ToolMatch[] = [];
        const seen = new Set<number>();
        for (const part of trimmed.slice(7).split(",")) {
          const i = named(part.trim().toLowerCase());
          if (i === undefined || seen.has(i) || picked.length >= limit) continue;
          seen.add(i);
          picked.push(matchOf(tools[i], Infinity));
        }
        return picked;
      }
      scores.fill(0);
      const exact = named(trimmed.toLowerCase());
      const asked = terms(trimmed);
      // Two words of the query in a row that are two words of a tool's name in a row: their
      // idfs again, at PARTIAL weight (proximity: `current time` → `get_current_time`).
      for (let k = 0; k + 1 < asked.length; k++) {
        const holders = lookups.holdersOf(`${asked[k]} ${asked[k + 1]}`);
        if (holders.length === 0) continue;
        const bonus = PARTIAL * (idfOf(asked[k]) + idfOf(asked[k + 1]));
        for (const i of holders) scores[i] += bonus;
      }
      for (const term of new Set(asked)) {
        best.fill(0);
        add(term, 1);
        // Partial words, at half weight: a word the term begins (`wiki` → `wikipedia`) or
        // one that begins the term (`repositori` → `repo`), of MIN_PART letters or more.
        if (term.length >= MIN_PART) {
          for (let i = lowerBound(words, term); i < words.length; i++) {
            const word = words[i];
            if (!word.startsWith(term)) break;
            if (word !== term) add(word, PARTIAL);
          }
          for (let end = MIN_PART; end < term.length; end++) add(term.slice(0, end), PARTIAL);
        }
        // A word no tool has, of MIN_TYPO letters or more: the words one typo away.
        if (term.length >= MIN_TYPO && positionOf(term) === undefined) {
          for (let len = term.length - 1; len <= term.length + 1; len++) {
            for (const word of lookups.wordsOfLength(len)) {
              if (oneEdit(term, word)) add(word, PARTIAL);
            }
          }
        }
        for (let i = 0; i < n; i++) scores[i] += best[i];
      }
      if (exact !== undefined) scores[exact] = Infinity;
      const ranked: number[] = [];
      for (let i = 0; i < n; i++) if (scores[i] > 0) ranked.push(i);
      ranked.sort((a, b) => scores[b] - scores[a] || a - b);
      return ranked.slice(0, limit).map((i) => matchOf(tools[i], scores[i]));
    },
  };
}

/**
 * Ranks tools for a query in one go: {@linkcode createToolIndex} over `tools`, then one
 * search. A caller that searches the same catalogue again keeps the index instead.
 *
 * @param tools The catalogue.
 * @param query The keywords, a tool's name, or `select:name[,name…]`.
 * @param limit The most matches to return.
 * @returns The matches, best first.
 *
 * @example
 * ```ts
 * import { searchTools } from "./search.ts";
 *
 * const tools = [
 *   { name: "mail__send_email", description: "Send an email", inputSchema: { type: "object" } },
 *   { name: "docs__search", description: "Search the docs by email address", inputSchema: { type: "object" } },
 * ];
 * const [best] = searchTools(tools, "sending emails", 5);
 * if (best.name !== "mail__send_email") throw new Error("unexpected");
 * ```
 */
export function searchTools(tools: readonly Tool[], query: string, limit: number): ToolMatch[] {
  return createToolIndex(tools).search(query, limit);
}

const sameTool = (a: Tool, b: Tool) =>
  a.name === b.name && a.description === b.description && a.title === b.title &&
  a.inputSchema === b.inputSchema;

/**
 * Whether two catalogues index alike: the same tools in the same order (name, title,
 * description and input schema object), servers and own names.
 *
 * @param a One catalogue.
 * @param b The other.
 * @returns Whether they are the same.
 */
export function sameEntries(a: readonly IndexedTool[], b: readonly IndexedTool[]): boolean {
  return a.length === b.length &&
    a.every((e, i) =>
      sameTool(e.tool, b[i].tool) && e.server === b[i].server && e.original === b[i].original
    );
}

/**
 * An index kept for a catalogue that changes rarely: built again only when the tools differ
 * (a name, title, description or input schema object) from the last call's.
 *
 * @returns `indexFor(entries)`: the index of these tools.
 */
export function indexCache(): (entries: readonly IndexedTool[]) => ToolIndex {
  let last: readonly IndexedTool[] = [];
  let index: ToolIndex | undefined;
  return (entries) => {
    if (index === undefined || !sameEntries(entries, last)) {
      index = createToolIndex(entries);
      last = entries;
    }
    return index;
  };
}

/**
 * The tool search index behind a lazy hub's `search_tools`: a field-weighted BM25 (BM25F)
 * over each tool's name, title, description, parameter names and their descriptions, and
 * its server's name. The index is built once per catalogue ({@linkcode createToolIndex});
 * each search only reads it.
 *
 * Text is cut into terms ({@linkcode terms}): at non-alphanumerics, camelCase humps and
 * letter–digit boundaries, lower-cased, and reduced by a light English suffix stemmer
 * (plurals, `-ed`, `-ing`, a final `-e`, `-y`/`-i`), so `listIssues`, `list_issue` and
 * "lists issues" meet. Runs of CJK script become overlapping character pairs. No word list
 * is used: common words weigh little through their inverse document frequency.
 *
 * A tool's score for a query is the BM25 sum over the query's distinct terms of
 * `idf(t) · tf'(t) / (k1 + tf'(t))`, where `tf'` adds the term's count in each field times
 * the field's weight, each count normalised by the field's length against its average
 * (per-field `b`). A query that is a tool's name (its hub name or its own name, ignoring
 * case) puts that tool first; `select:a,b` returns the named tools, in that order, and
 * nothing else.
 *
 * @module
 */

import type { Tool } from "../client/types.ts";

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
}

const FIELDS = ["name", "title", "description", "params", "paramText", "server"] as const;
type Field = typeof FIELDS[number];

/** Each field's weight and length normalisation: general settings, not fitted to any data. */
const WEIGHT: Record<Field, number> = {
  name: 3,
  title: 2,
  description: 1,
  params: 1,
  paramText: 0.5,
  server: 1,
};
const B: Record<Field, number> = {
  name: 0.3,
  title: 0.3,
  description: 0.75,
  params: 0.5,
  paramText: 0.75,
  server: 0.3,
};
/** BM25's saturation, at its textbook value (not fitted to any data set). */
const K1 = 1.2;
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

function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/** The most parameters (and nesting) read from one schema: the rest is not indexed. */
const MAX_PARAMS = 64;
const MAX_DEPTH = 3;
/** The most characters of one text indexed (a hostile description stays bounded). */
const MAX_TEXT = 4_096;

const VOWEL = /[aeiouy]/;
const CJK_CLASS = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";
const CJK = new RegExp(`[${CJK_CLASS}]`, "u");
/**
 * One token: a run of CJK; a capitalised or lower-case word (`Issues`, `list`); capitals not
 * followed by lower case (`HTTP` in `HTTPResponse`); other letters; digits.
 */
const TOKEN = new RegExp(
  `[${CJK_CLASS}]+|\\p{Lu}?[\\p{Ll}\\p{M}]+|\\p{Lu}+(?![\\p{Ll}])|[\\p{L}\\p{M}]+|\\p{N}+`,
  "gu",
);
/** Stems of words seen (bounded): the same words recur across a catalogue. */
const STEMS = new Map<string, string>();
const MAX_STEMS = 50_000;

/**
 * A light English stemmer: plural and verb endings, a final `e` and `y`.
 *
 * @param word A lower-case word.
 * @returns Its stem.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word) || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}i`;
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  let cut: string | undefined;
  if (w.endsWith("eed")) cut = undefined;
  else if (w.endsWith("ing") && VOWEL.test(w.slice(0, -3)) && w.length > 5) cut = w.slice(0, -3);
  else if (w.endsWith("ed") && VOWEL.test(w.slice(0, -2)) && w.length > 4) cut = w.slice(0, -2);
  if (cut !== undefined) {
    w = cut;
    if (/([^aeiouslz])\1$/.test(w)) w = w.slice(0, -1);
  }
  if (w.endsWith("y") && w.length > 3 && VOWEL.test(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/**
 * Cuts a text into search terms (see the module's documentation).
 *
 * @param text The text.
 * @param max The most characters read (the rest is not indexed).
 * @returns The terms, in order, repeats kept.
 *
 * @example
 * ```ts
 * import { terms } from "./search.ts";
 *
 * if (terms("listIssues of repos").join() !== "list,issu,of,repo") throw new Error("unexpected");
 * ```
 */
export function terms(text: string, max: number = MAX_TEXT): string[] {
  const out: string[] = [];
  const source = text.length > max ? text.slice(0, max) : text;
  TOKEN.lastIndex = 0;
  for (let found = TOKEN.exec(source); found !== null; found = TOKEN.exec(source)) {
    const token = found[0];
    const first = token.charCodeAt(0);
    if (first >= 0x2e80 && CJK.test(token)) {
      // CJK has no spaces: overlapping pairs of its characters.
      if (token.length === 1) out.push(token);
      else for (let i = 0; i + 1 < token.length; i++) out.push(token.slice(i, i + 2));
      continue;
    }
    const word = token.toLowerCase();
    let stemmed = STEMS.get(word);
    if (stemmed === undefined) {
      stemmed = stem(word);
      if (STEMS.size >= MAX_STEMS) STEMS.clear();
      STEMS.set(word, stemmed);
    }
    out.push(stemmed);
  }
  return out;
}

/** The parameter names and their descriptions of an input schema, bounded. */
function paramsOf(schema: unknown): { names: string[]; texts: string[] } {
  const names: string[] = [];
  const texts: string[] = [];
  const walk = (node: unknown, depth: number) => {
    if (depth > MAX_DEPTH || typeof node !== "object" || node === null) return;
    const properties = (node as Record<string, unknown>).properties;
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return;
    for (const [name, property] of Object.entries(properties)) {
      if (names.length >= MAX_PARAMS) return;
      names.push(name);
      if (typeof property !== "object" || property === null) continue;
      const description = (property as Record<string, unknown>).description;
      if (typeof description === "string") texts.push(description);
      walk(property, depth + 1);
      walk((property as Record<string, unknown>).items, depth + 1);
    }
  };
  walk(schema, 0);
  return { names, texts };
}

const text = (value: unknown) => typeof value === "string" ? value : "";

interface Doc {
  tool: Tool;
  /** Per field (in FIELDS order): its terms. */
  fields: string[][];
  lengths: number[];
  names: string[];
  /** Adjacent pairs of the name's terms (`a b`). */
  pairs: string[];
}

function docOf(entry: IndexedTool): Doc {
  const { tool } = entry;
  const params = paramsOf(tool.inputSchema);
  const own = entry.original ?? tool.name;
  // One text per field: one pass of the tokenizer each.
  const fields = [
    terms(own),
    terms(text(tool.title)),
    terms(text(tool.description)),
    terms(params.names.join(" "), MAX_TEXT),
    terms(params.texts.join(" \n "), 2 * MAX_TEXT),
    terms(entry.server ?? ""),
  ];
  const names = [tool.name.toLowerCase(), own.toLowerCase()];
  const pairs: string[] = [];
  const name = fields[0];
  for (let i = 0; i + 1 < name.length; i++) pairs.push(`${name[i]} ${name[i + 1]}`);
  return { tool, fields, lengths: fields.map((f) => f.length), names, pairs };
}

function matchOf(tool: Tool, score: number): ToolMatch {
  const match: ToolMatch = { name: tool.name, inputSchema: tool.inputSchema, score };
  if (typeof tool.description === "string") match.description = tool.description;
  return match;
}

/**
 * Builds the index over a catalogue.
 *
 * @param entries The tools, each a `Tool` or `{ tool, server, original }`.
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
export function createToolIndex(entries: readonly (Tool | IndexedTool)[]): ToolIndex {
  const docs = entries.map((entry) =>
    docOf("tool" in entry ? entry as IndexedTool : { tool: entry as Tool })
  );
  const n = docs.length;
  const averages = FIELDS.map((_, f) => docs.reduce((sum, d) => sum + d.lengths[f], 0) / (n || 1));
  // term → postings: [doc index, weighted normalised tf] for every doc with the term.
  const postings = new Map<string, { docs: number[]; tfs: number[] }>();
  docs.forEach((doc, i) => {
    const tf = new Map<string, number>();
    FIELDS.forEach((field, f) => {
      const norm = 1 - B[field] + B[field] * (averages[f] === 0 ? 0 : doc.lengths[f] / averages[f]);
      const weight = WEIGHT[field] / norm;
      for (const term of doc.fields[f]) tf.set(term, (tf.get(term) ?? 0) + weight);
    });
    for (const [term, value] of tf) {
      let list = postings.get(term);
      if (list === undefined) postings.set(term, list = { docs: [], tfs: [] });
      list.docs.push(i);
      list.tfs.push(value);
    }
  });
  const byName = new Map<string, number>();
  docs.forEach((doc, i) => {
    for (const name of doc.names) if (!byName.has(name)) byName.set(name, i);
  });
  const scores = new Float64Array(n);
  // The best contribution of one query term (exact or partial) to each tool.
  const best = new Float64Array(n);
  // For partial words and typos, made on the first query that needs them.
  let vocabulary: string[] | undefined;
  let byLength: Map<number, string[]> | undefined;
  const vocabularyOf = () => vocabulary ??= [...postings.keys()].sort();
  const lengthsOf = () => {
    if (byLength !== undefined) return byLength;
    byLength = new Map();
    for (const word of vocabularyOf()) {
      if (word.length < MIN_TYPO - 1) continue;
      const list = byLength.get(word.length);
      if (list === undefined) byLength.set(word.length, [word]);
      else list.push(word);
    }
    return byLength;
  };
  const pairHolders = new Map<string, number[]>();
  docs.forEach((doc, i) => {
    for (const pair of doc.pairs) {
      const list = pairHolders.get(pair);
      if (list === undefined) pairHolders.set(pair, [i]);
      else list.push(i);
    }
  });
  const idfOf = (term: string) => {
    const df = postings.get(term)?.docs.length ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const add = (term: string, factor: number) => {
    const list = postings.get(term);
    if (list === undefined) return;
    const df = list.docs.length;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * factor;
    for (let k = 0; k < df; k++) {
      const tf = list.tfs[k];
      const value = idf * tf / (K1 + tf);
      const i = list.docs[k];
      if (value > best[i]) best[i] = value;
    }
  };

  return {
    size: n,
    search(query, limit) {
      const trimmed = query.trim();
      if (/^select:/i.test(trimmed)) {
        const picked: ToolMatch[] = [];
        const seen = new Set<number>();
        for (const part of trimmed.slice(7).split(",")) {
          const i = byName.get(part.trim().toLowerCase());
          if (i === undefined || seen.has(i) || picked.length >= limit) continue;
          seen.add(i);
          picked.push(matchOf(docs[i].tool, Infinity));
        }
        return picked;
      }
      scores.fill(0);
      const exact = byName.get(trimmed.toLowerCase());
      const asked = terms(trimmed);
      // Two words of the query in a row that are two words of a tool's name in a row: their
      // idfs again, at PARTIAL weight (proximity: `current time` → `get_current_time`).
      for (let k = 0; k + 1 < asked.length; k++) {
        const pair = `${asked[k]} ${asked[k + 1]}`;
        const holders = pairHolders.get(pair);
        if (holders === undefined) continue;
        const bonus = PARTIAL * (idfOf(asked[k]) + idfOf(asked[k + 1]));
        for (const i of holders) scores[i] += bonus;
      }
      for (const term of new Set(asked)) {
        best.fill(0);
        add(term, 1);
        // Partial words, at half weight: a word the term begins (`wiki` → `wikipedia`) or
        // one that begins the term (`repositori` → `repo`), of MIN_PART letters or more.
        if (term.length >= MIN_PART) {
          const words = vocabularyOf();
          for (let i = lowerBound(words, term); i < words.length; i++) {
            const word = words[i];
            if (!word.startsWith(term)) break;
            if (word !== term) add(word, PARTIAL);
          }
          for (let end = MIN_PART; end < term.length; end++) add(term.slice(0, end), PARTIAL);
        }
        // A word no tool has, of MIN_TYPO letters or more: the words one typo away.
        if (term.length >= MIN_TYPO && !postings.has(term)) {
          for (let len = term.length - 1; len <= term.length + 1; len++) {
            for (const word of lengthsOf().get(len) ?? []) {
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
      return ranked.slice(0, limit).map((i) => matchOf(docs[i].tool, scores[i]));
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
 * An index kept for a catalogue that changes rarely: built again only when the tools differ
 * (a name, title, description or input schema object) from the last call's.
 *
 * @returns `indexFor(entries)`: the index of these tools.
 */
export function indexCache(): (entries: readonly IndexedTool[]) => ToolIndex {
  let last: readonly IndexedTool[] = [];
  let index: ToolIndex | undefined;
  return (entries) => {
    const same = index !== undefined && last.length === entries.length &&
      entries.every((e, i) =>
        sameTool(e.tool, last[i].tool) && e.server === last[i].server &&
        e.original === last[i].original
      );
    if (!same) {
      index = createToolIndex(entries);
      last = entries;
    }
    return index!;
  };
}

/**
 * Private: the tool search's inverted index as data. It is built from each tool's terms by
 * field ({@linkcode buildPostings}: BM25F's weighted, length-normalised frequencies), and
 * read back from a store: checked like any stored value before a process searches with it
 * instead of building it (`search.ts` searches it, `_find.ts` stores it), and cut into parts
 * a Deno KV value holds and joined again ({@linkcode indexParts}, {@linkcode joinParts}).
 * Each term's postings are kept as text ({@linkcode postingText}): reading the index back
 * parses strings, not thousands of small arrays, and a search decodes and checks only the
 * postings of the terms it looks up ({@linkcode readPosting}); a malformed one then refuses
 * the whole index ({@linkcode StoredIndexError}), which is built again.
 *
 * @module
 */

import { MAX_FIELD_CHARS } from "./_terms.ts";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A stored index's characters per part (under Deno KV's 64 KiB value limit). */
const PART_CHARS = 30_000;

/** The most characters of postings a stored index may hold (about 2 000 000 postings). */
export const MAX_POSTING_CHARS = 32_000_000;

/** The index as data: what a store keeps and a process reads back instead of building it. */
export interface IndexData {
  /** The format's version (3). */
  v: 3;
  /** How many tools it indexes. */
  n: number;
  /**
   * Each tool's own name as terms (space-joined), by position: what the name-pair bonus
   * reads, so an index read back needs no tool cut again.
   */
  names: string[];
  /** Every term, sorted (code unit order), each once. */
  terms: string[];
  /**
   * For each term, the tools (by position, ascending) that hold it and its weighted
   * normalised frequency in each, as text (`_postings.ts`): a process that reads the index
   * back decodes (and checks) only the terms its searches look up.
   */
  postings: string[];
}

/** The fields of a tool the index reads, in the order of their terms. */
export const FIELDS = ["name", "title", "description", "params", "paramText", "server"] as const;

/** The ranking's settings. */
export interface Settings {
  /** BM25's saturation. */
  k1: number;
  /** Each field's weight, in {@linkcode FIELDS} order. */
  weights: readonly number[];
  /** Each field's length normalisation (BM25's `b`), in {@linkcode FIELDS} order. */
  b: readonly number[];
}

/** The index built from the tools: each term's postings as numbers. */
export interface Built {
  n: number;
  terms: string[];
  lists: Posting[];
}

/**
 * Builds the index data from each tool's terms by field.
 *
 * @param fields For each tool, for each field (in {@linkcode FIELDS} order), its terms.
 * @param settings The weights and `b`s.
 * @returns The data.
 */
export function buildPostings(
  fields: readonly (readonly (readonly string[])[])[],
  settings: Settings,
): Built {
  const n = fields.length;
  const averages = FIELDS.map((_, f) => {
    let sum = 0;
    for (const doc of fields) sum += doc[f].length;
    return sum / (n || 1);
  });
  // One pass: a doc's repeats of a term add to its last posting.
  const postings = new Map<string, { docs: number[]; tfs: number[] }>();
  for (let i = 0; i < n; i++) {
    const doc = fields[i];
    for (let f = 0; f < FIELDS.length; f++) {
      const terms = doc[f];
      const b = settings.b[f];
      const norm = 1 - b + b * (averages[f] === 0 ? 0 : terms.length / averages[f]);
      const weight = settings.weights[f] / norm;
      for (const term of terms) {
        let list = postings.get(term);
        if (list === undefined) postings.set(term, list = { docs: [], tfs: [] });
        const last = list.docs.length - 1;
        if (last >= 0 && list.docs[last] === i) list.tfs[last] += weight;
        else {
          list.docs.push(i);
          list.tfs.push(weight);
        }
      }
    }
  }
  const terms = [...postings.keys()].sort();
  return {
    n,
    terms,
    lists: terms.map((term) => {
      const { docs, tfs } = postings.get(term)!;
      // Four significant digits: a stored index stays small, and ranks as the built one.
      return { docs, tfs: tfs.map((tf) => Number(tf.toPrecision(4))) };
    }),
  };
}

/** One term's postings: the tools (by position, ascending) and the term's weight in each. */
export interface Posting {
  docs: number[];
  tfs: number[];
}

/** Why a stored index is refused, found when one of its postings is first decoded. */
export class StoredIndexError extends Error {
  constructor(readonly reason: string) {
    super(`The stored search index has ${reason}`);
    this.name = "StoredIndexError";
  }
}

/**
 * A posting as text: `tool:weight` pairs, separated by spaces.
 *
 * @param posting The posting.
 * @returns Its text.
 */
export function postingText({ docs, tfs }: Posting): string {
  let text = "";
  for (let k = 0; k < docs.length; k++) text += `${k === 0 ? "" : " "}${docs[k]}:${tfs[k]}`;
  return text;
}

/**
 * Decodes a posting read from a store, checking that each tool is one of the `n` (ascending)
 * and each weight positive and finite: a posting can only lead to a tool of the catalogue
 * searched.
 *
 * @param text The posting's text.
 * @param n How many tools the catalogue has.
 * @returns The posting.
 * @throws {StoredIndexError} When it is malformed.
 */
export function readPosting(text: unknown, n: number): Posting {
  if (typeof text !== "string" || text === "") throw new StoredIndexError("an empty posting");
  const items = text.split(" ");
  const docs: number[] = new Array(items.length), tfs: number[] = new Array(items.length);
  let last = -1;
  for (let k = 0; k < items.length; k++) {
    const item = items[k], at = item.indexOf(":");
    const doc = at > 0 ? Number(item.slice(0, at)) : NaN, tf = Number(item.slice(at + 1));
    if (!Number.isInteger(doc) || doc <= last || doc >= n) {
      throw new StoredIndexError("a posting out of range");
    }
    if (!(tf > 0) || !Number.isFinite(tf)) throw new StoredIndexError("a bad frequency");
    docs[k] = last = doc;
    tfs[k] = tf;
  }
  return { docs, tfs };
}

/**
 * Checks index data read from a store: its shape, a name's terms for each of the `n` tools,
 * that its terms are sorted and distinct, that each has a posting (text, decoded and checked
 * when a search first looks the term up: {@linkcode readPosting}), and its size. A posting
 * can only lead to a tool of the catalogue searched (by position): the data ranks tools, it
 * never names one.
 *
 * @param value What the store returned.
 * @param n How many tools the catalogue it is for has.
 * @returns The data, or why it is refused.
 */
export function checkIndexData(value: unknown, n: number): IndexData | string {
  if (typeof value !== "object" || value === null) return "not an object";
  const { v, n: count, names, terms, postings } = value as Record<string, unknown>;
  if (v !== 3) return "an unknown version";
  if (count !== n) return "another number of tools";
  if (
    !Array.isArray(names) || names.length !== n ||
    !names.every((name) => typeof name === "string" && name.length <= MAX_FIELD_CHARS)
  ) {
    return "no valid names";
  }
  if (!Array.isArray(terms) || !Array.isArray(postings)) return "no postings";
  if (postings.length !== terms.length) return "uneven postings";
  let total = 0;
  let previous = "";
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t], posting = postings[t];
    if (typeof term !== "string" || term === "" || (t > 0 && !(term > previous))) {
      return "terms out of order";
    }
    previous = term;
    if (typeof posting !== "string" || posting === "") return "an empty posting";
    total += posting.length;
    if (total > MAX_POSTING_CHARS) return "too many postings";
  }
  return value as IndexData;
}

/**
 * One part of a stored index: a run of its terms (space-joined) with their postings
 * (`|`-joined, in the same order), and a run of names. A run is one string, so reading a
 * part back parses three strings, not thousands, and joining the parts splits them natively.
 */
export interface IndexPart {
  t: string;
  p: string;
  m: string[];
}

/** The most postings of one term in one part (a longer list goes on in the next part). */
const PART_POSTINGS = 800;

/**
 * Cuts index data into parts of about {@linkcode PART_CHARS} characters as JSON, in order:
 * the terms with their postings (a term with more than {@linkcode PART_POSTINGS} in runs,
 * the same term again at the head of each part it goes on in), then the names.
 */
export function indexParts(data: IndexData): IndexPart[] {
  const parts: IndexPart[] = [];
  let terms: string[] = [], postings: string[] = [], names: string[] = [];
  let chars = 0;
  const room = (size: number) => {
    if (chars > 0 && chars + size > PART_CHARS) {
      parts.push({ t: terms.join(" "), p: postings.join("|"), m: names });
      terms = [];
      postings = [];
      names = [];
      chars = 0;
    }
    chars += size;
  };
  for (let t = 0; t < data.terms.length; t++) {
    const term = data.terms[t], items = data.postings[t].split(" ");
    for (let k = 0; k < items.length; k += PART_POSTINGS) {
      const run = items.slice(k, k + PART_POSTINGS).join(" ");
      room(term.length + run.length + 2);
      // Runs of one term in one part are one run: only a part's first term repeats the last.
      if (k > 0 && terms.length > 0) postings[postings.length - 1] += ` ${run}`;
      else {
        terms.push(term);
        postings.push(run);
      }
    }
  }
  for (const name of data.names) {
    room(JSON.stringify(name).length + 1);
    names.push(name);
  }
  parts.push({ t: terms.join(" "), p: postings.join("|"), m: names });
  return parts;
}

/**
 * Joins the parts read back into index data (unchecked: `checkIndexData` checks it), a
 * term repeated at the head of a run joined to its postings before; `undefined` when a part
 * is not one.
 */
export function joinParts(head: Record<string, unknown>, parts: readonly unknown[]): unknown {
  let terms: string[] = [], postings: string[] = [], names: unknown[] = [];
  for (const part of parts) {
    if (!isRecord(part)) return undefined;
    const { t, p, m } = part;
    if (typeof t !== "string" || typeof p !== "string" || !Array.isArray(m)) return undefined;
    const more = t === "" ? [] : t.split(" "), runs = p === "" ? [] : p.split("|");
    if (more.length !== runs.length) return undefined;
    const last = terms.length - 1;
    if (more.length > 0 && last >= 0 && more[0] === terms[last]) {
      postings[last] = `${postings[last]} ${runs[0]}`;
      more.shift();
      runs.shift();
    }
    terms = terms.concat(more);
    postings = postings.concat(runs);
    names = names.concat(m);
  }
  return { v: head.v, n: head.n, names, terms, postings };
}

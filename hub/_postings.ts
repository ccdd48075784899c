/**
 * Private: the tool search's inverted index as data read back from a store
 * ({@linkcode checkIndexData}): checked like any stored value before a process searches with
 * it instead of building it (`search.ts` builds it, `_find.ts` stores it), and cut into parts
 * a Deno KV value holds and joined again ({@linkcode indexParts}, {@linkcode joinParts}).
 *
 * @module
 */

import type { IndexData } from "./search.ts";
import { MAX_FIELD_CHARS } from "./_terms.ts";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A stored index's characters per part (under Deno KV's 64 KiB value limit). */
const PART_CHARS = 30_000;

/** The most postings (term and tool pairs) a stored index may hold. */
export const MAX_POSTINGS = 2_000_000;

/**
 * Checks index data read from a store: its shape, a name's terms for each of the `n` tools,
 * that its terms are sorted and distinct, that each posting names one of the `n` tools
 * (ascending) with a positive finite frequency, and its size. A posting can only lead to a
 * tool of the catalogue searched (by position): the data ranks tools, it never names one.
 *
 * @param value What the store returned.
 * @param n How many tools the catalogue it is for has.
 * @returns The data, or why it is refused.
 */
export function checkIndexData(value: unknown, n: number): IndexData | string {
  if (typeof value !== "object" || value === null) return "not an object";
  const { v, n: count, names, terms, docs, tfs } = value as Record<string, unknown>;
  if (v !== 2) return "an unknown version";
  if (count !== n) return "another number of tools";
  if (
    !Array.isArray(names) || names.length !== n ||
    !names.every((name) => typeof name === "string" && name.length <= MAX_FIELD_CHARS)
  ) {
    return "no valid names";
  }
  if (!Array.isArray(terms) || !Array.isArray(docs) || !Array.isArray(tfs)) return "no postings";
  if (docs.length !== terms.length || tfs.length !== terms.length) return "uneven postings";
  let total = 0;
  let previous = "";
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t];
    if (typeof term !== "string" || term === "" || (t > 0 && !(term > previous))) {
      return "terms out of order";
    }
    previous = term;
    const list = docs[t], weights = tfs[t];
    if (!Array.isArray(list) || !Array.isArray(weights) || list.length !== weights.length) {
      return "uneven postings";
    }
    if (list.length === 0) return "an empty posting";
    total += list.length;
    if (total > MAX_POSTINGS) return "too many postings";
    let last = -1;
    for (let k = 0; k < list.length; k++) {
      const doc = list[k], tf = weights[k];
      if (!Number.isInteger(doc) || doc <= last || doc >= n) return "a posting out of range";
      if (typeof tf !== "number" || !(tf > 0) || !Number.isFinite(tf)) return "a bad frequency";
      last = doc;
    }
  }
  return value as IndexData;
}

/** One part of a stored index: a run of its terms with their postings, and a run of names. */
export interface IndexPart {
  t: string[];
  d: number[][];
  f: number[][];
  m: string[];
}

/** The most postings of one term in one part (a longer list goes on in the next part). */
const PART_POSTINGS = 800;

/**
 * Cuts index data into parts of about {@linkcode PART_CHARS} characters as JSON, in order:
 * the terms with their postings (a term with more than {@linkcode PART_POSTINGS} in runs,
 * the same term again at the head of each), then the names.
 */
export function indexParts(data: IndexData): IndexPart[] {
  const parts: IndexPart[] = [];
  let part: IndexPart = { t: [], d: [], f: [], m: [] };
  let chars = 0;
  const room = (size: number) => {
    if (chars > 0 && chars + size > PART_CHARS) {
      parts.push(part);
      part = { t: [], d: [], f: [], m: [] };
      chars = 0;
    }
    chars += size;
  };
  for (let t = 0; t < data.terms.length; t++) {
    const term = data.terms[t], docs = data.docs[t], tfs = data.tfs[t];
    for (let k = 0; k < docs.length; k += PART_POSTINGS) {
      const d = docs.slice(k, k + PART_POSTINGS), f = tfs.slice(k, k + PART_POSTINGS);
      room(term.length + JSON.stringify(d).length + JSON.stringify(f).length + 6);
      part.t.push(term);
      part.d.push(d);
      part.f.push(f);
    }
  }
  for (const name of data.names) {
    room(JSON.stringify(name).length + 1);
    part.m.push(name);
  }
  parts.push(part);
  return parts;
}

/**
 * Joins the parts read back into index data (unchecked: `checkIndexData` checks it), a
 * term repeated at the head of a run joined to its postings before; `undefined` when a part
 * is not one.
 */
export function joinParts(head: Record<string, unknown>, parts: readonly unknown[]): unknown {
  const terms: unknown[] = [], docs: unknown[][] = [], tfs: unknown[][] = [], names: unknown[] = [];
  const joined = new Set<number>();
  for (const part of parts) {
    if (!isRecord(part)) return undefined;
    const { t, d, f, m } = part;
    if (
      !Array.isArray(t) || !Array.isArray(d) || !Array.isArray(f) || !Array.isArray(m) ||
      d.length !== t.length || f.length !== t.length
    ) {
      return undefined;
    }
    for (let i = 0; i < t.length; i++) {
      const last = terms.length - 1;
      if (
        last >= 0 && t[i] === terms[last] && Array.isArray(d[i]) && Array.isArray(f[i]) &&
        Array.isArray(docs[last]) && Array.isArray(tfs[last])
      ) {
        // Copied once before the first run is added (the store's value is read-only).
        if (!joined.has(last)) {
          joined.add(last);
          docs[last] = [...docs[last]];
          tfs[last] = [...tfs[last]];
        }
        for (const doc of d[i]) docs[last].push(doc);
        for (const tf of f[i]) tfs[last].push(tf);
      } else {
        terms.push(t[i]);
        docs.push(d[i]);
        tfs.push(f[i]);
      }
    }
    for (const name of m) names.push(name);
  }
  return { v: head.v, n: head.n, names, terms, docs, tfs };
}

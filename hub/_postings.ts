/**
 * Private: the tool search's inverted index as data read back from a store
 * ({@linkcode checkIndexData}): checked like any stored value before a process searches with
 * it instead of building it (`search.ts` builds it, `_find.ts` stores it).
 *
 * @module
 */

import type { IndexData } from "./search.ts";
import { MAX_FIELD_CHARS } from "./_terms.ts";

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

/**
 * Private: the lookups a tool index answers a search with beside its postings: a term's
 * position, the tool a query names, the tools whose names hold two words in a row, and the
 * words of a length (for typos). The first search scans for what it asks (an index read back
 * from a store is ready at once, and one search over a catalogue of hundreds of tools costs
 * less than the tables), and the tables are made for the searches after it ({@linkcode
 * Lookups.tables}).
 *
 * @module
 */

import type { Tool } from "../client/types.ts";

/** What an index looks up. */
export interface Lookups {
  /** The position of a term among the sorted terms, or `undefined`. */
  positionOf(term: string): number | undefined;
  /** The first tool whose hub or own name is `lower` (lower-cased), or `undefined`. */
  named(lower: string): number | undefined;
  /** The tools whose names hold the words of `pair` (`a b`) in a row, ascending. */
  holdersOf(pair: string): readonly number[];
  /** The words of `length` letters. */
  wordsOfLength(length: number): readonly string[];
  /** Makes the tables (for the searches after the first). */
  tables(): void;
}

/** Whether space-joined `words` hold `run` (space-joined words) as whole words, in a row. */
function holdsWords(words: string, run: string): boolean {
  // By position, not by padding each name with spaces: no string is made per name.
  for (let at = words.indexOf(run); at !== -1; at = words.indexOf(run, at + 1)) {
    const end = at + run.length;
    if (
      (at === 0 || words.charCodeAt(at - 1) === 32) &&
      (end === words.length || words.charCodeAt(end) === 32)
    ) {
      return true;
    }
  }
  return false;
}

/** The first index at which `value` could be inserted in `sorted` (code unit order). */
export function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The lookups of an index.
 *
 * @param words Every term, sorted.
 * @param names Each tool's own name as terms (space-joined), by position.
 * @param namesOf A tool's hub name and own name, by position.
 * @param n How many tools.
 * @returns The lookups.
 */
export function createLookups(
  words: readonly string[],
  names: readonly string[],
  namesOf: (i: number) => readonly string[],
  n: number,
): Lookups {
  let positions: Map<string, number> | undefined;
  let byName: Map<string, number> | undefined;
  let pairs: Map<string, number[]> | undefined;
  let byLength: Map<number, string[]> | undefined;
  return {
    positionOf(term) {
      if (positions !== undefined) return positions.get(term);
      const t = lowerBound(words, term);
      return words[t] === term ? t : undefined;
    },
    named(lower) {
      if (byName !== undefined) return byName.get(lower);
      for (let i = 0; i < n; i++) {
        for (const name of namesOf(i)) if (name.toLowerCase() === lower) return i;
      }
      return undefined;
    },
    holdersOf(pair) {
      if (pairs !== undefined) return pairs.get(pair) ?? [];
      const holders: number[] = [];
      for (let i = 0; i < n; i++) if (holdsWords(names[i], pair)) holders.push(i);
      return holders;
    },
    wordsOfLength(length) {
      if (byLength === undefined) {
        byLength = new Map();
        for (const word of words) {
          const list = byLength.get(word.length);
          if (list === undefined) byLength.set(word.length, [word]);
          else list.push(word);
        }
      }
      return byLength.get(length) ?? [];
    },
    tables() {
      positions = new Map();
      for (let t = 0; t < words.length; t++) positions.set(words[t], t);
      byName = new Map();
      for (let i = 0; i < n; i++) {
        for (const name of namesOf(i)) {
          const lower = name.toLowerCase();
          if (!byName.has(lower)) byName.set(lower, i);
        }
      }
      pairs = new Map();
      for (let i = 0; i < n; i++) {
        const name = names[i] === "" ? [] : names[i].split(" ");
        for (let k = 0; k + 1 < name.length; k++) {
          const pair = `${name[k]} ${name[k + 1]}`;
          const list = pairs.get(pair);
          if (list === undefined) pairs.set(pair, [i]);
          else if (list[list.length - 1] !== i) list.push(i);
        }
      }
    },
  };
}

/** A tool's names for {@linkcode createLookups}: its hub name, then its own. */
export const toolNames = (tool: Tool, original: string | undefined): readonly string[] => [
  tool.name,
  original ?? tool.name,
];

/**
 * A bounded memo of what a header name is, for the checks every request repeats on
 * the same few names (its lower case, whether it carries a credential). Names can come from a
 * server (a tool's parameter headers), so at most `max` are kept: past that the memo starts
 * afresh. Names only, never values: nothing secret is kept.
 *
 * @module
 */

/** A memoized function of a name, and how many names it holds. */
export interface NameMemo<T> {
  (name: string): T;
  /** How many names are remembered (at most the memo's `max`). */
  size(): number;
}

/**
 * Remembers `compute(name)` for each name seen, at most `max` names at a time.
 *
 * @param compute What a name is (pure: the same name, the same answer).
 * @param max The most names kept.
 * @returns The memoized function.
 *
 * @example
 * ```ts
 * import { nameMemo } from "./name_memo.ts";
 *
 * const lower = nameMemo((name) => name.toLowerCase(), 2);
 * for (const name of ["A", "B", "C", "A"]) lower(name);
 * if (lower("Mcp-Name") !== "mcp-name" || lower.size() > 2) throw new Error("unexpected");
 * ```
 */
export function nameMemo<T>(compute: (name: string) => T, max = 256): NameMemo<T> {
  const known = new Map<string, T>();
  const memo = (name: string): T => {
    const hit = known.get(name);
    if (hit !== undefined || known.has(name)) return hit as T;
    const value = compute(name);
    if (known.size >= max) known.clear();
    known.set(name, value);
    return value;
  };
  return Object.assign(memo, { size: () => known.size });
}

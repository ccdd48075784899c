/**
 * Name patterns: an exact name, or a glob where `*` stands for any run of characters
 * (`"fs_*"`, `"*_delete"`, `"*"`). Nothing else is special, so tool names with dots, dashes
 * or slashes match as written.
 *
 * @module
 */

/** A tool, server, principal, prompt or URI pattern: a name, or a glob with `*`. */
export type Pattern = string;

/** Answers whether a name matches. */
export type Matcher = (name: string) => boolean;

const REGEX_SPECIAL = /[.+?^${}()|[\]\\]/g;

/**
 * A matcher for one pattern (`*` matches any run of characters, including none).
 *
 * @param pattern The name or glob.
 * @returns The matcher.
 *
 * @example
 * ```ts
 * import { patternMatcher } from "./glob.ts";
 *
 * const deletes = patternMatcher("*_delete");
 * if (!deletes("file_delete") || deletes("file_read")) throw new Error("unexpected");
 * ```
 */
export function patternMatcher(pattern: Pattern): Matcher {
  if (!pattern.includes("*")) return (name) => name === pattern;
  if (pattern === "*") return () => true;
  const source = pattern.split("*").map((part) => part.replace(REGEX_SPECIAL, "\\$&")).join(
    ".*",
  );
  const regex = new RegExp(`^${source}$`, "s");
  return (name) => regex.test(name);
}

/**
 * A matcher for a list of patterns: a name matches when one of them does.
 *
 * @param patterns The names and globs.
 * @returns The matcher.
 */
export function anyMatcher(patterns: readonly Pattern[]): Matcher {
  const exact = new Set(patterns.filter((p) => !p.includes("*")));
  const globs = patterns.filter((p) => p.includes("*")).map(patternMatcher);
  if (globs.length === 0) return (name) => exact.has(name);
  return (name) => exact.has(name) || globs.some((match) => match(name));
}

export { patternList } from "./check.ts";

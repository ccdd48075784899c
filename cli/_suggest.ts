/**
 * "Did you mean …?" for what a person typed: a command, a flag, a tool, prompt or server
 * name. The library's one nearest-name rule (the one its option checks use), so the CLI and
 * the library suggest alike. Pure.
 *
 * @module
 */

import { nearest } from "../protocol/option_keys.ts";

/**
 * ` (did you mean X?)` when one of `names` is close to `word`, else `""`.
 *
 * @param word What was typed.
 * @param names What it may stand for.
 * @returns The hint, with its leading space, or an empty string.
 *
 * @example
 * ```ts
 * import { didYouMean } from "./_suggest.ts";
 *
 * if (didYouMean("tool", ["tools", "call"]) !== " (did you mean tools?)") throw new Error();
 * if (didYouMean("xyz", ["tools", "call"]) !== "") throw new Error();
 * ```
 */
export function didYouMean(word: string, names: Iterable<string>): string {
  const near = nearest(word, names);
  return near === undefined ? "" : ` (did you mean ${near}?)`;
}

/**
 * The size of a value as its JSON text, the measure the memory bounds count in (the memory
 * store, a notification iterator's buffer, one listing's items). Pure.
 *
 * @module
 */

/** What a JSON string escapes: quotes, backslashes, control characters, surrogates. */
// deno-lint-ignore no-control-regex -- control characters are what a JSON string escapes
const ESCAPED = /["\\\x00-\x1F\uD800-\uDFFF]/;

/**
 * The length of `value`'s JSON text, in UTF-16 code units; a value that is not JSON (a
 * cycle, a `BigInt`, `undefined`) counts as 0.
 *
 * @param value Any value.
 * @returns The length.
 *
 * @example
 * ```ts
 * import { jsonLength } from "./json_length.ts";
 *
 * if (jsonLength({ a: 1 }) !== 7 || jsonLength(undefined) !== 0) throw new Error("unexpected");
 * ```
 */
export function jsonLength(value: unknown): number {
  if (typeof value === "string") {
    // Counted where it is: a slice of a longer text (a spilled result's chunk) is read, not
    // copied, as `JSON.stringify` could make the engine do; most often by one regular
    // expression (nothing to escape), as a loop over its characters leaves garbage on Bun.
    if (!ESCAPED.test(value)) return value.length + 2;
    let length = value.length + 2;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code === 34 || code === 92) length++; // \" and \\
      // A control character or a surrogate (rare): written, to count its escape exactly.
      else if (code < 32 || code >> 11 === 27) return JSON.stringify(value).length;
    }
    return length;
  }
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

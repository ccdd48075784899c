/**
 * The size of a value as its JSON text, the measure the memory bounds count in (the memory
 * store, a notification iterator's buffer, one listing's items). Pure.
 *
 * @module
 */

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
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

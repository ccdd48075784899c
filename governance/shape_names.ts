/**
 * The names and limits of shaping, apart from its code so that checking a `shape` option
 * or naming the `read_result` meta-tool loads none of it: the default and the least
 * budget, their check, and the meta-tool's name (its one definition, for the hub's
 * catalogue, the kits and the spill code).
 *
 * @module
 */

/** The default `maxChars` of a shaped result. */
export const DEFAULT_MAX_CHARS = 8_000;

/** The smallest `maxChars`: room for the line naming a cut and some text around it. */
export const MIN_MAX_CHARS = 200;

/** The name of the meta-tool that reads a spilled result (listed when spilling is on). */
export const READ_RESULT = "read_result";

/**
 * Checks a `maxChars` value.
 *
 * @param value The value given.
 * @param where What it is, for the message (e.g. `option "maxChars"`).
 * @returns The value, or the default when `undefined`.
 * @throws {TypeError} Unless a whole number of at least {@linkcode MIN_MAX_CHARS}.
 */
export function checkMaxChars(value: unknown, where = 'option "maxChars"'): number {
  if (value === undefined) return DEFAULT_MAX_CHARS;
  if (!Number.isSafeInteger(value) || (value as number) < MIN_MAX_CHARS) {
    throw new TypeError(`${where} must be a whole number of characters, at least ${MIN_MAX_CHARS}`);
  }
  return value as number;
}

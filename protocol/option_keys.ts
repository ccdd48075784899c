/**
 * Private: the one check of an options object's keys, shared by every function that takes
 * options (the client, its request methods, the transports, the OAuth forms). An unknown
 * key — a typo, or an option of another function — is a `TypeError` naming it, never
 * silently ignored. Pure: no I/O.
 *
 * @module
 */

/**
 * Throws a `TypeError` naming the first own enumerable key of `value` that `known` lacks,
 * with the known key it most likely stands for. Anything but a plain object is returned
 * as is (the caller's own checks reject it with a better message).
 *
 * @param value The caller's options.
 * @param known Every key the options object may have.
 * @param where Which options these are, for the message (e.g. `"stdio options"`).
 * @returns `value`, unchanged.
 * @throws {TypeError} `Unknown option "…" in <where>`, with a suggestion when one is close.
 *
 * @example
 * ```ts
 * import { checkKeys } from "./option_keys.ts";
 *
 * checkKeys({ timeout: 5 }, ["timeout", "signal"], "request options");
 * try {
 *   checkKeys({ timout: 5 }, ["timeout", "signal"], "request options");
 *   throw new Error("expected a TypeError");
 * } catch (error) {
 *   if (!(error instanceof TypeError) || !error.message.includes('"timout"')) throw error;
 * }
 * ```
 */
export function checkKeys<T>(value: T, known: Iterable<string>, where: string): T {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  // Checked on every request: no set is built unless a key is unknown (options are small).
  const has = known instanceof Set
    ? (key: string) => (known as Set<string>).has(key)
    : Array.isArray(known)
    ? (key: string) => (known as readonly string[]).includes(key)
    : undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (has !== undefined ? has(key) : new Set(known).has(key)) continue;
    const names = new Set(known);
    const near = nearest(key, names);
    const hint = near === undefined ? "" : ` (did you mean "${near}"?)`;
    throw new TypeError(`Unknown option ${JSON.stringify(key)} in ${where}${hint}`);
  }
  return value;
}

/**
 * The known name `key` most likely misspells: the same letters in another case, or at most
 * two edits off (fewer for a short key); `undefined` when none is that close.
 *
 * @param key What was given.
 * @param names The names it may stand for.
 * @returns The closest name, or `undefined`.
 *
 * @example
 * ```ts
 * import { nearest } from "./option_keys.ts";
 *
 * if (nearest("tool", ["tools", "servers"]) !== "tools") throw new Error();
 * if (nearest("frob", ["tools", "servers"]) !== undefined) throw new Error();
 * ```
 */
export function nearest(key: string, names: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(key.length / 3));
  for (const name of names) {
    if (name.toLowerCase() === key.toLowerCase()) return name;
    const distance = editDistance(key, name, bestDistance);
    if (distance <= bestDistance && (best === undefined || distance < bestDistance)) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, or more than `limit` as soon as it must exceed it. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
    }
    if (Math.min(...row) > limit) return limit + 1;
    previous = row;
  }
  return previous[b.length];
}

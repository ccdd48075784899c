/**
 * Private: a bound on how much a value read from a store holds, without writing it as JSON
 * (a stored catalogue is checked on every read, and `JSON.stringify` of a 500-tool
 * catalogue costs more than the rest of its check). Pure.
 *
 * @module
 */

/**
 * Whether `value` holds more than `limit` characters, counted as its JSON text would be
 * without escapes: each string's length and its quotes, each key, a number's digits (at most
 * 24), and a character per comma, colon and bracket. The walk keeps its own stack (deep
 * nesting cannot overflow the call stack) and stops as soon as the count passes `limit`.
 *
 * @param value A value parsed from JSON (a store's value).
 * @param limit The most characters allowed.
 * @returns `true` when the value holds more.
 *
 * @example
 * ```ts
 * import { holdsMore } from "./_size.ts";
 *
 * if (!holdsMore({ a: "x".repeat(100) }, 50) || holdsMore({ a: 1 }, 50)) throw new Error("unexpected");
 * ```
 */
export function holdsMore(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") count += item.length + 2;
    else if (typeof item === "number") count += Math.min(24, String(item).length);
    else if (typeof item !== "object" || item === null) count += 5; // true, false, null
    else if (Array.isArray(item)) {
      count += 1 + item.length;
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    } else {
      count += 1;
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        count += key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
    if (count > limit) return true;
  }
  return false;
}

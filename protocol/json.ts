/**
 * The JSON object helpers the protocol's readers and the client's modules share: what every
 * reader of a message asks first (is this an object?), and a write that takes any key.
 *
 * @module
 */

/** A JSON object, as read off the wire (its values not yet checked). */
export type JsonObject = Record<string, unknown>;

/**
 * Whether `value` is a JSON object (not `null`, not an array).
 *
 * @param value Anything.
 * @returns `true` for a plain object.
 */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sets an own, enumerable property, even one named `__proto__`.
 *
 * @param target The object.
 * @param key The property.
 * @param value Its value.
 */
export function put(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

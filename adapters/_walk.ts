/**
 * Private: the one walk over a JSON Schema's subschemas that every pass of the dialect
 * compiler shares. It knows which keywords hold schemas (so `enum`, `const`, `default` and
 * `examples` values, and property names, are never taken for schemas), and copies instead
 * of mutating. Pure.
 *
 * @module
 */

import { isObject } from "../protocol/json.ts";

/** A JSON Schema object (boolean schemas are normalised to objects by {@linkcode asSchema}). */
export type JsonSchema = Record<string, unknown>;

/** Keywords whose value is one schema. */
const ONE = [
  "additionalProperties",
  "items",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
];
/** Keywords whose value is a list of schemas. */
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const MAP = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/**
 * A schema as an object: `true` is `{}`, `false` is `{ not: {} }`, anything else that is
 * not an object is `{}`.
 *
 * @param value A schema or boolean schema.
 * @returns An object schema.
 */
export function asSchema(value: unknown): JsonSchema {
  if (value === false) return { not: {} };
  return isObject(value) ? value : {};
}

/**
 * A shallow copy of `schema` with each direct subschema replaced by `visit(sub, path)`;
 * `path` is the keyword path from `schema` (e.g. `["properties", "name"]`). Boolean
 * subschemas are kept as they are where a keyword allows them (`additionalProperties:
 * false`), and passed on as objects elsewhere.
 *
 * @param schema The schema.
 * @param visit Maps one subschema.
 * @returns The new schema.
 */
export function mapSubschemas(
  schema: JsonSchema,
  visit: (sub: JsonSchema, path: string[]) => unknown,
): JsonSchema {
  const out: JsonSchema = { ...schema };
  for (const key of ONE) {
    const sub = schema[key];
    if (typeof sub === "boolean") continue;
    // Draft-07 tuples: `items` as a list.
    if (key === "items" && Array.isArray(sub)) {
      out[key] = sub.map((item, i) => visit(asSchema(item), [key, String(i)]));
    } else if (isObject(sub)) out[key] = visit(sub, [key]);
  }
  for (const key of LIST) {
    const subs = schema[key];
    if (Array.isArray(subs)) out[key] = subs.map((s, i) => visit(asSchema(s), [key, String(i)]));
  }
  for (const key of MAP) {
    const subs = schema[key];
    if (!isObject(subs)) continue;
    const mapped: JsonSchema = {};
    for (const [name, sub] of Object.entries(subs)) {
      mapped[name] = visit(asSchema(sub), [key, name]);
    }
    out[key] = mapped;
  }
  return out;
}

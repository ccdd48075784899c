/**
 * Private: the way back from a strict schema. Strict mode makes every property required and
 * the optional ones nullable, so a model says "left out" with `null`; a {@linkcode Plan}
 * remembers, per object, which properties that was done to, and {@linkcode restore} turns
 * the model's arguments back into the shape the tool's own schema describes (a `null` for
 * a property that was optional, and did not take `null`, is removed), recursively. Pure.
 *
 * @module
 */

import { isObject } from "../protocol/json.ts";

/** How to map a value of one strict schema back to its original shape. */
export interface Plan {
  /** The properties made nullable that did not take `null` before: `null` means absent. */
  nulls?: string[];
  /** The plans of the properties that have something to restore. */
  properties?: Record<string, Plan>;
  /** The plan of every item of an array. */
  items?: Plan;
  /** The plans of `anyOf` branches, with what tells them apart. */
  anyOf?: { match: Match; plan?: Plan }[];
}

/** What a value of an `anyOf` branch looks like. */
export interface Match {
  /** The JSON types of the branch (`object`, `array`, …), empty when it does not say. */
  types: string[];
  /** For an object branch: its property names (a strict object has them all). */
  keys?: string[];
}

/** The JSON type of a value, as JSON Schema names it. */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Whether `value` fits a branch's match. */
function fits(value: unknown, match: Match): boolean {
  const type = jsonType(value);
  const typed = match.types.length === 0 || match.types.includes(type) ||
    (type === "integer" && match.types.includes("number"));
  if (!typed) return false;
  if (match.keys === undefined || !isObject(value)) return true;
  const keys = Object.keys(value);
  return keys.length === match.keys.length && keys.every((k) => match.keys!.includes(k));
}

/**
 * Maps a model's value of a strict schema back to the original shape.
 *
 * @param value The model's value (not changed).
 * @param plan The schema's plan; `undefined` when there is nothing to restore.
 * @returns The value in the original shape.
 */
export function restore(value: unknown, plan: Plan | undefined): unknown {
  if (plan === undefined) return value;
  if (plan.anyOf !== undefined) {
    const branch = plan.anyOf.find((b) => fits(value, b.match));
    return branch === undefined ? value : restore(value, branch.plan);
  }
  if (Array.isArray(value)) {
    return plan.items === undefined ? value : value.map((item) => restore(item, plan.items));
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null && plan.nulls?.includes(key)) continue;
    out[key] = restore(member, plan.properties?.[key]);
  }
  return out;
}

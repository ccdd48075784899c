/**
 * The type algebra of `emit-ts`'s schema compiler: a type's text with how it binds, and the
 * union, intersection, literal and array of types, simplified as they are made. Pure.
 *
 * @module
 */

import { tsString } from "./_names.ts";

/** A type's text and how it binds: 0 a union, 1 an intersection, 2 an atom. */
export interface TsType {
  text: string;
  prec: 0 | 1 | 2;
  /** Whether every value of it is an object (so it can be a tool's arguments). */
  obj: boolean;
  /** Whether it has a required property (so `{}` may not be one). */
  req: boolean;
  /** A union's members, as written between its `|`s. */
  members?: string[];
}

/** A type that binds tightest (a name, a literal, a parenthesised or bracketed type). */
export const atom = (text: string, obj = false, req = false): TsType => ({
  text,
  prec: 2,
  obj,
  req,
});
/** What any value is. */
export const UNKNOWN: TsType = atom("unknown");
/** What no value is. */
export const NEVER: TsType = atom("never");

/** The union of `parts` (deduplicated; `unknown` absorbs, `never` vanishes). */
export function union(parts: readonly TsType[]): TsType {
  const seen = new Map<string, TsType>();
  const add = (part: TsType) => {
    if (part.text !== "never" && !seen.has(part.text)) seen.set(part.text, part);
  };
  for (const part of parts) {
    if (part.text === "unknown") return UNKNOWN;
    // A union in a union is its members.
    if (part.prec === 0 && part.members !== undefined) {
      for (const text of part.members) add({ ...part, text, prec: 1, members: undefined });
    } else add(part);
  }
  const kept = [...seen.values()];
  if (kept.length === 0) return NEVER;
  if (kept.length === 1) return kept[0];
  const members = kept.map((p) => p.prec === 0 ? `(${p.text})` : p.text);
  return {
    text: members.join(" | "),
    prec: 0,
    obj: kept.every((p) => p.obj),
    req: kept.some((p) => p.req),
    members,
  };
}

/** The intersection of `parts` (deduplicated; `unknown` vanishes, `never` absorbs). */
export function intersection(parts: readonly TsType[]): TsType {
  const seen = new Map<string, TsType>();
  for (const part of parts) {
    if (part.text === "never") return NEVER;
    if (part.text !== "unknown" && !seen.has(part.text)) seen.set(part.text, part);
  }
  const kept = [...seen.values()];
  if (kept.length === 0) return UNKNOWN;
  if (kept.length === 1) return kept[0];
  return {
    text: kept.map((p) => p.prec === 0 ? `(${p.text})` : p.text).join(" & "),
    prec: 1,
    obj: kept.some((p) => p.obj),
    req: kept.some((p) => p.req),
  };
}

/** A JSON value as a literal type (`unknown` for objects and arrays). */
export function literal(value: unknown): TsType {
  if (typeof value === "string") return atom(tsString(value));
  if (typeof value === "number" && Number.isFinite(value)) {
    return { text: String(value), prec: value < 0 ? 1 : 2, obj: false, req: false };
  }
  if (typeof value === "boolean" || value === null) return atom(String(value));
  return UNKNOWN;
}

/** `T[]`, with parentheses when `T` is a union or an intersection. */
export function arrayOf(type: TsType): string {
  return type.prec === 2 ? `${type.text}[]` : `(${type.text})[]`;
}

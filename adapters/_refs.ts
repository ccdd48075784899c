/**
 * Private: `$ref`s inlined. Model APIs take one self-contained schema per tool, and several
 * (or their strict modes) refuse references, so each local reference (`#`, `#/$defs/…`,
 * `#/definitions/…`, any JSON pointer into the same document) is replaced by a copy of its
 * target, merged with the keywords beside it. A recursive reference is inlined a bounded
 * number of times, then left as an open schema that says so; a reference outside the
 * document is left open too. Both are reported, so strict mode can turn itself off for the
 * tool. Inlining is bounded: a schema whose inlined form would pass {@linkcode MAX_INLINED}
 * subschemas (a few lines of `$defs` that refer to each other twice per level double at
 * every level) is given back as it was, references kept, and reported `too large`, so the
 * tool goes without strict mode instead of the host spending its memory on it. Pure.
 *
 * @module
 */

import { isObject } from "../protocol/json.ts";
import { asSchema, type JsonSchema, mapSubschemas } from "./_walk.ts";

/** How many times one reference may be open inside itself before the inlining stops. */
export const RECURSION_LIMIT = 2;

/** The most subschemas one tool's inlined schema may hold. */
export const MAX_INLINED = 10_000;

/** Thrown inside the walk when the bound is passed. */
const TOO_LARGE = Symbol("too large");

/** What inlining gave: the schema, and what could not be inlined. */
export interface Inlined {
  /** The schema without `$ref`, `$defs` or `definitions`. */
  schema: JsonSchema;
  /** One line per reference left open (`recursive …`, `unresolved …`). */
  open: string[];
}

/** Keywords dropped with the references: containers and identifiers no target needs now. */
const DROPPED = ["$defs", "definitions", "$id", "$schema", "$anchor", "$dynamicAnchor"];

/** Resolves a local JSON pointer (`#/a/b`, `~0`/`~1` and percent escapes) in `root`. */
function resolve(root: JsonSchema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return typeof node === "boolean" ? asSchema(node) : node;
}

/** A schema with one open end, described. */
function openEnd(sibling: JsonSchema, why: string): JsonSchema {
  const { $ref: _ref, ...rest } = sibling;
  const note = `(${why})`;
  const description = typeof rest.description === "string" ? `${rest.description} ${note}` : note;
  return { ...rest, description };
}

/**
 * Inlines every local `$ref` of a schema.
 *
 * @param root The schema (not changed).
 * @returns The schema without references, and the references left open.
 */
export function inlineRefs(root: JsonSchema): Inlined {
  const open: string[] = [];
  let size = 0;
  const walk = (node: JsonSchema, stack: readonly string[]): JsonSchema => {
    if (++size > MAX_INLINED) throw TOO_LARGE;
    let schema = node;
    const ref = schema.$ref;
    if (typeof ref === "string") {
      const target = resolve(root, ref);
      if (!isObject(target)) {
        open.push(`unresolved ${ref}`);
        schema = openEnd(schema, `unresolved reference ${ref}`);
      } else if (stack.filter((r) => r === ref).length >= RECURSION_LIMIT) {
        if (!open.includes(`recursive ${ref}`)) open.push(`recursive ${ref}`);
        schema = openEnd(schema, `recursive: the same shape as the enclosing ${ref}`);
      } else {
        const { $ref: _ref, ...siblings } = schema;
        // The target's own keywords, then those written beside the reference.
        const merged = { ...target, ...siblings };
        return walk(merged, [...stack, ref]);
      }
    }
    // The containers go first: only what is reached through a reference is inlined.
    const bare = { ...schema };
    for (const key of DROPPED) delete bare[key];
    return mapSubschemas(bare, (sub) => walk(sub, stack));
  };
  try {
    return { schema: walk(root, []), open };
  } catch (error) {
    if (error !== TOO_LARGE) throw error;
    return { schema: root, open: [`too large: inlined past ${MAX_INLINED} subschemas`] };
  }
}

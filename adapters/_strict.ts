/**
 * Private: a schema rewritten for strict mode (OpenAI's Structured Outputs for functions):
 * every object closed (`additionalProperties: false`) with every property required, an
 * optional property made nullable (`type: [t, "null"]`, or `anyOf` with `{ type: "null" }`
 * for objects, arrays and `const`s), `oneOf` read as `anyOf`, an `allOf` of objects merged,
 * and the keywords outside the strict subset moved into descriptions. Along with it comes
 * the {@linkcode Plan} that maps the model's arguments back. What strict mode cannot say (a
 * free-form object, a tuple, a schema with no type, nesting past the limit) is reported as
 * a problem: the tool then goes without strict mode. Expects `$ref`s inlined. Pure.
 *
 * @module
 */

import { moveKeywords } from "./_keywords.ts";
import type { Match, Plan } from "./_plan.ts";
import { isObject } from "../protocol/json.ts";
import type { JsonSchema } from "./_walk.ts";

/** The deepest nesting of schemas strict mode takes. */
export const STRICT_DEPTH = 10;

/** A strict schema, its way back, and why it could not be strict (when it could not). */
export interface Strict {
  /** The strict schema (meaningful only without problems). */
  schema: JsonSchema;
  /** How to restore the model's arguments; `undefined` when nothing changes. */
  plan?: Plan;
  /** Why the schema cannot be strict, one line each (`at /a/b: …`). */
  problems: string[];
}

/** The `type` of a schema as a list. */
function types(schema: JsonSchema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

/** Whether a schema takes `null`. */
function takesNull(schema: JsonSchema): boolean {
  return types(schema).includes("null") || schema.const === null ||
    (Array.isArray(schema.enum) && schema.enum.includes(null)) ||
    (Array.isArray(schema.anyOf) && schema.anyOf.some((s) => isObject(s) && takesNull(s)));
}

/** A schema that also takes `null`. */
function nullable(schema: JsonSchema): JsonSchema {
  if (takesNull(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const list = types(schema);
  const simple = list.length > 0 && !list.includes("object") && !list.includes("array") &&
    !("const" in schema);
  if (!simple) return { anyOf: [schema, { type: "null" }] };
  const out: JsonSchema = { ...schema, type: [...list, "null"] };
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
  return out;
}

/** `oneOf` as `anyOf`, and an `allOf` of object schemas merged into one. */
function simplify(schema: JsonSchema, problems: string[], at: string): JsonSchema {
  let out = schema;
  if (Array.isArray(out.oneOf)) {
    const { oneOf, ...rest } = out;
    out = { ...rest, anyOf: [...(Array.isArray(rest.anyOf) ? rest.anyOf : []), ...oneOf] };
  }
  if (Array.isArray(out.allOf)) {
    const { allOf, ...rest } = out;
    const parts = allOf.filter(isObject);
    if (parts.length !== allOf.length || parts.some((p) => p.anyOf || p.allOf || p.oneOf)) {
      problems.push(`at ${at || "/"}: an allOf that is not a list of objects`);
      return rest;
    }
    const merged: JsonSchema = { ...rest };
    for (const part of parts) {
      const properties = { ...(merged.properties as object), ...(part.properties as object) };
      const required = [
        ...(Array.isArray(merged.required) ? merged.required : []),
        ...(Array.isArray(part.required) ? part.required : []),
      ];
      Object.assign(merged, { ...part, ...merged, properties, required: [...new Set(required)] });
    }
    out = merged;
  }
  return out;
}

/** What tells a value of a strict branch apart. */
function matchOf(schema: JsonSchema): Match {
  const keys = isObject(schema.properties) ? Object.keys(schema.properties) : undefined;
  return { types: types(schema), keys };
}

/**
 * Rewrites a schema (its `$ref`s inlined) for strict mode.
 *
 * @param root The tool's input schema (not changed).
 * @returns The strict schema, its plan, and the problems (none when it can be strict).
 */
export function toStrict(root: JsonSchema): Strict {
  const problems: string[] = [];
  const node = (
    input: JsonSchema,
    at: string,
    depth: number,
  ): { schema: JsonSchema; plan?: Plan } => {
    if (depth > STRICT_DEPTH) problems.push(`at ${at || "/"}: nested deeper than ${STRICT_DEPTH}`);
    const schema = moveKeywords(simplify(input, problems, at)).schema;
    const list = types(schema);
    if (Array.isArray(schema.anyOf)) {
      if (list.length > 0) problems.push(`at ${at || "/"}: anyOf beside type`);
      const branches = schema.anyOf.map((b, i) =>
        node(isObject(b) ? b : {}, `${at}/anyOf/${i}`, depth + 1)
      );
      const plan = branches.some((b) => b.plan)
        ? { anyOf: branches.map((b) => ({ match: matchOf(b.schema), plan: b.plan })) }
        : undefined;
      return { schema: { ...schema, anyOf: branches.map((b) => b.schema) }, plan };
    }
    if (list.length === 0 && !("enum" in schema) && !("const" in schema)) {
      problems.push(`at ${at || "/"}: a schema without a type`);
    }
    if (list.includes("array")) {
      if (!isObject(schema.items)) {
        problems.push(`at ${at || "/"}: an array without one items schema`);
      }
      const items = node(isObject(schema.items) ? schema.items : {}, `${at}/items`, depth + 1);
      return {
        schema: { ...schema, items: items.schema },
        plan: items.plan && { items: items.plan },
      };
    }
    if (!list.includes("object")) return { schema };
    if (!isObject(schema.properties) && at !== "") {
      problems.push(`at ${at || "/"}: an object without properties (free-form)`);
    }
    const original = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    const properties: JsonSchema = {};
    const nulls: string[] = [];
    const plans: Record<string, Plan> = {};
    for (const [key, value] of Object.entries(original)) {
      const sub = node(isObject(value) ? value : {}, `${at}/${key}`, depth + 1);
      const optional = !required.includes(key);
      if (optional && !takesNull(sub.schema)) nulls.push(key);
      properties[key] = optional ? nullable(sub.schema) : sub.schema;
      if (sub.plan) plans[key] = sub.plan;
    }
    const plan: Plan = {};
    if (nulls.length > 0) plan.nulls = nulls;
    if (Object.keys(plans).length > 0) plan.properties = plans;
    const out = {
      ...schema,
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    };
    return { schema: out, plan: Object.keys(plan).length > 0 ? plan : undefined };
  };
  const { schema, plan } = node(root, "", 0);
  if (!types(schema).includes("object")) problems.push("at /: the arguments are not an object");
  return { schema, plan, problems };
}

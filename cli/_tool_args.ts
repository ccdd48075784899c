/**
 * Tool and prompt arguments from `key=value` words, read by the tool's input schema
 * (numbers, booleans, JSON for objects and arrays), and a check of the result against the
 * schema's plain rules (required, types, enums, bounds, unknown keys) before anything is
 * sent. Pure.
 *
 * @module
 */

type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Schema
    : undefined;
}

/** The JSON types a schema allows (`[]` when it does not say). */
function typesOf(schema: Schema | undefined): string[] {
  if (schema === undefined) return [];
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key];
    if (Array.isArray(options)) return options.flatMap((o) => typesOf(asSchema(o)));
  }
  if (Array.isArray(schema.enum)) {
    return [...new Set(schema.enum.map((v) => v === null ? "null" : typeof v))];
  }
  return [];
}

function convert(type: string, text: string): { ok: true; value: unknown } | { ok: false } {
  switch (type) {
    case "string":
      return { ok: true, value: text };
    case "number":
    case "integer": {
      const n = text.trim() === "" ? NaN : Number(text);
      if (!Number.isFinite(n) || (type === "integer" && !Number.isInteger(n))) return { ok: false };
      return { ok: true, value: n };
    }
    case "boolean":
      if (/^(true|yes|1)$/i.test(text)) return { ok: true, value: true };
      if (/^(false|no|0)$/i.test(text)) return { ok: true, value: false };
      return { ok: false };
    case "null":
      return text === "null" ? { ok: true, value: null } : { ok: false };
    default:
      try {
        const value = JSON.parse(text);
        const matches = type === "array" ? Array.isArray(value) : asSchema(value) !== undefined;
        return matches ? { ok: true, value } : { ok: false };
      } catch {
        return { ok: false };
      }
  }
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "a JSON object",
  array: "a JSON array",
  null: "null",
};

/**
 * Reads `key=value` words (over the object given as `--args` JSON) by `schema`.
 *
 * @param words The `key=value` words.
 * @param argsJson The `--args` value, if any.
 * @param schema The tool's `inputSchema` (or a schema built from prompt arguments).
 * @returns The arguments.
 * @throws {TypeError} For a word without `=`, bad `--args` JSON, or a value its type refuses.
 *
 * @example
 * ```ts
 * import { parseToolArgs } from "./_tool_args.ts";
 *
 * const schema = { type: "object", properties: { a: { type: "number" }, on: { type: "boolean" } } };
 * const args = parseToolArgs(["a=2", "on=true", "note=hi"], undefined, schema);
 * if (args.a !== 2 || args.on !== true || args.note !== "hi") throw new Error();
 * ```
 */
export function parseToolArgs(
  words: readonly string[],
  argsJson: string | undefined,
  schema: unknown,
): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (argsJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(argsJson);
    } catch (error) {
      throw new TypeError(`--args is not JSON: ${(error as Error).message}`);
    }
    if (asSchema(parsed) === undefined) throw new TypeError("--args must be a JSON object");
    args = { ...parsed as Record<string, unknown> };
  }
  const properties = asSchema(asSchema(schema)?.properties) ?? {};
  for (const word of words) {
    const eq = word.indexOf("=");
    if (eq <= 0) throw new TypeError(`expected key=value, got ${JSON.stringify(word)}`);
    const key = word.slice(0, eq);
    const text = word.slice(eq + 1);
    const types = typesOf(asSchema(properties[key]));
    if (types.length === 0) {
      args[key] = text;
      continue;
    }
    // A string last: "5" for a number-or-string is the number.
    const order = [...types.filter((t) => t !== "string"), ...types.filter((t) => t === "string")];
    const hit = order.map((type) => convert(type, text)).find((r) => r.ok);
    if (hit === undefined || !hit.ok) {
      const wanted = types.map((t) => ARTICLE[t] ?? t).join(" or ");
      throw new TypeError(`argument ${key}: expected ${wanted}, got ${JSON.stringify(text)}`);
    }
    args[key] = hit.value;
  }
  return args;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return asSchema(value) !== undefined;
    case "null":
      return value === null;
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return true;
  }
}

/**
 * Checks `args` against the plain rules of `schema` (top-level properties): required keys,
 * types, `enum`, `minimum`/`maximum`, and unknown keys when `additionalProperties` is false.
 *
 * @param args The arguments.
 * @param schema The input schema.
 * @returns One line per problem (empty when none).
 *
 * @example
 * ```ts
 * import { checkToolArgs } from "./_tool_args.ts";
 *
 * const schema = { type: "object", properties: { to: { type: "integer", maximum: 20 } }, required: ["to"] };
 * if (checkToolArgs({}, schema)[0] !== "missing required argument to") throw new Error();
 * if (checkToolArgs({ to: 50 }, schema).length !== 1) throw new Error();
 * ```
 */
export function checkToolArgs(args: Record<string, unknown>, schema: unknown): string[] {
  const root = asSchema(schema);
  if (root === undefined) return [];
  const problems: string[] = [];
  const properties = asSchema(root.properties) ?? {};
  const required = Array.isArray(root.required) ? root.required : [];
  for (const key of required) {
    if (typeof key === "string" && !(key in args)) {
      problems.push(`missing required argument ${key}`);
    }
  }
  for (const [key, value] of Object.entries(args)) {
    const property = asSchema(properties[key]);
    if (property === undefined) {
      if (root.additionalProperties === false) problems.push(`unknown argument ${key}`);
      continue;
    }
    const types = typesOf(property);
    if (types.length > 0 && !types.some((t) => typeMatches(t, value))) {
      problems.push(
        `argument ${key}: expected ${types.map((t) => ARTICLE[t] ?? t).join(" or ")}`,
      );
      continue;
    }
    if (Array.isArray(property.enum) && !property.enum.some((v) => v === value)) {
      problems.push(
        `argument ${key}: one of ${property.enum.map((v) => JSON.stringify(v)).join(", ")}`,
      );
    }
    if (typeof value === "number") {
      if (typeof property.minimum === "number" && value < property.minimum) {
        problems.push(`argument ${key}: at least ${property.minimum}`);
      }
      if (typeof property.maximum === "number" && value > property.maximum) {
        problems.push(`argument ${key}: at most ${property.maximum}`);
      }
    }
  }
  return problems;
}

/** One parameter of a tool, as its input schema declares it. */
export interface Parameter {
  /** Its name. */
  name: string;
  /** Its type for people: `number`, `string`, `one of "a", "b"`, `number or string`… */
  type: string;
  /** Whether the schema requires it. */
  required: boolean;
  /** Its description (or title), if any. */
  description: string;
}

/**
 * The top-level parameters a schema declares, in its order.
 *
 * @example
 * ```ts
 * import { parameters } from "./_tool_args.ts";
 *
 * const schema = { type: "object", properties: { a: { type: "number", description: "First" } }, required: ["a"] };
 * const [a] = parameters(schema);
 * if (a.name !== "a" || a.type !== "number" || !a.required || a.description !== "First") throw new Error();
 * ```
 */
export function parameters(schema: unknown): Parameter[] {
  const root = asSchema(schema);
  const properties = asSchema(root?.properties) ?? {};
  const required = new Set(Array.isArray(root?.required) ? root.required : []);
  return Object.entries(properties).map(([name, value]) => {
    const property = asSchema(value);
    const types = [...new Set(typesOf(property))];
    let type = types.join(" or ") || "any";
    if (Array.isArray(property?.enum)) {
      type = `one of ${property.enum.map((v) => JSON.stringify(v)).join(", ")}`;
    }
    if (property?.default !== undefined) type += ` (default ${JSON.stringify(property.default)})`;
    const text = property?.description ?? property?.title;
    return {
      name,
      type,
      required: required.has(name),
      description: typeof text === "string" ? text.split("\n")[0].trim() : "",
    };
  });
}

/**
 * The names of a schema's parameters in one cell: `a b` for required ones, `c?` for the
 * others (as the `prompts` table shows prompt arguments); `-` when there are none.
 *
 * @example
 * ```ts
 * import { parameterNames } from "./_tool_args.ts";
 *
 * const schema = { properties: { a: {}, b: {} }, required: ["a"] };
 * if (parameterNames(schema) !== "a b?") throw new Error();
 * ```
 */
export function parameterNames(schema: unknown, max = 40): string {
  const names = parameters(schema).map((p) => `${p.name}${p.required ? "" : "?"}`).join(" ");
  if (names === "") return "-";
  return names.length > max ? names.slice(0, max - 1) + "…" : names;
}

/**
 * The keys of `args` the schema does not name (only when it lists its properties and does
 * not refuse others itself: then `checkToolArgs` reports them as errors).
 */
export function unnamedArgs(args: Record<string, unknown>, schema: unknown): string[] {
  const root = asSchema(schema);
  const properties = asSchema(root?.properties);
  if (root === undefined || properties === undefined || root.additionalProperties === false) {
    return [];
  }
  return Object.keys(args).filter((key) => !(key in properties));
}

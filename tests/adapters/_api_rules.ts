/**
 * What each model API accepts, written down for the tests (independently of the compiler's
 * own lists): tool names, OpenAI's strict subset (every object closed with all properties
 * required, only the documented keywords and formats, no `$ref`, nesting within 10
 * levels), Anthropic's object root, and sample arguments a strict model could send.
 *
 * @module
 */

/** The names OpenAI and Anthropic accept. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const STRICT = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
const FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

type Schema = Record<string, unknown>;

function types(schema: Schema): unknown[] {
  return Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
}

/**
 * Every way a schema breaks OpenAI's strict subset (empty when it keeps to it).
 *
 * @param root A tool's parameters.
 * @returns One line per break.
 */
export function strictViolations(root: Schema): string[] {
  const found: string[] = [];
  if (!types(root).includes("object") || "anyOf" in root) {
    found.push("/: the root is not an object");
  }
  const visit = (schema: Schema, at: string, depth: number) => {
    if (depth > 10) found.push(`${at}: deeper than 10`);
    for (const key of Object.keys(schema)) {
      if (!STRICT.has(key)) found.push(`${at}: keyword ${key}`);
    }
    if (typeof schema.format === "string" && !FORMATS.has(schema.format)) {
      found.push(`${at}: format`);
    }
    if (
      types(schema).length === 0 && !("anyOf" in schema) && !("enum" in schema) &&
      !("const" in schema)
    ) {
      found.push(`${at}: no type`);
    }
    if (types(schema).includes("object")) {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (schema.additionalProperties !== false) {
        found.push(`${at}: additionalProperties not false`);
      }
      const required = Array.isArray(schema.required) ? [...schema.required].sort() : [];
      if (JSON.stringify(required) !== JSON.stringify(Object.keys(properties).sort())) {
        found.push(`${at}: not every property required`);
      }
      for (const [key, sub] of Object.entries(properties)) visit(sub, `${at}/${key}`, depth + 1);
    }
    if (types(schema).includes("array")) visit(schema.items as Schema, `${at}/items`, depth + 1);
    if (Array.isArray(schema.anyOf)) {
      schema.anyOf.forEach((sub, i) => visit(sub as Schema, `${at}/anyOf/${i}`, depth + 1));
    }
  };
  visit(root, "", 0);
  return found;
}

/** Whether a strict schema takes `null`. */
function nullable(schema: Schema): boolean {
  return types(schema).includes("null") ||
    (Array.isArray(schema.anyOf) && schema.anyOf.some((s) => nullable(s as Schema)));
}

/**
 * Arguments a strict model could send: `null` for every nullable property, a sample value
 * for the others.
 *
 * @param schema A strict schema.
 * @returns A value of it.
 */
export function sampleArguments(schema: Schema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.anyOf)) return sampleArguments(schema.anyOf[0] as Schema);
  const type = types(schema).find((t) => t !== "null");
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (
        const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)
      ) {
        out[key] = nullable(sub) ? null : sampleArguments(sub);
      }
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    default:
      return schema.format === "date" ? "2026-01-01" : "x";
  }
}

/**
 * Private: the keywords a strict schema may carry, and the others moved into its
 * description. OpenAI's strict mode (Structured Outputs) takes a documented subset of JSON
 * Schema and refuses a schema with anything else; what it cannot enforce is still worth
 * telling the model, so a constraint such as `minLength: 3` or a `default` becomes text
 * after the description (the server goes on checking it). Pure.
 *
 * @module
 */

import type { JsonSchema } from "./_walk.ts";

/** The keywords of the strict subset, on any schema. */
export const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
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
  // Strings.
  "pattern",
  "format",
  // Numbers.
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  // Arrays.
  "minItems",
  "maxItems",
]);

/** The `format`s the strict subset names. */
export const STRICT_FORMATS: ReadonlySet<string> = new Set([
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

/** Keywords dropped without a word: identifiers, comments and vendor extensions. */
function silent(key: string): boolean {
  return key.startsWith("$") || key.startsWith("x-");
}

/** One moved keyword as text, e.g. `minLength: 3`. */
function phrase(key: string, value: unknown): string {
  return `${key}: ${JSON.stringify(value)}`;
}

/**
 * A schema with only the keywords of `allowed` (and `format`s of `formats`); the others are
 * written after its description, in parentheses. Subschemas are not visited.
 *
 * @param schema The schema (not changed).
 * @param allowed The keywords to keep.
 * @param formats The `format` values to keep.
 * @returns The schema, and the names of the keywords moved.
 */
export function moveKeywords(
  schema: JsonSchema,
  allowed: ReadonlySet<string> = STRICT_KEYWORDS,
  formats: ReadonlySet<string> = STRICT_FORMATS,
): { schema: JsonSchema; moved: string[] } {
  const out: JsonSchema = {};
  const phrases: string[] = [];
  const moved: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    const keep = allowed.has(key) &&
      (key !== "format" || (typeof value === "string" && formats.has(value)));
    if (keep) out[key] = value;
    else if (!silent(key)) {
      phrases.push(phrase(key, value));
      moved.push(key);
    }
  }
  if (phrases.length > 0) {
    const note = `(${phrases.join("; ")})`;
    out.description = typeof out.description === "string" && out.description !== ""
      ? `${out.description} ${note}`
      : note;
  }
  return { schema: out, moved };
}

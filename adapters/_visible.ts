/**
 * Private: the text of a tool that a kit shows the model, sanitised like its results. Every
 * free-text keyword of a schema (`title`, `description`, `$comment`, and what strict mode
 * moved into descriptions) goes through the shared sanitiser (`sanitizeText`), so hidden
 * Unicode tag text, zero-width and bidirectional controls a server wrote never reach the
 * model. Names and values the model sends back (property names, `required`, `enum`, `const`)
 * cannot be rewritten, since the call must carry them exactly: a tool that hides characters in
 * one of them is left out of the kit instead ({@linkcode hiddenInValues}), its reason in the
 * catalogue. Pure.
 *
 * @module
 */

import { sanitizeText } from "../protocol/text.ts";
import { isObject } from "../protocol/json.ts";
import { type JsonSchema, mapSubschemas } from "./_walk.ts";

/** The keywords whose strings are prose for the model. */
const PROSE = ["title", "description", "$comment"];

/** A server-written text as the model may see it (`undefined` stays `undefined`). */
export function visible(text: string | undefined): string | undefined {
  return text === undefined ? undefined : sanitizeText(text);
}

/**
 * A schema with the prose of it and of every subschema sanitised.
 *
 * @param schema The schema (not changed).
 * @returns The sanitised copy.
 */
export function visibleSchema(schema: JsonSchema): JsonSchema {
  const out = mapSubschemas({ ...schema }, visibleSchema);
  for (const key of PROSE) if (typeof out[key] === "string") out[key] = sanitizeText(out[key]);
  if (Array.isArray(out.examples)) {
    out.examples = out.examples.map((e) => (typeof e === "string" ? sanitizeText(e) : e));
  }
  return out;
}

/** Text as a model would read it were nothing hidden in it (line ends and NFC only). */
function plain(text: string): string {
  return text.normalize("NFC").replace(/\r\n?|[\u2028\u2029]/g, "\n");
}

/** Whether a server-written text hides characters the sanitiser would remove. */
function hides(text: unknown): boolean {
  return typeof text === "string" && sanitizeText(text) !== plain(text);
}

/** A path segment fit for a note (sanitised, JSON-pointer escaped). */
function segment(name: string): string {
  return sanitizeText(name, { maxBytes: 64 }).replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Where a schema hides characters in a name or value the model must send back exactly (a
 * property name, a `required` entry, an `enum` or `const` string), or `undefined`.
 *
 * @param schema The schema.
 * @param path Its JSON pointer (for the note).
 * @returns The first such place, as a note, or `undefined`.
 *
 * @example
 * ```ts
 * import { hiddenInValues } from "./_visible.ts";
 *
 * const tagged = { properties: { ["path\u{E0041}"]: { type: "string" } } };
 * if (hiddenInValues(tagged) === undefined) throw new Error("unexpected");
 * if (hiddenInValues({ properties: { path: { enum: ["a", "b"] } } }) !== undefined) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function hiddenInValues(schema: JsonSchema, path = ""): string | undefined {
  if (isObject(schema.properties)) {
    if (Object.keys(schema.properties).some(hides)) return `a property name at ${path}/properties`;
  }
  if (Array.isArray(schema.required) && schema.required.some(hides)) {
    return `a required name at ${path}/required`;
  }
  if (Array.isArray(schema.enum) && schema.enum.some(hides)) return `an enum value at ${path}/enum`;
  if (hides(schema.const)) return `a const value at ${path}/const`;
  let found: string | undefined;
  mapSubschemas(schema, (sub, at) => {
    found ??= hiddenInValues(sub, `${path}/${at.map(segment).join("/")}`);
    return sub;
  });
  return found;
}

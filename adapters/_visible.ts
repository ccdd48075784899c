/**
 * Private: the text of a tool that a kit shows the model, sanitised like its results. Every
 * free-text keyword of a schema (`title`, `description`, `$comment`, and what strict mode
 * moved into descriptions) goes through the shared sanitiser (`sanitizeText`), so hidden
 * Unicode tag text, zero-width and bidirectional controls a server wrote never reach the
 * model. Names and values the model sends back (property names, `enum`, `const`) are left as
 * they are, since the call must carry them exactly. Pure.
 *
 * @module
 */

import { sanitizeText } from "../protocol/text.ts";
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

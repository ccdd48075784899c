/**
 * SEP-1034: when the user accepts a form elicitation, fields the handler left out get the
 * `default` of their property schema. Also trims an answer to what its mode allows (content
 * only on an accepted form).
 *
 * @module
 */

import type { ElicitResult } from "../../protocol/capabilities.ts";
import { isObject, put } from "../../protocol/json.ts";

/**
 * The elicitation answer to send: for an accepted form, the handler's content with every
 * property the handler left out (or set to `undefined`) filled with its schema's `default`;
 * for `decline`, `cancel` and URL mode, no content at all. The handler's object is not
 * changed.
 *
 * @param params The `elicitation/create` params (`mode`, `requestedSchema`).
 * @param answer The handler's answer.
 * @returns The answer as it goes on the wire.
 *
 * @example
 * ```ts
 * import { withElicitationDefaults } from "./elicitation_defaults.ts";
 *
 * const params = {
 *   message: "Your details",
 *   requestedSchema: {
 *     type: "object",
 *     properties: {
 *       name: { type: "string", default: "Ada" },
 *       age: { type: "integer", default: 36 },
 *     },
 *   },
 * };
 * const answer = withElicitationDefaults(params, { action: "accept", content: { age: 37 } });
 * if (answer.content?.name !== "Ada" || answer.content?.age !== 37) throw new Error("unexpected");
 * ```
 */
export function withElicitationDefaults(
  params: Record<string, unknown>,
  answer: ElicitResult,
): ElicitResult {
  const out: ElicitResult & { _meta?: unknown } = { action: answer.action };
  const meta = (answer as { _meta?: unknown })._meta;
  if (isObject(meta)) out._meta = meta;
  const form = params.mode === undefined || params.mode === "form";
  if (answer.action !== "accept" || !form) return out;
  const content: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(answer.content ?? {})) {
    if (value !== undefined) put(content, key, value);
  }
  const schema = params.requestedSchema;
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  for (const [key, property] of Object.entries(properties)) {
    if (Object.hasOwn(content, key) || !isObject(property)) continue;
    const fallback = property.default;
    if (fallback === undefined) continue;
    put(content, key, Array.isArray(fallback) ? [...fallback] : fallback);
  }
  out.content = content;
  return out;
}

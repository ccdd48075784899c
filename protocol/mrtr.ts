/**
 * Multi round-trip requests (MRTR, modern era): which methods' results may be
 * `input_required`. Reading such a result and building the retry that answers it is
 * `mrtr_rounds.ts`' (it loads with the first one). Pure functions; the driver lives in the
 * client.
 *
 * @module
 */

/** The methods whose result may be `input_required`. */
export const INPUT_REQUIRED_METHODS: readonly string[] = Object.freeze([
  "tools/call",
  "prompts/get",
  "resources/read",
]);

/**
 * Whether `method`'s result may be `input_required`.
 *
 * @param method A request method.
 * @returns `true` for `tools/call`, `prompts/get` and `resources/read`.
 *
 * @example
 * ```ts
 * import { allowsInputRequired } from "./mrtr.ts";
 *
 * if (!allowsInputRequired("tools/call") || allowsInputRequired("tools/list")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function allowsInputRequired(method: string): boolean {
  return INPUT_REQUIRED_METHODS.includes(method);
}

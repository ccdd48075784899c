/**
 * `complete`: completions of a prompt's or a resource template's argument
 * (`completion/complete`), with the short forms of a reference spelled out. The client loads
 * it with the first `complete()`.
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { checkOptions, invalid, requestOptions } from "./_checks.ts";
import { isObject } from "../../protocol/json.ts";
import type { Requester } from "./_requester.ts";
import type {
  CompleteOptions,
  CompleteResult,
  CompletionArgument,
  CompletionRef,
} from "../types.ts";

/**
 * A completion reference as it goes on the wire (the short forms spelled out).
 *
 * @param ref `{ prompt }`, `{ resource }` or a wire reference.
 * @returns The wire reference.
 * @throws {TypeError} For anything else.
 */
export function wireRef(ref: CompletionRef): JsonObject {
  const given: unknown = ref;
  if (isObject(given)) {
    if (typeof given.prompt === "string") return { type: "ref/prompt", name: given.prompt };
    if (typeof given.resource === "string") return { type: "ref/resource", uri: given.resource };
    if (typeof given.type === "string") return given;
  }
  throw new TypeError(
    "ref must be { prompt: name }, { resource: uriTemplate } or a wire reference",
  );
}

function wireArgument(argument: CompletionArgument): JsonObject {
  const [name, value] = Array.isArray(argument)
    ? argument
    : isObject(argument)
    ? [argument.name, argument.value]
    : [undefined, undefined];
  if (typeof name !== "string" || typeof value !== "string") {
    throw new TypeError("argument must be [name, value] or { name, value } with strings");
  }
  return { name, value };
}

/**
 * Asks for completions.
 *
 * @param requester The connection.
 * @param ref What is completed.
 * @param argument The argument and its partial value.
 * @param options Request options and `context`.
 */
export async function complete(
  requester: Requester,
  ref: CompletionRef,
  argument: CompletionArgument,
  options?: CompleteOptions,
): Promise<CompleteResult> {
  const opts = checkOptions(options, ["context"]);
  const params: JsonObject = { ref: wireRef(ref), argument: wireArgument(argument) };
  if (opts.context !== undefined) {
    if (!isObject(opts.context)) throw new TypeError('option "context" must be an object');
    params.context = opts.context;
  }
  const result = await requester.request("completion/complete", params, requestOptions(opts));
  const completion = result.completion;
  if (!isObject(completion) || !Array.isArray(completion.values)) {
    throw invalid("completion/complete", "completion.values is not an array");
  }
  return result as CompleteResult;
}

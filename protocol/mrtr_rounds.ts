/**
 * Multi round-trip requests (MRTR, modern era): reading an `input_required` result and
 * building the retry that answers it. Pure functions; the driver lives in the client, and
 * which methods may end so is `mrtr.ts`'.
 *
 * @module
 */

import { isObject } from "./json.ts";

/** The input request methods a server may put in `inputRequests`. */
export const INPUT_REQUEST_METHODS: readonly string[] = Object.freeze([
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
]);

/** One entry of `inputRequests`: a request without `jsonrpc` and `id`. */
export interface InputRequest {
  /** `sampling/createMessage`, `elicitation/create` or `roots/list`. */
  method: string;
  /** Its params (`{}` when the server sent none). */
  params: Record<string, unknown>;
}

/** An `input_required` result, checked. */
export interface InputRequired {
  /** What the server asks for, by key (absent when it only sent `requestState`). */
  inputRequests?: Record<string, InputRequest>;
  /** The opaque state to echo back exactly (absent when the server sent none). */
  requestState?: string;
}

/**
 * Checks an `input_required` result: `inputRequests` (an object of `{ method, params? }`)
 * and `requestState` (a string), at least one of them present.
 *
 * @param result The result object (with `resultType: "input_required"`).
 * @returns The checked parts, or a string saying what is wrong.
 *
 * @example
 * ```ts
 * import { parseInputRequired } from "./mrtr_rounds.ts";
 *
 * const parsed = parseInputRequired({
 *   resultType: "input_required",
 *   inputRequests: { where: { method: "roots/list" } },
 *   requestState: "opaque",
 * });
 * if (typeof parsed === "string" || parsed.inputRequests?.where.method !== "roots/list") {
 *   throw new Error("unexpected");
 * }
 * if (typeof parseInputRequired({ resultType: "input_required" }) !== "string") {
 *   throw new Error("expected a problem");
 * }
 * ```
 */
export function parseInputRequired(result: Record<string, unknown>): InputRequired | string {
  const { inputRequests, requestState } = result;
  if (inputRequests === undefined && requestState === undefined) {
    return "it has neither inputRequests nor requestState";
  }
  const parsed: InputRequired = {};
  if (requestState !== undefined) {
    if (typeof requestState !== "string") return "requestState is not a string";
    parsed.requestState = requestState;
  }
  if (inputRequests !== undefined) {
    if (!isObject(inputRequests)) return "inputRequests is not an object";
    const requests: Record<string, InputRequest> = {};
    for (const [key, entry] of Object.entries(inputRequests)) {
      if (!isObject(entry) || typeof entry.method !== "string") {
        return `inputRequests["${key}"] is not a request with a method`;
      }
      if (entry.params !== undefined && !isObject(entry.params)) {
        return `inputRequests["${key}"].params is not an object`;
      }
      // Defined, not assigned: a key named `__proto__` is a request like any other (under
      // Bun an assignment would set the object's prototype, and the request would be lost).
      Object.defineProperty(requests, key, {
        value: { method: entry.method, params: entry.params ?? {} },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    parsed.inputRequests = requests;
  }
  return parsed;
}

/**
 * The params of the retry: the original params (without `_meta`, which each request gets
 * afresh), plus `inputResponses` when the server asked for input and `requestState` exactly
 * as the server sent it (left out when it sent none). Any `inputResponses`/`requestState`
 * of the original params are replaced, never carried over.
 *
 * @param original The params the first request was sent with.
 * @param inputResponses The answers by key, or `undefined` when nothing was asked.
 * @param requestState The state to echo, or `undefined`.
 * @returns Fresh params for the retry.
 *
 * @example
 * ```ts
 * import { retryParams } from "./mrtr_rounds.ts";
 *
 * const params = retryParams({ name: "deploy", arguments: {} }, { ok: { action: "accept" } }, "s1");
 * if (params.requestState !== "s1" || !("ok" in (params.inputResponses as object))) {
 *   throw new Error("unexpected");
 * }
 * if ("requestState" in retryParams({ name: "deploy" }, undefined, undefined)) {
 *   throw new Error("no state was sent, so none is echoed");
 * }
 * ```
 */
export function retryParams(
  original: Record<string, unknown>,
  inputResponses: Record<string, unknown> | undefined,
  requestState: string | undefined,
): Record<string, unknown> {
  const { _meta: _, inputResponses: _r, requestState: _s, ...rest } = original;
  const params: Record<string, unknown> = { ...rest };
  if (inputResponses !== undefined) params.inputResponses = inputResponses;
  if (requestState !== undefined) params.requestState = requestState;
  return params;
}

/**
 * The modern era's multi round-trip requests (MRTR) for `tools/call`, `prompts/get` and
 * `resources/read`: when the server ends the request with `resultType: "input_required"`,
 * the client's handler answers every input request it names, and the request is sent again
 * as a new request (a new JSON-RPC id and its own full `_meta`) with the original params,
 * the answers under the same keys in `inputResponses`, and `requestState` exactly as the
 * server sent it (left out when it sent none). This repeats until a final result, up to
 * the client's `maxRounds`.
 *
 * Each call keeps its rounds to itself: nothing of one call's `inputRequests`,
 * `inputResponses` or `requestState` is shared with any other request, so parallel calls
 * cannot see each other's input.
 *
 * No result of a retry (one carrying `inputResponses` or `requestState`) is ever cached,
 * whatever `ttlMs` it carries (protocol.md §1.8): the driver marks each such result, and the
 * `resources/read` cache asks {@linkcode fromRetry} before keeping one.
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { MODERN_VERSION } from "../../protocol/versions.ts";
import { capabilitiesFor } from "../handler/capabilities.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";
import { inputRequiredOf } from "../handler/input.ts";
import type { InputCallOptions, InputContext, Requester } from "./_requester.ts";
import type { ConnectionRequestOptions } from "../connection/connection.ts";
import { settle } from "../../tracing/lazy.ts";
import type { ClientStatus } from "../types.ts";

export type { InputCallOptions, InputContext } from "./_requester.ts";

/**
 * The MRTR settings of a client.
 *
 * @param options The client's resolved options.
 * @param status The connection's status (for the negotiated version).
 * @returns The driver's context.
 */
export function inputContext(options: ResolvedOptions, status: () => ClientStatus): InputContext {
  const version = () => {
    const now = status();
    return now.era === "modern" && now.version !== undefined ? now.version : MODERN_VERSION;
  };
  return {
    handler: options.handler,
    maxRounds: options.maxRounds,
    version,
    capabilities: () => capabilitiesFor(options, "modern", version()),
  };
}

const RETRIED = new WeakSet<object>();

/**
 * Whether a result came from an MRTR retry (such results are never cached).
 *
 * @param result A result this driver returned.
 * @returns `true` when it answered a retry.
 */
export function fromRetry(result: object): boolean {
  return RETRIED.has(result);
}

/**
 * Sends a request that may need input (`tools/call`, `prompts/get`, `resources/read`) and
 * drives its `input_required` rounds to the final result. `timeout` applies to each round's
 * request; `maxTotalTimeout` to the whole call, handler time included (the handlers' signal
 * aborts when it runs out).
 *
 * @param requester The connection (with its `input` settings; without them an
 * `input_required` result fails with reason `input_required`).
 * @param method The method.
 * @param params The caller's params (sent unchanged on every round).
 * @param options Request options, `assigns` and `principal`.
 * @returns The final result.
 * @throws {McpError} Kind `protocol`: `too_many_rounds`, `unsupported_input` (an input
 * request the client did not declare), `handler_failed`, `invalid_handler_result`,
 * `invalid_result`; kind `cancelled` when the caller's signal aborts; or what a round's
 * request failed with (e.g. the server refusing a `requestState`).
 */
export function requestWithInput(
  requester: Requester,
  method: string,
  params: JsonObject,
  options: InputCallOptions = {},
): Promise<JsonObject> {
  // A traced client's first requests wait for its tracing to load (it loads on first use).
  const loading = requester.trace?.loaded();
  if (loading !== undefined) {
    return loading.then(() => requestWithInput(requester, method, params, options));
  }
  const started = Date.now();
  // Traced: one span for the call, its rounds after the first as children.
  const trace = requester.trace?.call(method, params);
  // The request options alone (a call without `assigns`, `principal` or a span sends them as
  // they are).
  let request: ConnectionRequestOptions = options;
  if (options.assigns !== undefined || options.principal !== undefined || trace !== undefined) {
    const { assigns: _a, principal: _p, ...rest } = options;
    request = rest;
    if (trace !== undefined) request.trace = trace;
  }
  // The first round goes out as is; the rounds of input start only when the server asks.
  const final = requester.request(method, params, request).catch((error: unknown) => {
    const interim = inputRequiredOf(error);
    if (interim === undefined || requester.input === undefined) throw error;
    const rounds = { input: requester.input, options, request, started, inputRequiredOf };
    // The rounds of input load with the first input_required result.
    return import("./_input_rounds.ts").then(({ answerRounds }) =>
      answerRounds(requester, method, params, rounds, interim)
    ).then((result) => {
      RETRIED.add(result);
      return result;
    });
  });
  return trace === undefined ? final : settle(trace, final);
}

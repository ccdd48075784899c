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

import type { HandlerContext } from "../../protocol/capabilities.ts";
import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { type InputRequest, parseInputRequired, retryParams } from "../../protocol/mrtr.ts";
import { MODERN_VERSION } from "../../protocol/versions.ts";
import { clearTimer, startTimer } from "../../clock/timer.ts";
import { capabilitiesFor } from "../handler/capabilities.ts";
import { cancelledError } from "../_errors.ts";
import { isObject, put } from "../_json.ts";
import { META_CLIENT_CAPABILITIES } from "../../protocol/meta.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";
import type { ConnectionRequestOptions } from "../connection/connection.ts";
import { answerInput, inputKind, inputProblem, inputRequiredOf } from "../handler/input.ts";
import type { InputContext, Requester } from "./_requester.ts";
import { settle } from "../../tracing/settle.ts";
import type { ClientStatus } from "../types.ts";

export type { InputContext } from "./_requester.ts";

/** A call's request options plus what its handler context carries. */
export interface InputCallOptions extends ConnectionRequestOptions {
  /** The caller's `assigns`, passed to the handler. */
  assigns?: Record<string, unknown>;
  /** The caller's `principal`, passed to the handler. */
  principal?: string;
}

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

/** A deep copy of JSON params for a handler to see (what it does to them stays its own). */
function copy(params: JsonObject): JsonObject {
  try {
    return JSON.parse(JSON.stringify(params));
  } catch {
    return { ...params };
  }
}

/** Why the handlers' signal aborted: the caller's signal, or the `maxTotalTimeout` ceiling. */
function stopped(method: string, signal: AbortSignal): McpError {
  if (isMcpError(signal.reason) && signal.reason.kind === "timeout") return signal.reason;
  return cancelledError(method, signal);
}

/**
 * A signal for the handlers of one round: aborted by the caller's signal, or when the
 * call's `maxTotalTimeout` runs out. `release` unlinks it.
 */
function roundSignal(
  method: string,
  caller: AbortSignal | undefined,
  left: number | undefined,
  started: number,
): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener("abort", onAbort, { once: true });
  const timer = left === undefined ? undefined : startTimer(() =>
    controller.abort(
      new McpError(`${method} timed out after ${Date.now() - started} ms`, {
        kind: "timeout",
        reason: "max_total_timeout",
      }),
    ), left);
  return {
    signal: controller.signal,
    release() {
      clearTimer(timer);
      caller?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Answers input requests with the client's handler, after checking every one against the
 * declared capabilities (the server never gets half an answer).
 *
 * @returns The answers under the requests' keys.
 */
export async function answerAll(
  input: InputContext,
  method: string,
  params: JsonObject,
  requests: Record<string, InputRequest>,
  options: InputCallOptions,
  signal: AbortSignal,
): Promise<JsonObject> {
  const entries = Object.entries(requests);
  // Every request is checked before any handler runs: the server never gets half an answer.
  const declared = input.capabilities();
  for (const [key, request] of entries) {
    const problem = inputProblem(request.method, request.params, declared);
    if (problem) {
      throw new McpError(
        `The server asked for ${inputKind(request.method)} input "${key}" to answer ${method}, ` +
          `which the client cannot give: ${problem.message}`,
        { kind: "protocol", reason: "unsupported_input", data: { key, method: request.method } },
      );
    }
  }
  const responses: JsonObject = {};
  for (const [key, request] of entries) {
    if (signal.aborted) throw stopped(method, signal);
    const ctx: HandlerContext = {
      signal,
      era: "modern",
      protocolVersion: input.version(),
      request: { method, params: copy(params) },
    };
    if (options.assigns !== undefined) ctx.assigns = options.assigns;
    if (options.principal !== undefined) ctx.principal = options.principal;
    const outcome = await answerInput(request.method, request.params, input.handler, ctx);
    if (signal.aborted) throw stopped(method, signal);
    if (!outcome.ok) {
      if (outcome.failure === "handler" && isMcpError(outcome.error)) throw outcome.error;
      throw new McpError(`${outcome.message} (input "${key}" of ${method})`, {
        kind: "protocol",
        reason: outcome.failure === "handler" ? "handler_failed" : "invalid_handler_result",
        data: { key, method: request.method },
        cause: outcome.failure === "handler" ? outcome.error : undefined,
      });
    }
    put(responses, key, outcome.result);
  }
  return responses;
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
  const { assigns: _a, principal: _p, ...request } = options;
  const started = Date.now();
  // Traced: one span for the call, its rounds after the first as children.
  const trace = requester.trace?.call(method, params);
  if (trace !== undefined) request.trace = trace;
  // The first round goes out as is; the rounds of input start only when the server asks.
  const final = requester.request(method, params, request).catch((error: unknown) => {
    const interim = inputRequiredOf(error);
    if (interim === undefined || requester.input === undefined) throw error;
    const rounds = { input: requester.input, options, request, started };
    return answerRounds(requester, method, params, rounds, interim);
  });
  return trace === undefined ? final : settle(trace, final);
}

/** The rounds after the first `input_required` result `interim`, until a final result. */
async function answerRounds(
  requester: Requester,
  method: string,
  params: JsonObject,
  rounds: {
    input: InputContext;
    /** The caller's options, and the request options among them. */
    options: InputCallOptions;
    request: ConnectionRequestOptions;
    /** When the first round was sent. */
    started: number;
  },
  interim: JsonObject,
): Promise<JsonObject> {
  const { input, options, request, started } = rounds;
  for (let round = 0;; round++) {
    if (round >= input.maxRounds) {
      throw new McpError(
        `${method} still needs input after ${input.maxRounds} rounds (the client's maxRounds)`,
        { kind: "protocol", reason: "too_many_rounds", data: { maxRounds: input.maxRounds } },
      );
    }
    const parsed = parseInputRequired(interim);
    if (typeof parsed === "string") {
      throw new McpError(`The server's ${method} input_required result is invalid: ${parsed}`, {
        kind: "protocol",
        reason: "invalid_result",
        data: interim,
      });
    }
    let responses: JsonObject | undefined;
    if (parsed.inputRequests !== undefined) {
      const left = request.maxTotalTimeout === undefined
        ? undefined
        : request.maxTotalTimeout - (Date.now() - started);
      const roundScope = roundSignal(method, request.signal, left, started);
      try {
        responses = await answerAll(
          input,
          method,
          params,
          parsed.inputRequests,
          options,
          roundScope.signal,
        );
      } finally {
        roundScope.release();
      }
    }
    const sent = retryParams(params, responses, parsed.requestState);
    // Capabilities the call declared for itself (the tasks extension) hold on every round.
    const own = isObject(params._meta) ? params._meta[META_CLIENT_CAPABILITIES] : undefined;
    if (own !== undefined) sent._meta = { [META_CLIENT_CAPABILITIES]: own };
    let maxTotalTimeout = request.maxTotalTimeout;
    if (maxTotalTimeout !== undefined) {
      maxTotalTimeout -= Date.now() - started;
      if (maxTotalTimeout <= 0) {
        throw new McpError(`${method} timed out after ${Date.now() - started} ms`, {
          kind: "timeout",
          reason: "max_total_timeout",
        });
      }
    }
    try {
      const result = await requester.request(method, sent, { ...request, maxTotalTimeout });
      RETRIED.add(result);
      return result;
    } catch (error) {
      const next = inputRequiredOf(error);
      if (next === undefined) throw error;
      interim = next;
    }
  }
}

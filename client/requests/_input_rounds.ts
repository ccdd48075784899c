/**
 * The rounds of input of a modern request (MRTR, loaded with the first `input_required`
 * result a server sends): every input request checked against what the client declared,
 * answered by its handler, and the request sent again with the answers and the server's
 * `requestState` until the result is final. `mrtr.ts` sends the first round itself.
 *
 * @module
 */

import type { HandlerContext } from "../../protocol/capabilities.ts";
import { cancelledError, isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { type InputRequest, parseInputRequired, retryParams } from "../../protocol/mrtr_rounds.ts";
import { META_CLIENT_CAPABILITIES } from "../../protocol/meta.ts";
import { clearTimer, startTimer } from "../../clock/timer.ts";
import { isObject, put } from "../../protocol/json.ts";
import type { ConnectionRequestOptions } from "../connection/connection.ts";
import { answerInput, inputKind, inputProblem } from "../handler/answer.ts";
import type { InputCallOptions, InputContext, Requester } from "./_requester.ts";

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
 * The rounds after the first `input_required` result `interim`, until a final result (the
 * answer to a retry: `mrtr.ts` marks it so).
 */
export async function answerRounds(
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
    /**
     * The `input_required` result a round's request failed with, if it did (the driver's
     * `inputRequiredOf`, handed over so these rounds share no module with the start for it).
     */
    inputRequiredOf(error: unknown): JsonObject | undefined;
  },
  interim: JsonObject,
): Promise<JsonObject> {
  const { input, options, request, started, inputRequiredOf } = rounds;
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
      return await requester.request(method, sent, { ...request, maxTotalTimeout });
    } catch (error) {
      const next = inputRequiredOf(error);
      if (next === undefined) throw error;
      interim = next;
    }
  }
}

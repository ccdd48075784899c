/**
 * The client's answer to an input request (sampling, elicitation, roots), in both eras:
 * whether the client can answer it with what it declared ({@linkcode inputProblem}), and the
 * answer its handler gives, checked and completed ({@linkcode answerInput}). Loaded with the
 * first input request a server sends: by the legacy server-request inbox
 * (`server_requests.ts`) and the modern MRTR rounds (`../requests/_input_rounds.ts`).
 *
 * @module
 */

import type { ClientHandler, HandlerContext } from "../../protocol/capabilities.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { isObject } from "../../protocol/json.ts";

/** Why the client cannot answer an input request: the JSON-RPC error a legacy server gets. */
export interface InputProblem {
  /** `-32601` (capability not declared, unknown method) or `-32602` (a mode or option not declared, bad params). */
  code: number;
  /** What is missing, for people. */
  message: string;
}

/** The outcome of asking the handler. */
export type InputOutcome =
  | { ok: true; result: JsonObject }
  | { ok: false; failure: "handler"; error: unknown; message: string }
  | { ok: false; failure: "invalid"; message: string };

/** What each input method is called in messages. */
export function inputKind(method: string): string {
  switch (method) {
    case "sampling/createMessage":
      return "sampling";
    case "elicitation/create":
      return "elicitation";
    case "roots/list":
      return "roots";
  }
  return method;
}

/**
 * Whether the client can answer an input request with the capabilities it declared (which
 * were built from its handler): `undefined` when it can, else the problem.
 *
 * @param method The input request's method.
 * @param params Its params.
 * @param declared The client capabilities declared for the era and version.
 * @returns The problem, or `undefined`.
 */
export function inputProblem(
  method: string,
  params: JsonObject,
  declared: JsonObject,
): InputProblem | undefined {
  switch (method) {
    case "sampling/createMessage": {
      const cap = declared.sampling;
      if (!isObject(cap)) {
        return { code: -32601, message: "The client does not support sampling" };
      }
      if ((params.tools !== undefined || params.toolChoice !== undefined) && !isObject(cap.tools)) {
        return {
          code: -32602,
          message: "Sampling with tools needs the sampling.tools capability, which the client " +
            "did not declare",
        };
      }
      if (!Array.isArray(params.messages)) {
        return { code: -32602, message: "Sampling params need a messages array" };
      }
      return undefined;
    }
    case "elicitation/create": {
      const cap = declared.elicitation;
      if (!isObject(cap)) {
        return { code: -32601, message: "The client does not support elicitation" };
      }
      const mode = params.mode ?? "form";
      if (mode === "form") {
        if (Object.keys(cap).length > 0 && !isObject(cap.form)) {
          return { code: -32602, message: "The client does not support form elicitation" };
        }
        if (!isObject(params.requestedSchema)) {
          return { code: -32602, message: "A form elicitation needs a requestedSchema object" };
        }
        return undefined;
      }
      if (mode === "url") {
        if (!isObject(cap.url)) {
          return { code: -32602, message: "The client does not support URL elicitation" };
        }
        if (typeof params.url !== "string") {
          return { code: -32602, message: "A URL elicitation needs a url" };
        }
        return undefined;
      }
      return { code: -32602, message: `Unknown elicitation mode ${JSON.stringify(mode)}` };
    }
    case "roots/list":
      if (!isObject(declared.roots)) {
        return { code: -32601, message: "The client does not support roots" };
      }
      return undefined;
  }
  return { code: -32601, message: `Method not found: ${method}` };
}

function checkSampling(value: unknown): JsonObject | string {
  if (!isObject(value)) return "it is not an object";
  if (value.role !== "assistant" && value.role !== "user") return "role is not assistant or user";
  if (!isObject(value.content) && !Array.isArray(value.content)) return "content is missing";
  if (typeof value.model !== "string") return "model is not a string";
  const { resultType: _, ...bare } = value;
  return bare;
}

async function checkElicitation(params: JsonObject, value: unknown): Promise<JsonObject | string> {
  if (!isObject(value)) return "it is not an object";
  if (!["accept", "decline", "cancel"].includes(value.action as string)) {
    return "action is not accept, decline or cancel";
  }
  if (value.content !== undefined && !isObject(value.content)) return "content is not an object";
  // The schema's defaults (SEP-1034) load with the first form a server asks for.
  const { withElicitationDefaults } = await import("./elicitation_defaults.ts");
  return withElicitationDefaults(params, value as never) as unknown as JsonObject;
}

function checkRoots(value: unknown): JsonObject | string {
  if (!Array.isArray(value)) return "it is not an array of roots";
  const roots: JsonObject[] = [];
  for (const root of value) {
    if (!isObject(root) || typeof root.uri !== "string" || !root.uri.startsWith("file://")) {
      return "every root needs a file:// uri";
    }
    roots.push({ ...root });
  }
  return { roots };
}

/**
 * Asks the handler for the answer to an input request the client can answer (check with
 * {@linkcode inputProblem} first), then checks the answer and completes it: `resultType` is
 * dropped from a sampling result, an accepted form gets its schema's defaults (SEP-1034),
 * and roots are wrapped as `{ roots }`.
 *
 * @param method The input request's method.
 * @param params Its params.
 * @param handler The client's handler.
 * @param ctx The handler's context.
 * @returns The bare result, or why there is none (never rejects).
 */
export async function answerInput(
  method: string,
  params: JsonObject,
  handler: ClientHandler | undefined,
  ctx: HandlerContext,
): Promise<InputOutcome> {
  const kind = inputKind(method);
  let raw: unknown;
  try {
    if (method === "sampling/createMessage" && handler?.sampling) {
      raw = await handler.sampling(params, ctx);
    } else if (method === "elicitation/create" && handler?.elicitation) {
      raw = await handler.elicitation(params, ctx);
    } else if (method === "roots/list" && handler?.listRoots) {
      raw = await handler.listRoots(ctx);
    } else {
      return { ok: false, failure: "invalid", message: `The client has no ${kind} handler` };
    }
  } catch (error) {
    return { ok: false, failure: "handler", error, message: `The client's ${kind} handler failed` };
  }
  const checked = method === "sampling/createMessage"
    ? checkSampling(raw)
    : method === "elicitation/create"
    ? await checkElicitation(params, raw)
    : checkRoots(raw);
  if (typeof checked === "string") {
    return {
      ok: false,
      failure: "invalid",
      message: `The client's ${kind} handler gave an invalid answer: ${checked}`,
    };
  }
  return { ok: true, result: checked };
}

/**
 * Reading one JSON-RPC message: {@linkcode decodeMessage}, the one decoder every transport
 * runs on what it receives (a stdio line, an HTTP body, an event's data, an in-process value).
 *
 * @module
 */

import {
  type DecodeResult,
  isErrorResponse,
  isNotification,
  isRequest,
  isResult,
  type JsonRpcMessage,
} from "./jsonrpc.ts";
import { isObject } from "./json.ts";

/**
 * Decodes one JSON-RPC message from text or from an already-parsed value. Never throws:
 * bad input gives `{ ok: false, reason }`. Batches, `id: null` on requests, a wrong
 * `jsonrpc` member and non-object payloads are refused.
 *
 * @param input JSON text, or a parsed value.
 * @returns The message, or why it was refused.
 *
 * @example
 * ```ts
 * import { decodeMessage } from "./decode.ts";
 *
 * const good = decodeMessage('{"jsonrpc":"2.0","id":1,"result":{}}');
 * if (!good.ok) throw new Error("expected a message");
 * const batch = decodeMessage("[]");
 * if (batch.ok || batch.reason !== "batch") throw new Error("expected a refusal");
 * ```
 */
export function decodeMessage(input: unknown): DecodeResult {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch {
      return { ok: false, reason: "not_json", detail: "the text is not JSON" };
    }
  }
  if (Array.isArray(value)) {
    return { ok: false, reason: "batch", detail: "batches are not part of MCP" };
  }
  if (!isObject(value)) {
    return { ok: false, reason: "not_object", detail: "a message must be a JSON object" };
  }
  if (value.jsonrpc === "2.0" && (isResult(value) || isRequest(value))) {
    // The common messages first, with nothing allocated for a refusal they do not get.
    return { ok: true, message: value as JsonRpcMessage };
  }
  const answers = value.method === undefined &&
      (typeof value.id === "string" || typeof value.id === "number")
    ? { id: value.id }
    : {};
  if (value.jsonrpc !== "2.0") {
    return {
      ok: false,
      reason: "bad_version",
      detail: 'the "jsonrpc" member must be "2.0"',
      ...answers,
    };
  }
  if (typeof value.method === "string" && value.id === null) {
    return { ok: false, reason: "null_id", detail: "a request id must not be null" };
  }
  if (isRequest(value) || isNotification(value) || isResult(value) || isErrorResponse(value)) {
    return { ok: true, message: value as JsonRpcMessage };
  }
  return {
    ok: false,
    reason: "bad_shape",
    detail: "not a request, notification or response",
    ...answers,
  };
}

/**
 * Private: reading Streamable HTTP answers. JSON-RPC bodies and events decoded strictly
 * (with a clear `protocol` error), JSON-RPC error bodies sent with an error status, and the
 * answer to a `server/discover` probe.
 *
 * @module
 */

import { malformedAnswer } from "../protocol/errors.ts";
import { decodeMessage } from "../protocol/decode.ts";
import {
  isErrorResponse,
  isNotification,
  isRequest,
  isResult,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from "../protocol/jsonrpc.ts";
import { readBounded, readBoundedText, retryAfterMs } from "./_http.ts";
import type { LongAnswer } from "./_long_body.ts";
import type { HttpProbeResult } from "./transport.ts";

const ERROR_BODY_LIMIT = 64 * 1024;

/** Names a message for error texts, e.g. `the "tools/call" request`. */
export function describe(message: JsonRpcMessage): string {
  if (isRequest(message)) return `the "${message.method}" request`;
  if (isNotification(message)) return `the "${message.method}" notification`;
  return "a response";
}

/** Whether `message` is a response (a result or an error). */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return isResult(message) || isErrorResponse(message);
}

/**
 * Decodes a body or event as one JSON-RPC message (or takes a long body's, read from its
 * bytes), or throws a `protocol` error.
 */
export function decodeOrThrow(text: string | LongAnswer, what: string): JsonRpcMessage {
  const decoded = typeof text === "string" ? decodeMessage(text) : text.decoded;
  if (decoded.ok) return decoded.message;
  throw malformedAnswer(what, decoded, typeof text === "string" ? text : text.head);
}

/** Reads the body of an error status as text, up to 64 KiB (empty when it cannot be read). */
export async function readErrorText(response: Response): Promise<string> {
  try {
    return await readBoundedText(response, ERROR_BODY_LIMIT);
  } catch {
    return "";
  }
}

/**
 * Reads a JSON-RPC error from the body of an error status (lenient: a missing message
 * becomes `HTTP <status>`, a missing id `null`); `undefined` when the body holds none.
 */
export function parseErrorBody(text: string, status: number): JsonRpcErrorResponse | undefined {
  try {
    const value = JSON.parse(text);
    const error = value?.error;
    if (typeof error !== "object" || error === null || !Number.isInteger(error.code)) {
      return undefined;
    }
    const message = typeof error.message === "string" ? error.message : `HTTP ${status}`;
    const id = typeof value.id === "string" || typeof value.id === "number" ? value.id : null;
    const out: JsonRpcErrorResponse = { jsonrpc: "2.0", id, error: { code: error.code, message } };
    if (error.data !== undefined) out.error.data = error.data;
    return out;
  } catch {
    return undefined;
  }
}

/** Reads the answer to a probe (its body bounded by `maxBytes`) for `classifyProbe`. */
export async function readProbe(response: Response, maxBytes: number): Promise<HttpProbeResult> {
  const body = await readBounded(response, maxBytes);
  const result: HttpProbeResult = {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body,
  };
  const after = retryAfterMs(response.headers.get("retry-after"));
  if (after !== undefined) result.retryAfterMs = after;
  const challenge = response.headers.get("www-authenticate");
  if (challenge !== null) result.challenge = challenge;
  return result;
}

/**
 * JSON-RPC 2.0 message shapes and guards, and what the decoder (`decode.ts`) answers.
 *
 * @module
 */

import { isObject, type JsonObject } from "./json.ts";

export type { JsonObject };

/** A request or response id. Never `null` on a request. */
export type JsonRpcId = string | number;

/** A request: it expects a response with the same id. */
export interface JsonRpcRequest {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** Matches the response to its request. */
  id: JsonRpcId;
  /** The method name, e.g. `tools/call`. */
  method: string;
  /** The parameters, always an object in MCP. */
  params?: JsonObject;
}

/** A notification: no id, no response. */
export interface JsonRpcNotification {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The method name, e.g. `tools/call`. */
  method: string;
  /** The parameters, always an object in MCP. */
  params?: JsonObject;
}

/** A successful response. */
export interface JsonRpcResult {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** Matches the response to its request. */
  id: JsonRpcId;
  /** The result object. */
  result: JsonObject;
}

/** The error object of an error response. */
export interface JsonRpcErrorObject {
  /** The error code. */
  code: number;
  /** A short description. */
  message: string;
  /** Extra information from the sender. */
  data?: unknown;
}

/** An error response; `id` is absent (or `null`) only when the request could not be read. */
export interface JsonRpcErrorResponse {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The request id, when the request could be read. */
  id?: JsonRpcId | null;
  /** What went wrong. */
  error: JsonRpcErrorObject;
}

/** A response of either kind. */
export type JsonRpcResponse = JsonRpcResult | JsonRpcErrorResponse;

/** Any single JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/**
 * Standard JSON-RPC error codes, and the modern MCP ones.
 *
 * @example
 * ```ts
 * import { ErrorCode } from "./jsonrpc.ts";
 * if (ErrorCode.UnsupportedProtocolVersion !== -32022) throw new Error();
 * ```
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Whether `value` is a JSON-RPC request.
 *
 * @example
 * ```ts
 * import { isRequest } from "./jsonrpc.ts";
 * if (!isRequest({ jsonrpc: "2.0", id: 1, method: "ping" })) throw new Error("expected a request");
 * ```
 */
export function isRequest(value: unknown): value is JsonRpcRequest {
  return isObject(value) && value.jsonrpc === "2.0" && typeof value.method === "string" &&
    isId(value.id) && (value.params === undefined || isObject(value.params));
}

/**
 * Whether `value` is a JSON-RPC notification.
 *
 * @example
 * ```ts
 * import { isNotification } from "./jsonrpc.ts";
 * if (!isNotification({ jsonrpc: "2.0", method: "notifications/initialized" })) throw new Error();
 * ```
 */
export function isNotification(value: unknown): value is JsonRpcNotification {
  return isObject(value) && value.jsonrpc === "2.0" && typeof value.method === "string" &&
    !("id" in value) && (value.params === undefined || isObject(value.params));
}

/**
 * Whether `value` is a successful JSON-RPC response.
 *
 * @example
 * ```ts
 * import { isResult } from "./jsonrpc.ts";
 * if (!isResult({ jsonrpc: "2.0", id: 1, result: {} })) throw new Error("expected a result");
 * ```
 */
export function isResult(value: unknown): value is JsonRpcResult {
  return isObject(value) && value.jsonrpc === "2.0" && isId(value.id) && isObject(value.result) &&
    !("error" in value) && !("method" in value);
}

/**
 * Whether `value` is a JSON-RPC error response.
 *
 * @example
 * ```ts
 * import { isErrorResponse } from "./jsonrpc.ts";
 * const message = { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } };
 * if (!isErrorResponse(message)) throw new Error("expected an error response");
 * ```
 */
export function isErrorResponse(value: unknown): value is JsonRpcErrorResponse {
  if (!isObject(value) || value.jsonrpc !== "2.0" || "method" in value || "result" in value) {
    return false;
  }
  if (value.id !== undefined && value.id !== null && !isId(value.id)) return false;
  const error = value.error;
  return isObject(error) && Number.isInteger(error.code) && typeof error.message === "string";
}

/**
 * Why {@linkcode decodeMessage} refused its input; `too_large` is a transport's verdict on a
 * message over its size limit, read no further than its id (the decoder never gives it).
 */
export type DecodeFailure =
  | "not_json"
  | "batch"
  | "not_object"
  | "bad_version"
  | "null_id"
  | "bad_shape"
  | "too_large";

/** The outcome of {@linkcode decodeMessage}: a message, or a reason and a description. */
export type DecodeResult =
  | { ok: true; message: JsonRpcMessage }
  | {
    ok: false;
    reason: DecodeFailure;
    detail: string;
    /**
     * The id of a refused message that is meant as a response (an object with an `id` and
     * no `method`, such as `{"id": 1, "result": "a string"}`): its request can fail at once.
     */
    id?: string | number;
  };

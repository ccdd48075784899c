/**
 * Helpers for the Streamable HTTP tests: a recording sink, modern requests, and waiting.
 *
 * @module
 */

import { isMcpError, type McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcMessage, JsonRpcRequest } from "../../protocol/jsonrpc.ts";
import type { TransportSink } from "../../transports/transport.ts";

/** The modern protocol version. */
export const MODERN = "2026-07-28";

/** A sink that records everything. */
export interface RecordingSink extends TransportSink {
  /** Messages delivered, in order. */
  messages: JsonRpcMessage[];
  /** Warnings. */
  warnings: string[];
  /** `closed` calls. */
  closures: McpError[];
  /** Resolves with the first message (already delivered or future) matching `predicate`. */
  next(predicate: (message: JsonRpcMessage) => boolean, timeout?: number): Promise<JsonRpcMessage>;
}

/** Makes a {@linkcode RecordingSink}; `onMessage` also sees each message. */
export function recordingSink(onMessage?: (message: JsonRpcMessage) => void): RecordingSink {
  const waiting: { predicate: (m: JsonRpcMessage) => boolean; resolve(m: JsonRpcMessage): void }[] =
    [];
  const sink: RecordingSink = {
    messages: [],
    warnings: [],
    closures: [],
    message(message) {
      sink.messages.push(message);
      for (const waiter of [...waiting]) {
        if (waiter.predicate(message)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
      onMessage?.(message);
    },
    closed(error) {
      sink.closures.push(error);
    },
    warn(text) {
      sink.warnings.push(text);
    },
    next(predicate, timeout = 5000) {
      const found = sink.messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no matching message in time")), timeout);
        waiting.push({
          predicate,
          resolve(message) {
            clearTimeout(timer);
            resolve(message);
          },
        });
      });
    },
  };
  return sink;
}

/** A modern request with the full `_meta` envelope. */
export function modernRequest(
  id: number | string,
  method: string,
  params: JsonObject = {},
  extraMeta: JsonObject = {},
): JsonRpcRequest {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { name: "test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
        ...extraMeta,
      },
    },
  };
}

/** A legacy request. */
export function legacyRequest(id: number, method: string, params?: JsonObject): JsonRpcRequest {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

/** The legacy `initialize` request. */
export function initializeRequest(id = 1, version = "2025-11-25"): JsonRpcRequest {
  return legacyRequest(id, "initialize", {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: "test", version: "1.0.0" },
  });
}

/** Waits until `condition` holds (polling), or throws after `timeout` ms. */
export async function waitFor(
  condition: () => boolean,
  timeout = 5000,
  what = "the condition",
): Promise<void> {
  const end = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The result of a response message (throws when it is not a result). */
export function resultOf(message: JsonRpcMessage): JsonObject {
  if (!("result" in message)) throw new Error(`not a result: ${JSON.stringify(message)}`);
  return message.result;
}

/** The `McpError` a promise rejects with (fails when it resolves or rejects otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (!isMcpError(error)) throw new Error(`expected an McpError, got ${error}`);
    return error;
  }
  throw new Error("expected a rejection");
}

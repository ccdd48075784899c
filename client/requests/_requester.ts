/**
 * Private: what the request methods and the MRTR driver need from the connection and the
 * client, below both (`requests.ts` calls the driver, the driver sends through a
 * {@linkcode Requester}).
 *
 * @module
 */

import type { ClientHandler } from "../../protocol/capabilities.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { LogLevel } from "../../protocol/meta.ts";
import type { Era } from "../../protocol/versions.ts";
import type { ConnectionRequestOptions } from "../connection/connection.ts";
import type { TraceHooks } from "../../tracing/hooks.ts";

/** Sends one request through the connection (queued until ready). */
export type RequestFn = (
  method: string,
  params: JsonObject | undefined,
  options?: ConnectionRequestOptions,
) => Promise<JsonObject>;

/** What the request helpers need from the connection. */
export interface Requester {
  /** Sends a request. */
  request: RequestFn;
  /** Waits until ready. */
  ready(timeout?: number): Promise<void>;
  /** The negotiated era, if any. */
  era(): Era | undefined;
  /** Remembers the log level for modern `_meta`. */
  setLogLevel(level: LogLevel): void;
  /** Diagnostics. */
  warn(message: string): void;
  /** How `input_required` results are answered (without it they fail the call). */
  input?: InputContext;
  /** Sends a notification on the ready link. */
  notify?(method: string, params?: JsonObject): Promise<void>;
  /** The client's tracing, when it has a tracer (an MRTR call's rounds share one span). */
  trace?: TraceHooks;
}

/** What the MRTR driver needs from the client. */
export interface InputContext {
  /** The client's handler. */
  handler?: ClientHandler;
  /** The most `input_required` results one call answers. */
  maxRounds: number;
  /** The modern protocol version in use. */
  version(): string;
  /** The capabilities every modern request declares. */
  capabilities(): JsonObject;
}

/** A call's request options plus what its handler context carries. */
export interface InputCallOptions extends ConnectionRequestOptions {
  /** The caller's `assigns`, passed to the handler. */
  assigns?: Record<string, unknown>;
  /** The caller's `principal`, passed to the handler. */
  principal?: string;
}

/**
 * What the client's code calls when a tracer is given: {@linkcode TraceHooks} on the
 * resolved options (`undefined` without a tracer, so each call site costs one branch) and
 * the {@linkcode TraceScope} of each span. Other parts of the client start their own spans
 * with {@linkcode TraceHooks.span}; a task poll, for one:
 *
 * ```ts ignore
 * const poll = requester.trace?.span("mcp.client.task_poll", { "conduit.task.id": id });
 * try {
 *   const status = await requester.request("tasks/get", { taskId: id }, { trace: poll });
 *   poll?.set({ "conduit.task.status": String(status.status) });
 *   poll?.end();
 * } catch (error) {
 *   poll?.end(error);
 *   throw error;
 * }
 * ```
 *
 * (A request made with `trace: scope` in its options is sent as part of that span: it
 * carries the span's `traceparent`, and the span records its JSON-RPC id.)
 *
 * @module
 */

import type { JsonObject } from "../protocol/jsonrpc.ts";
import type { TraceAttributes } from "./types.ts";

/** The trace context keys a request carries in `_meta` (and as W3C headers on HTTP). */
export interface TraceMeta {
  /** The W3C `traceparent`. */
  traceparent: string;
  /** The W3C `tracestate`, if the span has one. */
  tracestate?: string;
}

/** The request options the tracing reads and adds to. */
export interface TracedOptions {
  /** The span the request belongs to. */
  trace?: TraceScope;
  /** The request's timeout (`Infinity`: untimed, so no progress token unless asked for). */
  timeout?: number;
  /** The caller's progress callback. */
  onProgress?(progress: { progress?: unknown; total?: unknown }): void;
}

/** A request function, as the client's requester has it. */
export type TracedSend = (
  method: string,
  params: JsonObject | undefined,
  options?: TracedOptions,
) => Promise<JsonObject>;

/** One span in progress. */
export interface TraceScope {
  /** Whether the span records (a no-op tracer's do not: then only its context matters). */
  readonly recording: boolean;
  /** Requests sent in this span so far (an MRTR call's rounds). */
  rounds: number;
  /** The trace context to send with a request made in this span (none when not recording). */
  meta(): TraceMeta | undefined;
  /** The JSON-RPC id the span's request went out with. */
  sent(id: number | string): void;
  /** Records a `notifications/progress` of the span's request as an event. */
  progress(progress: { progress?: unknown; total?: unknown }): void;
  /** Records an event (attributes are redacted). */
  event(name: string, attributes?: TraceAttributes): void;
  /** Runs `fn` with this span active (its children then include what others start in it). */
  run<T>(fn: () => T): T;
  /** Sets attributes (redacted) on the span. */
  set(attributes: TraceAttributes): void;
  /** Starts a child span (kind `INTERNAL`). */
  child(name: string, attributes?: TraceAttributes): TraceScope;
  /**
   * Ends the span: an error sets `error.type` and the error status; a result may be
   * recorded (`recordArguments`) or mark a tool error. Only the first call counts.
   */
  end(error?: unknown, result?: JsonObject): void;
}

/** The tracing of one client. */
export interface TraceHooks {
  /**
   * The traced form of a request function: each call is a `CLIENT` span named after the
   * method (and tool or prompt), or, when its options carry a scope (an MRTR call), one
   * round of that scope.
   */
  traceRequests<F extends TracedSend>(send: F): F;
  /**
   * Resolves once `@opentelemetry/api` has loaded (or failed to); `undefined` when it has.
   * Before it, spans start in the tracer's own context and `run` runs without one.
   */
  loaded(): Promise<void> | undefined;
  /** Starts the span of a request whose rounds are its children (the MRTR methods). */
  call(method: string, params: JsonObject | undefined): TraceScope;
  /**
   * Starts a span of the client's own work (`mcp.client.connect`, `mcp.client.task_poll`,
   * `mcp.client.oauth.token`, …): a child of `parent`, else of the active context.
   */
  span(name: string, attributes?: TraceAttributes, parent?: TraceScope): TraceScope;
  /**
   * The negotiated protocol: the spans started after it carry its version and era, and so
   * does `scope` (the connect span) at once, with the server's name.
   */
  negotiated(
    info: { era: string; version: string; serverName?: string; sessionId?: string },
    scope?: TraceScope,
  ): void;
}

/**
 * Ends a request's span when its answer settles (`settle` in `lazy.ts`, which the request
 * path holds and the tracing is handed): a round that asked for input is not an error.
 */
export type SettleSpan = (
  scope: TraceScope,
  promise: Promise<JsonObject>,
  isRound?: boolean,
) => Promise<JsonObject>;

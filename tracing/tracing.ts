/**
 * The tracing of a client given a `tracer` (and perhaps a `meter`): one `CLIENT` span per
 * request, named and attributed as the OpenTelemetry MCP conventions say, its trace
 * context sent in the request's `_meta` (`traceparent`, `tracestate`: SEP-414, both eras),
 * child spans for MRTR rounds, retries and the client's own work, progress as events, and
 * the request metrics. Nothing here runs for a client without a tracer.
 *
 * @module
 */

import { isMcpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { heldSecrets, type Secrets } from "../protocol/secrets.ts";
import { cleanTracestate, formatTraceparent } from "../protocol/trace_context.ts";
import { childContext, loadApi, loadedApi } from "./_api.ts";
import {
  cleanAttributes,
  errorAttributes,
  json,
  requestAttributes,
  spanName,
  statusMessage,
  transportAttributes,
} from "./_attributes.ts";
import { type RecordRequest, requestMetrics } from "./_metrics.ts";
import type { TracedOptions, TracedSend, TraceHooks, TraceMeta, TraceScope } from "./hooks.ts";
import type { MeterLike, SpanLike, TraceAttributes, TracerLike } from "./types.ts";

/** OpenTelemetry's `SpanKind.INTERNAL` and `SpanKind.CLIENT`. */
const INTERNAL = 0;
const CLIENT = 2;
/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const ERROR = 2;

/** What {@linkcode createTracing} needs. */
export interface TracingSettings {
  /** The tracer. */
  tracer: TracerLike;
  /** The meter, if any. */
  meter?: MeterLike;
  /** Record tool call arguments and results (off by default). */
  recordArguments: boolean;
  /** The client's transport (its kind, URL and credentials). */
  transport: { kind: string; url?: URL };
  /** Where a failure to load `@opentelemetry/api` is told. */
  warn(message: string): void;
}

/** A span's own state. */
interface Span {
  span: SpanLike;
  /** The tracer its children start on. */
  tracer: TracerLike;
  secrets: Secrets | undefined;
  /** The method of a request span. */
  method?: string;
  /** The negotiated protocol's attributes now (a request span records them when sent). */
  protocol?: () => TraceAttributes;
  /** The attributes, for the metrics of a request span (`undefined` for other spans). */
  attributes?: TraceAttributes;
  started?: number;
  record?: RecordRequest;
  recordArguments: boolean;
}

function now(): number {
  return typeof performance === "undefined" ? Date.now() : performance.now();
}

/** A scope over a started span. */
function scopeOf(state: Span): TraceScope {
  const { span, secrets } = state;
  let meta: TraceMeta | null | undefined;
  let ended = false;
  const scope: TraceScope = {
    meta() {
      if (meta !== undefined) return meta ?? undefined;
      const context = span.spanContext();
      const traceparent = formatTraceparent(context.traceId, context.spanId, context.traceFlags);
      if (traceparent === undefined) {
        meta = null;
        return undefined;
      }
      const tracestate = cleanTracestate(context.traceState?.serialize());
      meta = tracestate === undefined ? { traceparent } : { traceparent, tracestate };
      return meta;
    },
    sent(id) {
      // A request made before the handshake learns the protocol when it goes out.
      const sentWith = { ...state.protocol?.(), "jsonrpc.request.id": String(id) };
      span.setAttributes(sentWith);
      if (state.attributes) Object.assign(state.attributes, sentWith);
    },
    progress(progress) {
      const attributes: TraceAttributes = {};
      if (typeof progress.progress === "number") attributes["mcp.progress"] = progress.progress;
      if (typeof progress.total === "number") attributes["mcp.progress.total"] = progress.total;
      span.addEvent("mcp.progress", attributes);
    },
    set(attributes) {
      span.setAttributes(cleanAttributes(attributes, secrets));
    },
    event(name, attributes) {
      span.addEvent(name, attributes && cleanAttributes(attributes, secrets));
    },
    child(name, attributes) {
      const context = childContext(span);
      return scopeOf({
        span: startSpan(state.tracer, secrets, name, INTERNAL, attributes ?? {}, context),
        tracer: state.tracer,
        secrets,
        recordArguments: state.recordArguments,
      });
    },
    end(error, result) {
      if (ended) return;
      ended = true;
      let failure: TraceAttributes | undefined;
      if (error !== undefined) {
        failure = errorAttributes(error);
        span.setAttributes(failure);
        span.setStatus({ code: ERROR, message: statusMessage(error, secrets) });
      } else if (result !== undefined && state.method === "tools/call") {
        if (result.isError === true) {
          failure = { "error.type": "tool_error" };
          span.setAttributes(failure);
          span.setStatus({ code: ERROR });
        }
        if (state.recordArguments) {
          const text = json({
            content: result.content,
            structuredContent: result.structuredContent,
          });
          const recorded = cleanAttributes({ "gen_ai.tool.call.result": text }, secrets);
          span.setAttributes(recorded);
        }
      }
      span.end();
      if (state.record !== undefined && state.started !== undefined && state.attributes) {
        const seconds = (now() - state.started) / 1000;
        state.record(seconds, { ...state.attributes, ...failure }, kindOf(error));
      }
    },
  };
  return scope;
}

function kindOf(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  return isMcpError(error) ? error.kind : "other";
}

/** Starts a span with clean attributes. */
function startSpan(
  tracer: TracerLike,
  secrets: Secrets | undefined,
  name: string,
  kind: number,
  attributes: TraceAttributes,
  context: unknown,
): SpanLike {
  return tracer.startSpan(
    name,
    { kind, attributes: cleanAttributes(attributes, secrets) },
    context,
  );
}

/**
 * Creates the tracing of one client. It starts loading `@opentelemetry/api` at once (for
 * the active context and child spans).
 *
 * @param settings The tracer, meter and transport.
 * @returns The hooks the client calls.
 */
export function createTracing(settings: TracingSettings): TraceHooks {
  const { tracer, recordArguments } = settings;
  const secrets = heldSecrets(settings.transport);
  const base = transportAttributes(settings.transport);
  const record = settings.meter === undefined ? undefined : requestMetrics(settings.meter);
  let protocol: TraceAttributes = {};
  void loadApi(settings.warn);

  const active = () => loadedApi()?.context.active();

  /** A new scope on `tracer`, whose children start on it too. */
  const open = (name: string, kind: number, attributes: TraceAttributes, context: unknown) => {
    const span = startSpan(tracer, secrets, name, kind, attributes, context);
    const state: Span = { span, tracer, secrets, recordArguments };
    return { state, scope: scopeOf(state) };
  };

  const request = (method: string, params: JsonObject | undefined): TraceScope => {
    const attributes = {
      ...base,
      ...protocol,
      ...requestAttributes(method, params, recordArguments),
    };
    const { state, scope } = open(spanName(method, params), CLIENT, attributes, active());
    state.method = method;
    state.protocol = () => protocol;
    if (record !== undefined) {
      state.attributes = attributes;
      state.started = now();
      state.record = record;
    }
    return scope;
  };

  const send = (
    inner: TracedSend,
    scope: TraceScope,
    method: string,
    params: JsonObject | undefined,
    options: TracedOptions | undefined,
  ) => {
    const meta = scope.meta();
    const sent = meta === undefined ? params : withTraceMeta(params, meta);
    const opts: TracedOptions = { ...options, trace: scope };
    const onProgress = options?.onProgress;
    // An untimed request asks for progress only when the caller does (the token is on the wire).
    if (onProgress !== undefined || options?.timeout !== Infinity) {
      opts.onProgress = (progress) => {
        scope.progress(progress);
        onProgress?.(progress);
      };
    }
    return inner(method, sent, opts);
  };

  /** One round of an MRTR call: the first is the call's own span, each later one a child. */
  const rounds = new WeakMap<TraceScope, number>();
  const round = (
    inner: TracedSend,
    call: TraceScope,
    method: string,
    params: JsonObject | undefined,
    options: TracedOptions | undefined,
  ) => {
    const n = rounds.get(call) ?? 0;
    rounds.set(call, n + 1);
    if (n === 0) return send(inner, call, method, params, options);
    const child = call.child("mcp.client.mrtr_round", { "conduit.mrtr.round": n });
    return settle(child, send(inner, child, method, params, options), true);
  };

  return {
    traceRequests<F extends TracedSend>(inner: F): F {
      return ((method, params, options) => {
        const call = options?.trace;
        if (call !== undefined) return round(inner, call, method, params, options);
        const scope = request(method, params);
        return settle(scope, send(inner, scope, method, params, options), false);
      }) as F;
    },
    call: request,
    span(name, attributes, parent) {
      if (parent !== undefined) return parent.child(name, attributes);
      return open(name, INTERNAL, { ...base, ...protocol, ...attributes }, active()).scope;
    },
    negotiated(info, scope) {
      protocol = { "mcp.protocol.version": info.version, "conduit.mcp.era": info.era };
      scope?.set({ ...protocol, "conduit.mcp.server.name": info.serverName });
    },
  };
}

/** Ends `scope` when `promise` settles; a round that asked for input is not an error. */
function settle(
  scope: TraceScope,
  promise: Promise<JsonObject>,
  isRound: boolean,
): Promise<JsonObject> {
  return promise.then((result) => {
    scope.end(undefined, result);
    return result;
  }, (error: unknown) => {
    if (isRound && isMcpError(error) && error.reason === "input_required") {
      scope.event("mcp.input_required");
      scope.end();
    } else scope.end(error);
    throw error;
  });
}

/** `params` with the trace context added to its `_meta` (its own keys kept). */
export function withTraceMeta(params: JsonObject | undefined, meta: TraceMeta): JsonObject {
  const own = params?._meta;
  const merged: JsonObject = typeof own === "object" && own !== null && !Array.isArray(own)
    ? { ...own as JsonObject, ...meta as unknown as JsonObject }
    : { ...meta as unknown as JsonObject };
  return params === undefined ? { _meta: merged } : { ...params, _meta: merged };
}

/**
 * The tracing of a client given a `tracer` (and perhaps a `meter`): one `CLIENT` span per
 * request, named and attributed as the OpenTelemetry MCP conventions say, its trace
 * context sent in the request's `_meta` (`traceparent`, `tracestate`: SEP-414, both eras),
 * child spans for MRTR rounds, retries and the client's own work, progress as events, and
 * the request metrics. Nothing here runs for a client without a tracer.
 *
 * @module
 */

import type { JsonObject } from "../protocol/jsonrpc.ts";
import { heldSecrets, type Secrets } from "../protocol/secrets.ts";
import { type TokenObserver, tokenObserversOf } from "../protocol/token_events.ts";
import { loadApi, loadedApi } from "./_api.ts";
import { requestAttributes, spanName, transportAttributes } from "./_attributes.ts";
import { requestMetrics } from "./_metrics.ts";
import { CLIENT, INTERNAL, now, scopeOf, type Span, startSpan } from "./_scope.ts";
import type {
  SettleSpan,
  TracedOptions,
  TracedSend,
  TraceHooks,
  TraceMeta,
  TraceScope,
} from "./hooks.ts";
import type { MeterLike, TraceAttributes, TracerLike } from "./types.ts";

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

/**
 * Creates the tracing of one client. It starts loading `@opentelemetry/api` at once (for
 * the active context and child spans).
 *
 * @param settings The tracer, meter and transport.
 * @param settle Ends a request's span when its answer settles (the request path's own).
 * @returns The hooks the client calls.
 */
export function createTracing(settings: TracingSettings, settle: SettleSpan): TraceHooks {
  const { tracer, recordArguments } = settings;
  // The transport's secrets (an HTTP transport makes them now if it has not opened yet): no
  // span starts before they are here (`loaded()`).
  let secrets: Secrets | undefined;
  let holding: Promise<unknown> | undefined = heldSecrets(settings.transport).then((held) => {
    secrets = held;
    holding = undefined;
  });
  const base = transportAttributes(settings.transport);
  const record = settings.meter === undefined ? undefined : requestMetrics(settings.meter);
  let protocol: TraceAttributes = {};
  void loadApi(settings.warn);

  const active = () => loadedApi()?.context.active();

  /** A new scope on `tracer`, whose children start on it too. */
  const open = (name: string, kind: number, attributes: TraceAttributes, context: unknown) => {
    const span = startSpan(tracer, secrets, name, kind, attributes, context);
    return { span, tracer, secrets, recordArguments } as Span;
  };

  const request = (method: string, params: JsonObject | undefined): TraceScope => {
    const attributes = {
      ...base,
      ...protocol,
      ...requestAttributes(method, params, recordArguments),
    };
    const state = open(spanName(method, params), CLIENT, attributes, active());
    state.method = method;
    state.protocol = () => protocol;
    if (record !== undefined) {
      state.attributes = attributes;
      state.started = now();
      state.record = record;
    }
    return scopeOf(state);
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
    if (scope.recording && (onProgress !== undefined || options?.timeout !== Infinity)) {
      opts.onProgress = (progress) => {
        scope.progress(progress);
        onProgress?.(progress);
      };
    }
    return scope.run(() => inner(method, sent, opts));
  };

  /** One round of an MRTR call: the first is the call's own span, each later one a child. */
  const round = (
    inner: TracedSend,
    call: TraceScope,
    method: string,
    params: JsonObject | undefined,
    options: TracedOptions | undefined,
  ) => {
    const n = call.rounds++;
    if (n === 0) return send(inner, call, method, params, options);
    const child = call.child("mcp.client.mrtr_round", { "conduit.mrtr.round": n });
    return settle(child, send(inner, child, method, params, options), true);
  };

  const hooks: TraceHooks = {
    traceRequests<F extends TracedSend>(inner: F): F {
      return ((method, params, options) => {
        const call = options?.trace;
        if (call !== undefined) return round(inner, call, method, params, options);
        const scope = request(method, params);
        return settle(scope, send(inner, scope, method, params, options), false);
      }) as F;
    },
    loaded: () =>
      loadedApi() === undefined || holding !== undefined
        ? Promise.all([loadApi(settings.warn), holding]).then(() => {})
        : undefined,
    call: request,
    span(name, attributes, parent) {
      if (parent !== undefined) return parent.child(name, attributes);
      return scopeOf(open(name, INTERNAL, { ...base, ...protocol, ...attributes }, active()));
    },
    negotiated(info, scope) {
      protocol = { "mcp.protocol.version": info.version, "conduit.mcp.era": info.era };
      if (info.sessionId !== undefined) protocol["mcp.session.id"] = info.sessionId;
      scope?.set({ ...protocol, "conduit.mcp.server.name": info.serverName });
    },
  };
  // OAuth token fetches of the transport's middleware: spans in the context they start in.
  const tokenWatch: TokenObserver = (event) => {
    const name = event.refresh ? "mcp.client.oauth.refresh" : "mcp.client.oauth.token";
    const scope = hooks.span(name);
    return {
      end(error, outcome) {
        if (outcome !== undefined) scope.set({ "conduit.oauth.outcome": outcome });
        scope.end(error);
      },
    };
  };
  // The client holds its watch (through its hooks); the transport only weakly.
  Object.defineProperty(hooks, TOKEN_WATCH, { value: tokenWatch });
  followTokens(settings.transport, tokenWatch);
  return hooks;
}

/**
 * Follows the token fetches of the transport's OAuth middleware, for as long as the client
 * lives: the transport holds the observer, the observer holds the client's tracing only
 * weakly (a transport shared by clients one after the other keeps none of them alive).
 */
function followTokens(transport: unknown, watch: TokenObserver): void {
  const observers = tokenObserversOf(transport);
  if (observers === undefined) return;
  const ref = new WeakRef(watch);
  const observer: TokenObserver = (event) => {
    const live = ref.deref();
    if (live === undefined) {
      observers.delete(observer);
      return undefined;
    }
    return live(event);
  };
  observers.add(observer);
}

/** Where a client's tracing keeps its token watch alive. */
const TOKEN_WATCH = Symbol("token watch");

/** `params` with the trace context added to its `_meta` (its own keys kept). */
export function withTraceMeta(params: JsonObject | undefined, meta: TraceMeta): JsonObject {
  const own = params?._meta;
  const merged: JsonObject = typeof own === "object" && own !== null && !Array.isArray(own)
    ? { ...own as JsonObject, ...meta as unknown as JsonObject }
    : { ...meta as unknown as JsonObject };
  return params === undefined ? { _meta: merged } : { ...params, _meta: merged };
}

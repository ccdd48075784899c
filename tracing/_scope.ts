/**
 * Private: one span in progress as a {@linkcode TraceScope}: its trace context for `_meta`,
 * the request id, progress events, children, and its end (error status, `error.type`, the
 * tool result when recorded, the request metrics).
 *
 * @module
 */

import { isMcpError } from "../protocol/errors.ts";
import type { Secrets } from "../protocol/secrets.ts";
import { cleanTracestate, formatTraceparent } from "../protocol/trace_context.ts";
import { childContext, runIn } from "./_api.ts";
import { cleanAttributes, errorAttributes, json, statusMessage } from "./_attributes.ts";
import type { RecordRequest } from "./_metrics.ts";
import type { TraceMeta, TraceScope } from "./hooks.ts";
import type { SpanLike, TraceAttributes, TracerLike } from "./types.ts";

/** OpenTelemetry's `SpanKind.INTERNAL`. */
export const INTERNAL = 0;
/** OpenTelemetry's `SpanKind.CLIENT`. */
export const CLIENT = 2;
/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const ERROR = 2;

/** A span's own state. */
export interface Span {
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

export function now(): number {
  return typeof performance === "undefined" ? Date.now() : performance.now();
}

function ignore(): void {}

const INVALID_TRACE = "0".repeat(32);

/** The `_meta` trace keys of `span`'s context, or `undefined` when it is not valid. */
function metaOf(span: SpanLike): TraceMeta | undefined {
  const context = span.spanContext();
  if (context.traceId === INVALID_TRACE) return undefined; // a no-op span without a parent
  const traceparent = formatTraceparent(context.traceId, context.spanId, context.traceFlags);
  if (traceparent === undefined) return undefined;
  const tracestate = cleanTracestate(context.traceState?.serialize());
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
}

/** A scope over a started span. */
export function scopeOf(state: Span): TraceScope {
  const { span, secrets } = state;
  let meta: TraceMeta | null | undefined;
  let ended = false;
  const contextMeta = () => {
    if (meta === undefined) meta = metaOf(span) ?? null;
    return meta ?? undefined;
  };
  const child = (name: string, attributes?: TraceAttributes) => {
    const context = childContext(span);
    return scopeOf({
      span: startSpan(state.tracer, secrets, name, INTERNAL, attributes ?? {}, context),
      tracer: state.tracer,
      secrets,
      recordArguments: state.recordArguments,
    });
  };
  // A span that records nothing (a no-op tracer's) and no metrics: only its context counts.
  if (span.isRecording?.() === false && state.record === undefined) {
    return {
      recording: false,
      rounds: 0,
      meta: contextMeta,
      sent: ignore,
      progress: ignore,
      event: ignore,
      set: ignore,
      run: (fn) => fn(),
      child,
      end() {
        if (ended) return;
        ended = true;
        span.end();
      },
    };
  }
  const scope: TraceScope = {
    recording: true,
    rounds: 0,
    meta: contextMeta,
    run: (fn) => runIn(span, fn),
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
    child,
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
export function startSpan(
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

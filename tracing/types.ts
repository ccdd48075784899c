/**
 * The shapes the client's tracing takes: an OpenTelemetry `Tracer` and `Meter` (from
 * `@opentelemetry/api`) fit them, and so does any object of the same structural shape.
 * Only the members named here are used.
 *
 * @module
 */

/** An attribute value, as OpenTelemetry takes it. */
export type TraceAttributeValue = string | number | boolean | string[] | number[] | boolean[];

/** Span or metric attributes. */
export type TraceAttributes = Record<string, TraceAttributeValue | undefined>;

/** What identifies a span across processes (OpenTelemetry's `SpanContext`). */
export interface SpanContextLike {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** Bit 0: sampled. */
  traceFlags: number;
  /** The vendor entries, if any. */
  traceState?: { serialize(): string };
}

/**
 * A span (OpenTelemetry's `Span`): what the client calls on the spans its tracer starts.
 *
 * @example A span that records nothing
 * ```ts
 * import type { SpanLike } from "./types.ts";
 *
 * const span: SpanLike = {
 *   spanContext: () => ({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
 *   setAttribute: () => span,
 *   setAttributes: () => span,
 *   addEvent: () => span,
 *   setStatus: () => span,
 *   end: () => {},
 * };
 * span.end();
 * ```
 */
export interface SpanLike {
  /** The span's identity. */
  spanContext(): SpanContextLike;
  /** Sets one attribute. */
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  /** Sets several attributes. */
  setAttributes(attributes: TraceAttributes): unknown;
  /** Records an event. */
  addEvent(name: string, attributes?: TraceAttributes): unknown;
  /** Sets the status (`code` 2 is an error). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span. */
  end(): void;
  /** Whether the span records anything (`false` for a no-op tracer's). */
  isRecording?(): boolean;
}

/**
 * A tracer (OpenTelemetry's `Tracer`): the `tracer` client option.
 *
 * @example The tracer of an OpenTelemetry SDK (or any object of this shape)
 * ```ts
 * import type { SpanLike, TracerLike } from "./types.ts";
 *
 * const started: string[] = [];
 * const tracer: TracerLike = {
 *   startSpan(name) {
 *     started.push(name);
 *     const span: SpanLike = {
 *       spanContext: () => ({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
 *       setAttribute: () => span,
 *       setAttributes: () => span,
 *       addEvent: () => span,
 *       setStatus: () => span,
 *       end: () => {},
 *     };
 *     return span;
 *   },
 * };
 * tracer.startSpan("tools/list").end();
 * if (started[0] !== "tools/list") throw new Error("unexpected");
 * ```
 */
export interface TracerLike {
  /** Starts a span: `kind` 2 is `CLIENT`, 0 `INTERNAL`; `context` is the parent's. */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: TraceAttributes },
    context?: unknown,
  ): SpanLike;
}

/** A histogram (OpenTelemetry's `Histogram`). */
export interface HistogramLike {
  /** Records one value. */
  record(value: number, attributes?: TraceAttributes): void;
}

/** A counter (OpenTelemetry's `Counter`). */
export interface CounterLike {
  /** Adds to the count. */
  add(value: number, attributes?: TraceAttributes): void;
}

/**
 * A meter (OpenTelemetry's `Meter`): the `meter` client option.
 *
 * @example A meter that keeps what it is given
 * ```ts
 * import type { MeterLike } from "./types.ts";
 *
 * const values: number[] = [];
 * const meter: MeterLike = {
 *   createHistogram: () => ({ record: (value) => void values.push(value) }),
 *   createCounter: () => ({ add: () => {} }),
 * };
 * meter.createHistogram("mcp.client.operation.duration").record(0.5);
 * if (values[0] !== 0.5) throw new Error("unexpected");
 * ```
 */
export interface MeterLike {
  /** Creates a histogram. */
  createHistogram(
    name: string,
    options?: {
      description?: string;
      unit?: string;
      advice?: { explicitBucketBoundaries?: number[] };
    },
  ): HistogramLike;
  /** Creates a counter. */
  createCounter(name: string, options?: { description?: string; unit?: string }): CounterLike;
}

// Shared set-up for the tracing tests: a real OpenTelemetry SDK (sdk-trace-base) writing to
// an in-memory exporter, a context manager on AsyncLocalStorage (as a host registers one),
// and helpers to read the span tree.
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Context,
  context,
  type ContextManager,
  ROOT_CONTEXT,
  type Span,
  trace,
} from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

const storage = new AsyncLocalStorage<Context>();
const manager: ContextManager = {
  active: () => storage.getStore() ?? ROOT_CONTEXT,
  with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.apply(thisArg, args)),
  bind: (_ctx, target) => target,
  enable: () => manager,
  disable: () => manager,
};
context.setGlobalContextManager(manager);

/** A tracer whose finished spans `spans()` returns, and a root span to run code in. */
export function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("conduit-test");
  return {
    tracer,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    /** Runs `fn` inside an active span named `name`, ended after it. */
    async within<T>(name: string, fn: (span: Span) => Promise<T>): Promise<T> {
      const span = tracer.startSpan(name);
      try {
        return await context.with(trace.setSpan(context.active(), span), () => fn(span));
      } finally {
        span.end();
      }
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The span named `name` (exactly one). */
export function spanNamed(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) {
    throw new Error(`expected one span "${name}", got ${found.length}: ${names(spans)}`);
  }
  return found[0];
}

/** The names of `spans`, in order. */
export function names(spans: ReadableSpan[]): string[] {
  return spans.map((span) => span.name);
}

/** The parent's span id of `span` (`undefined` for a root). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Every string a span holds: its name, attributes, events, status and links, as one text. */
export function spanText(spans: ReadableSpan[]): string {
  return JSON.stringify(spans.map((span) => ({
    name: span.name,
    attributes: span.attributes,
    events: span.events,
    status: span.status,
    links: span.links,
  })));
}

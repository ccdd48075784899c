/**
 * Private: `@opentelemetry/api`, loaded on first use (only a client given a tracer loads
 * it, so the core stays free of it when tracing is off). It gives the active context and
 * the context a child span starts in; until it has loaded, spans start in the context the
 * tracer finds itself.
 *
 * @module
 */

import type { SpanLike } from "./types.ts";

/** The members of `@opentelemetry/api` the tracing uses. */
export interface OtelApi {
  context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
  trace: { setSpan(context: unknown, span: SpanLike): unknown };
}

let loaded: OtelApi | undefined;
let loading: Promise<OtelApi | undefined> | undefined;

/**
 * Starts loading the API (once for the process).
 *
 * @param warn Told once if it cannot be loaded (spans then start in the tracer's context).
 * @returns The API, or `undefined` when it cannot be loaded.
 */
export function loadApi(warn: (message: string) => void): Promise<OtelApi | undefined> {
  return loading ??= import("@opentelemetry/api").then(
    (module) => loaded = module as unknown as OtelApi,
    (error) => {
      warn(
        `Tracing: @opentelemetry/api could not be loaded, child spans have no parent (${
          error instanceof Error ? error.message : String(error)
        })`,
      );
      return undefined;
    },
  );
}

/** The API if it has loaded, else `undefined`. */
export function loadedApi(): OtelApi | undefined {
  return loaded;
}

/**
 * Runs `fn` with `span` the active span (so what it starts, such as an OAuth token fetch or
 * a host's HTTP instrumentation, is its child); just runs it before the API has loaded.
 */
export function runIn<T>(span: SpanLike, fn: () => T): T {
  const api = loaded;
  if (api === undefined) return fn();
  return api.context.with(api.trace.setSpan(api.context.active(), span), fn);
}

/**
 * The context a child of `parent` starts in: the active context with `parent` as its span
 * (`undefined` before the API has loaded).
 */
export function childContext(parent: SpanLike): unknown {
  const api = loaded;
  return api === undefined ? undefined : api.trace.setSpan(api.context.active(), parent);
}

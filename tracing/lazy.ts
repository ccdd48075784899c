/**
 * The tracing hooks of a client given a `tracer`, loaded on first use: the client gets them at
 * once (its options were checked already), and `tracing.ts` (spans, attributes, metrics) and
 * `@opentelemetry/api` load behind them. Until both are in, `loaded()` is the promise of that
 * load: the connect loop and each request wait for it (`requestWithInput`), and requests sent
 * through `traceRequests` before it are sent after it, in the order they were made. A client
 * without a tracer loads none of it, but for {@linkcode settle}, which ends a request's span
 * when its answer settles: small, so the request path holds it without the tracing itself,
 * and the tracing is handed it when it loads.
 *
 * @module
 */

import { isMcpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import type { TracedSend, TraceHooks, TraceScope } from "./hooks.ts";
import type { TracingSettings } from "./tracing.ts";

/**
 * The hooks of {@linkcode TracingSettings}, their code loaded on first use.
 *
 * @param settings The tracer, meter and transport (already checked).
 * @returns Hooks that wait for the load where they must.
 */
export function lazyTracing(settings: TracingSettings): TraceHooks {
  let hooks: TraceHooks | undefined;
  let ready = false;
  const loading = import("./tracing.ts").then(async (tracing) => {
    hooks = tracing.createTracing(settings, settle);
    await hooks.loaded();
    ready = true;
  });
  // A failed load is the same for every waiter: each request reports it.
  loading.catch(() => {});
  const loaded = () => {
    if (!ready) throw new Error("the tracing has not loaded yet: await loaded() first");
    return hooks!;
  };
  return {
    traceRequests<F extends TracedSend>(inner: F): F {
      let traced: F | undefined;
      const sender = () => traced ??= loaded().traceRequests(inner);
      return ((method, params, options) =>
        ready
          ? sender()(method, params, options)
          : loading.then(() => sender()(method, params, options))) as F;
    },
    loaded: () => ready ? undefined : loading,
    call: (method, params) => loaded().call(method, params),
    span: (name, attributes, parent) => loaded().span(name, attributes, parent),
    negotiated: (info, scope) => loaded().negotiated(info, scope),
  };
}

/**
 * Ends `scope` when `promise` settles; a round that asked for input is not an error. A
 * span that records nothing ends at once (no step is added to the request's way).
 */
export function settle(
  scope: TraceScope,
  promise: Promise<JsonObject>,
  isRound = false,
): Promise<JsonObject> {
  if (!scope.recording) {
    scope.end();
    return promise;
  }
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

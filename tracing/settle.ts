/**
 * Ending a request's span when its answer settles: small, so the client's request path can
 * hold it without loading the tracing itself (`tracing.ts`, loaded only with a `tracer`).
 *
 * @module
 */

import { isMcpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import type { TraceScope } from "./hooks.ts";

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

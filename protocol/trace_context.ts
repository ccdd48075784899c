/**
 * W3C Trace Context in MCP requests (SEP-414): a request carries its trace context under
 * the unprefixed `_meta` keys `traceparent` and `tracestate`, in either era, and over HTTP
 * also as the W3C headers of the same names. Pure: formatting, checking and reading them.
 *
 * @module
 */

/** `_meta` key and HTTP header: the W3C `traceparent` (version, trace id, parent id, flags). */
export const TRACEPARENT = "traceparent";
/** `_meta` key and HTTP header: the W3C `tracestate` (vendor entries). */
export const TRACESTATE = "tracestate";

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
/** The longest `tracestate` passed on (the W3C limit is 32 entries of at most 256 characters). */
const MAX_TRACESTATE = 512;

/**
 * A `traceparent` value (version `00`), or `undefined` when the ids are not valid (all
 * zeros, wrong length or not lowercase hex: a non-recording span's context).
 *
 * @param traceId 32 lowercase hex digits.
 * @param spanId 16 lowercase hex digits.
 * @param flags The trace flags (bit 0: sampled).
 * @returns The header value.
 *
 * @example
 * ```ts
 * import { formatTraceparent } from "./trace_context.ts";
 *
 * const value = formatTraceparent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1);
 * if (value !== "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") throw new Error();
 * ```
 */
export function formatTraceparent(
  traceId: string,
  spanId: string,
  flags: number,
): string | undefined {
  if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, "0")}`;
}

/**
 * The trace id of a `traceparent` value, or `undefined` when it is not one.
 *
 * @param value A `traceparent` value.
 * @returns Its trace id.
 */
export function traceIdOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const match = PARENT.exec(value);
  return match === null || /^0+$/.test(match[1]) ? undefined : match[1];
}

/**
 * A `tracestate` value fit to pass on (a string of printable ASCII, not too long), else
 * `undefined`.
 *
 * @param value A `tracestate` value.
 * @returns The value, or `undefined`.
 */
export function cleanTracestate(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "" || value.length > MAX_TRACESTATE) {
    return undefined;
  }
  return /^[\x20-\x7e]*$/.test(value) ? value : undefined;
}

/**
 * Copies a request's `_meta.traceparent` and `_meta.tracestate` into HTTP `headers` (the
 * W3C headers), when the message carries a valid one. Nothing is copied otherwise.
 *
 * @param message A JSON-RPC message.
 * @param headers The request's headers (lowercase names), changed in place.
 */
export function copyTraceHeaders(message: unknown, headers: Record<string, string>): void {
  const params = (message as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== "object" || meta === null) return;
  const parent = (meta as Record<string, unknown>)[TRACEPARENT];
  if (traceIdOf(parent) === undefined) return;
  headers[TRACEPARENT] = parent as string;
  const state = cleanTracestate((meta as Record<string, unknown>)[TRACESTATE]);
  if (state !== undefined) headers[TRACESTATE] = state;
}

/**
 * The modern per-request `_meta` envelope: its reserved keys, the log levels, and how to
 * build it and merge it into request params.
 *
 * @module
 */

import { isObject } from "./json.ts";

/** `_meta` key: the protocol version of this request (required in the modern era). */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
/** `_meta` key: the client capabilities declared for this request (required). */
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/**
 * The modern tasks extension's key in `capabilities.extensions` (declared in a request's
 * client capabilities; the rest of the tasks' wire is `tasks.ts`).
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** `_meta` key: the client's `Implementation` (SHOULD be sent). */
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
/** `_meta` key: opts this request into `notifications/message` at this level (deprecated). */
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
/** `_meta` key on results: the server's `Implementation`. */
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
/** `_meta` key on listen notifications: the subscription they belong to. */
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** `_meta` key: opts this request into `notifications/progress`. */
export const META_PROGRESS_TOKEN = "progressToken";

/** A logging level (RFC 5424), lowest first. */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** Every {@linkcode LogLevel}, lowest first. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);

/**
 * Whether `value` is a {@linkcode LogLevel}.
 *
 * @param value Anything.
 * @returns `true` for one of {@linkcode LOG_LEVELS}.
 *
 * @example
 * ```ts
 * import { isLogLevel } from "./meta.ts";
 *
 * if (!isLogLevel("warning") || isLogLevel("warn")) throw new Error("unexpected");
 * ```
 */
export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

/** A client or server identity, as self-reported. */
export interface Implementation {
  /** A programmatic name. */
  name: string;
  /** The implementation's version. */
  version: string;
  /** A name to show. */
  title?: string;
  /** Further members (`description`, `websiteUrl`, `icons`, …). */
  [key: string]: unknown;
}

/** The inputs of {@linkcode buildMeta}. */
export interface MetaInput {
  /** The protocol version of the request, e.g. `"2026-07-28"`. */
  protocolVersion: string;
  /** The capabilities declared for this request (`{}` for none). */
  clientCapabilities: Record<string, unknown>;
  /** The client's identity. */
  clientInfo?: Implementation;
  /** Ask for log messages at or above this level, for this request only. */
  logLevel?: LogLevel;
  /** Ask for progress notifications tagged with this token. */
  progressToken?: string | number;
  /** W3C Trace Context `traceparent`. */
  traceparent?: string;
  /** W3C Trace Context `tracestate`. */
  tracestate?: string;
  /** W3C `baggage`. */
  baggage?: string;
}

/**
 * Builds the modern `_meta` object of a request. Absent inputs are left out.
 *
 * @param input The version, capabilities and optional members.
 * @returns A fresh `_meta` object.
 * @throws {TypeError} When `protocolVersion` is not a non-empty string, `clientCapabilities`
 * is not an object, `logLevel` is not a level or `progressToken` is not a string or finite
 * number.
 *
 * @example
 * ```ts
 * import { buildMeta, META_PROTOCOL_VERSION } from "./meta.ts";
 *
 * const meta = buildMeta({ protocolVersion: "2026-07-28", clientCapabilities: {}, progressToken: 0 });
 * if (meta[META_PROTOCOL_VERSION] !== "2026-07-28" || meta.progressToken !== 0) throw new Error();
 * if ("traceparent" in meta) throw new Error("absent inputs are left out");
 * ```
 */
export function buildMeta(input: MetaInput): Record<string, unknown> {
  if (typeof input?.protocolVersion !== "string" || input.protocolVersion === "") {
    throw new TypeError("buildMeta: protocolVersion must be a non-empty string");
  }
  if (!isObject(input.clientCapabilities)) {
    throw new TypeError("buildMeta: clientCapabilities must be an object");
  }
  const meta: Record<string, unknown> = {
    [META_PROTOCOL_VERSION]: input.protocolVersion,
    [META_CLIENT_CAPABILITIES]: input.clientCapabilities,
  };
  if (input.clientInfo !== undefined) meta[META_CLIENT_INFO] = input.clientInfo;
  if (input.logLevel !== undefined) {
    if (!isLogLevel(input.logLevel)) throw new TypeError("buildMeta: logLevel is not a level");
    meta[META_LOG_LEVEL] = input.logLevel;
  }
  if (input.progressToken !== undefined) {
    const token = input.progressToken;
    if (typeof token !== "string" && !(typeof token === "number" && Number.isFinite(token))) {
      throw new TypeError("buildMeta: progressToken must be a string or a finite number");
    }
    meta[META_PROGRESS_TOKEN] = token;
  }
  for (const key of ["traceparent", "tracestate", "baggage"] as const) {
    if (input[key] !== undefined) meta[key] = input[key];
  }
  return meta;
}

/**
 * Returns a copy of `params` whose `_meta` holds the caller's own `_meta` keys plus `meta`
 * (the keys of `meta` win on a clash, so the protocol keys always match the request).
 * Neither input is modified.
 *
 * @param params The request params, or nothing.
 * @param meta The `_meta` members to add, e.g. from {@linkcode buildMeta}.
 * @returns New params with the merged `_meta`.
 *
 * @example
 * ```ts
 * import { withMeta } from "./meta.ts";
 *
 * const params = withMeta({ name: "echo", _meta: { "com.example/trace": 1 } }, { progressToken: "p" });
 * if (params._meta["com.example/trace"] !== 1 || params._meta.progressToken !== "p") {
 *   throw new Error("expected both keys");
 * }
 * ```
 */
export function withMeta(
  params: Record<string, unknown> | undefined,
  meta: Record<string, unknown>,
): Record<string, unknown> & { _meta: Record<string, unknown> } {
  const own = isObject(params) && isObject(params._meta) ? params._meta : {};
  return { ...(isObject(params) ? params : {}), _meta: { ...own, ...meta } };
}

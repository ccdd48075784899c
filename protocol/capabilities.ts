/**
 * The client's handler (how it answers sampling, elicitation and roots requests) and the
 * `ClientCapabilities` it advertises, built only from the callbacks it implements.
 *
 * @module
 */

import { type Era, era as eraOf } from "./versions.ts";

/** What a handler callback learns about the request it answers. */
export interface HandlerContext {
  /** Aborted when the server cancels the request, it times out, or the client closes. */
  signal: AbortSignal;
  /** The era of the connection. */
  era: Era;
  /** The protocol version in use, e.g. `"2026-07-28"`. */
  protocolVersion: string;
  /** The caller's `assigns`, when the input belongs to a call that carried them. */
  assigns?: Record<string, unknown>;
}

/** A root the client exposes to the server (legacy `roots/list`, modern input requests). */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A name to show. */
  name?: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** The answer to an elicitation request. */
export interface ElicitResult {
  /** What the user did. */
  action: "accept" | "decline" | "cancel";
  /** The submitted form content, for an accepted form. */
  content?: Record<string, unknown>;
}

/**
 * How the client answers the server's requests for input. Every callback is optional, and
 * only the implemented ones are advertised as capabilities.
 */
export interface ClientHandler {
  /** Answers `sampling/createMessage` params with a `CreateMessageResult`. */
  sampling?: (
    params: Record<string, unknown>,
    ctx: HandlerContext,
  ) => Promise<Record<string, unknown>>;
  /** Answers `elicitation/create` params (form or URL mode). */
  elicitation?: (params: Record<string, unknown>, ctx: HandlerContext) => Promise<ElicitResult>;
  /** Lists the client's roots. */
  listRoots?: (ctx: HandlerContext) => Promise<Root[]>;
}

/** Options for {@linkcode clientCapabilities}. */
export interface ClientCapabilitiesOptions {
  /** The era to build for (default: the era of `version`, else `"modern"`). */
  era?: Era;
  /** The exact version, when known; `"2025-06-18"` gets the form-only `elicitation: {}`. */
  version?: string;
  /** Also declare `sampling.tools` (default `false`). */
  samplingTools?: boolean;
  /** Also declare `sampling.context`, allowing `includeContext` other than `"none"`. */
  samplingContext?: boolean;
  /** Declare `roots.listChanged` in the legacy era (default `false`). */
  rootsListChanged?: boolean;
}

/**
 * The `ClientCapabilities` to advertise for `handler`. Only implemented callbacks
 * contribute, so `undefined` or an empty handler gives `{}`.
 *
 * - `sampling` → `{ sampling: {} }`, plus `tools: {}` / `context: {}` when the options ask.
 * - `elicitation` → `{ elicitation: { form: {}, url: {} } }`, or `{ elicitation: {} }`
 *   (form only) for version `2025-06-18`.
 * - `listRoots` → `{ roots: {} }`; in the legacy era `{ roots: { listChanged: true } }`
 *   when `rootsListChanged` is set (the modern era has no `roots.listChanged`).
 *
 * @param handler The client's handler, or `undefined`.
 * @param opts The era, version and optional sub-capabilities.
 * @returns A fresh capabilities object.
 *
 * @example
 * ```ts
 * import { clientCapabilities } from "./capabilities.ts";
 *
 * if (Object.keys(clientCapabilities(undefined)).length !== 0) throw new Error("expected {}");
 * const caps = clientCapabilities({ listRoots: () => Promise.resolve([]) }, {
 *   era: "legacy",
 *   rootsListChanged: true,
 * });
 * if (JSON.stringify(caps) !== '{"roots":{"listChanged":true}}') throw new Error("unexpected");
 * ```
 */
export function clientCapabilities(
  handler: ClientHandler | undefined,
  opts: ClientCapabilitiesOptions = {},
): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  if (typeof handler !== "object" || handler === null) return caps;
  const versionEra = opts.version === undefined ? "unknown" : eraOf(opts.version);
  const mode: Era = opts.era ?? (versionEra === "unknown" ? "modern" : versionEra);
  if (typeof handler.sampling === "function") {
    const sampling: Record<string, unknown> = {};
    if (opts.samplingTools) sampling.tools = {};
    if (opts.samplingContext) sampling.context = {};
    caps.sampling = sampling;
  }
  if (typeof handler.elicitation === "function") {
    caps.elicitation = opts.version === "2025-06-18" ? {} : { form: {}, url: {} };
  }
  if (typeof handler.listRoots === "function") {
    caps.roots = mode === "legacy" && opts.rootsListChanged ? { listChanged: true } : {};
  }
  return caps;
}

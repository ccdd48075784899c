/**
 * What the era adds to every request: the modern `_meta` envelope (version, capabilities,
 * client info, log level, progress token), or just the progress token in the legacy era.
 *
 * @module
 */

import { clientCapabilities } from "../protocol/capabilities.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { buildMeta, type LogLevel, withMeta } from "../protocol/meta.ts";
import type { Era } from "../protocol/versions.ts";
import type { ResolvedOptions } from "./_options.ts";

/** The negotiated protocol and what the client declares on it. */
export interface EnvelopeState {
  /** The era. */
  era: Era;
  /** The version. */
  version: string;
  /** The capabilities declared on every modern request. */
  capabilities: JsonObject;
  /** The remembered log level, if any. */
  logLevel?: LogLevel;
}

/**
 * The capabilities the client declares for an era and version, from its handler.
 *
 * @param options The client's options.
 * @param era The era.
 * @param version The version.
 */
export function capabilitiesFor(options: ResolvedOptions, era: Era, version: string): JsonObject {
  return clientCapabilities(options.handler, {
    era,
    version,
    samplingTools: options.samplingTools,
    samplingContext: options.samplingContext,
    rootsListChanged: options.rootsListChanged,
    elicitationUrl: options.elicitationUrl,
  });
}

/**
 * A request's params with the era's envelope added (the caller's own `_meta` keys are kept).
 *
 * @param options The client's options (for `clientInfo`).
 * @param state The negotiated protocol, or `undefined` before it is known.
 * @param params The caller's params.
 * @param progressToken The request's progress token, if any.
 */
export function envelope(
  options: ResolvedOptions,
  state: EnvelopeState | undefined,
  params: JsonObject | undefined,
  progressToken?: number,
): JsonObject | undefined {
  if (state?.era === "modern") {
    const meta = buildMeta({
      protocolVersion: state.version,
      clientCapabilities: state.capabilities,
      clientInfo: options.clientInfo,
      logLevel: state.logLevel,
      progressToken,
    });
    return withMeta(params, meta);
  }
  return progressToken === undefined ? params : withMeta(params, { progressToken });
}

/**
 * What the era adds to every request: the modern `_meta` envelope (version, capabilities,
 * client info, log level, progress token), or just the progress token in the legacy era.
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import {
  buildMeta,
  type Implementation,
  type LogLevel,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROGRESS_TOKEN,
  META_PROTOCOL_VERSION,
  withMeta,
} from "../../protocol/meta.ts";
import type { Era } from "../../protocol/versions.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";

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
 * A request's params with the era's envelope added (the caller's own `_meta` keys are kept, and
 * capabilities it declares there replace the client's for this request).
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
      clientCapabilities: ownCapabilities(params) ?? state.capabilities,
      clientInfo: options.clientInfo,
      logLevel: state.logLevel,
      progressToken,
    });
    return withMeta(params, meta);
  }
  return progressToken === undefined ? params : withMeta(params, { progressToken });
}

/** The request-independent part of a modern envelope, validated once. */
interface EnvelopeBase {
  version: string;
  capabilities: JsonObject;
  clientInfo: Implementation | undefined;
}

/**
 * The hot-path form of {@linkcode envelope}: the constant part of the modern `_meta`
 * (version, capabilities, client info) is validated once per negotiated protocol and
 * capability set, and each request only adds its own keys. The output is the same as
 * {@linkcode envelope}'s (same keys, same order: the caller's own `_meta` keys first).
 *
 * @param options The client's options (for `clientInfo`).
 * @returns A function of the current state, the params and the progress token.
 */
export function envelopeBuilder(
  options: ResolvedOptions,
): (
  state: Omit<EnvelopeState, "logLevel"> | undefined,
  logLevel: LogLevel | undefined,
  params: JsonObject | undefined,
  progressToken?: number,
) => JsonObject | undefined {
  let base: EnvelopeBase | undefined;
  return (state, logLevel, params, progressToken) => {
    // The legacy envelope is the progress token alone: nothing to keep between requests.
    if (state?.era !== "modern") return envelope(options, state, params, progressToken);
    if (
      base === undefined || base.version !== state.version ||
      base.capabilities !== state.capabilities || base.clientInfo !== options.clientInfo
    ) {
      // Validates the constant part once (buildMeta throws on a bad version or capabilities).
      buildMeta({
        protocolVersion: state.version,
        clientCapabilities: state.capabilities,
        clientInfo: options.clientInfo,
      });
      base = {
        version: state.version,
        capabilities: state.capabilities,
        clientInfo: options.clientInfo,
      };
    }
    if (
      logLevel !== undefined || (progressToken !== undefined && !Number.isFinite(progressToken))
    ) {
      // Rare or invalid members: the checked path.
      return envelope(options, { ...state, logLevel }, params, progressToken);
    }
    const own = params !== undefined && isPlainObject(params._meta) ? params._meta : undefined;
    const meta: JsonObject = own === undefined ? {} : { ...own };
    meta[META_PROTOCOL_VERSION] = base.version;
    meta[META_CLIENT_CAPABILITIES] = ownCapabilities(params) ?? base.capabilities;
    if (base.clientInfo !== undefined) meta[META_CLIENT_INFO] = base.clientInfo as JsonObject;
    if (progressToken !== undefined) meta[META_PROGRESS_TOKEN] = progressToken;
    return params === undefined ? { _meta: meta } : { ...params, _meta: meta };
  };
}

/**
 * The capabilities a request declares for itself in its own `_meta` (a call that may become a
 * task adds the tasks extension), which take the place of the client's.
 */
function ownCapabilities(params: JsonObject | undefined): JsonObject | undefined {
  const own = params !== undefined && isPlainObject(params._meta) ? params._meta : undefined;
  const declared = own?.[META_CLIENT_CAPABILITIES];
  return isPlainObject(declared) ? declared : undefined;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

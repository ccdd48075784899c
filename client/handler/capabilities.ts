/**
 * Private: the capabilities the client declares for an era and version, from its handler and
 * options. The handler's folder owns it: the legacy inbox, the MRTR driver and the connection
 * all declare through it.
 *
 * @module
 */

import { clientCapabilities } from "../../protocol/capabilities.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { Era } from "../../protocol/versions.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";

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

/**
 * Private: the wire exchanges of negotiation: the modern `server/discover` probe and the
 * legacy `initialize` handshake with version negotiation.
 *
 * @module
 */

import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { buildMeta, type Implementation, META_SERVER_INFO } from "../../protocol/meta.ts";
import type { ProbeOutcome, Verdict } from "../../protocol/negotiation.ts";
import { pickVersion } from "../../protocol/versions.ts";
import { isFatal } from "./_retry.ts";
import { timeoutSignal } from "../../clock/timer.ts";
import { isObject } from "../_json.ts";
import type { LinkHandle, NegotiateContext, Negotiated } from "./_link.ts";

/** What one `server/discover` probe came to. */
export interface Probed {
  /** The outcome, for `classifyProbe`. */
  outcome: ProbeOutcome;
  /** The server's `Retry-After` in milliseconds (HTTP), when it sent one. */
  retryAfterMs?: number;
  /** The `WWW-Authenticate` challenge (HTTP), when the server sent one. */
  challenge?: string;
}

const HANDSHAKE = { bare: true, progress: false, cancellable: false } as const;

/**
 * Sends the `server/discover` probe on a fresh link (through `link.probe` on HTTP, as a
 * normal request elsewhere) and turns what happened into a probe outcome.
 *
 * @param ctx The client's settings.
 * @param handle The link.
 * @param version The modern version to offer.
 * @returns The outcome, with the HTTP `Retry-After` and challenge when there were any.
 * @throws {McpError} Kind `auth` when the OAuth middleware refused to authorize, and a
 * failure no retry can fix (see `_retry.ts`) as it is.
 */
export async function probeOutcome(
  ctx: NegotiateContext,
  handle: LinkHandle,
  version: string,
): Promise<Probed> {
  const params = {
    _meta: buildMeta({
      protocolVersion: version,
      clientCapabilities: ctx.capabilities("modern", version),
      clientInfo: ctx.clientInfo,
    }),
  };
  const http = ctx.kind === "http" && handle.link.probe !== undefined;
  if (http) {
    const request = {
      jsonrpc: "2.0" as const,
      id: handle.session.nextId(),
      method: "server/discover",
      params,
    };
    try {
      const response = await handle.link.probe!(request, {
        signal: timeoutSignal(ctx.probeTimeout),
      });
      return {
        outcome: {
          kind: "http",
          status: response.status,
          contentType: response.contentType,
          body: response.body,
        } as ProbeOutcome,
        retryAfterMs: response.retryAfterMs,
        challenge: response.challenge,
      };
    } catch (error) {
      // The OAuth middleware refused to authorize (or the login failed), or no attempt can
      // succeed (TLS, a refused permission): that is the answer, not a probe outcome to retry.
      if (isMcpError(error) && (error.kind === "auth" || isFatal(error))) throw error;
      const timeout = (error instanceof Error && error.name === "TimeoutError") ||
        (isMcpError(error) && error.kind === "timeout");
      return {
        outcome:
          (timeout ? { kind: "timeout" } : { kind: "transport_error", error }) as ProbeOutcome,
      };
    }
  }
  try {
    const result = await handle.session.request("server/discover", params, {
      ...HANDSHAKE,
      timeout: ctx.probeTimeout,
    });
    return { outcome: { kind: "result", result } as ProbeOutcome };
  } catch (error) {
    if (!isMcpError(error) || isFatal(error)) throw error;
    if (error.kind === "server") {
      const failure = { code: error.code ?? 0, message: error.message, data: error.data };
      return { outcome: { kind: "error", error: failure } as ProbeOutcome };
    }
    // A wrong-shaped answer fails at once; the verdict stays the one waiting for it gave.
    if (error.kind === "timeout" || error.reason === "malformed_body") {
      return { outcome: { kind: "timeout" } as ProbeOutcome };
    }
    if (error.kind === "transport") {
      return { outcome: { kind: "closed", reason: error } as ProbeOutcome };
    }
    throw error;
  }
}

/**
 * The outcome of a modern verdict.
 *
 * @param verdict The `server/discover` result `classifyProbe` accepted.
 * @returns The era, version, server info, capabilities and instructions it gave.
 */
export function fromDiscover(verdict: Extract<Verdict, { verdict: "modern" }>): Negotiated {
  const meta = verdict.result._meta;
  const serverInfo = isObject(meta) && isObject(meta[META_SERVER_INFO])
    ? meta[META_SERVER_INFO] as Implementation
    : undefined;
  return {
    era: "modern",
    version: verdict.version,
    serverInfo,
    capabilities: verdict.result.capabilities,
    instructions: verdict.result.instructions,
  };
}

/**
 * The newest of `offered` below `refused`, when the server's answer `answered` leaves room
 * for it: the server answered a version the client does not speak, or one older than a
 * version the client offers between the two (a server may answer its oldest version when
 * asked for one it lacks, though it speaks a newer one).
 */
function newerBelow(answered: unknown, refused: string, offered: string[]): string | undefined {
  if (typeof answered !== "string" || answered === refused) return undefined;
  const below = offered.find((version) => version < refused);
  if (below === undefined) return undefined;
  return !offered.includes(answered) || answered < below ? below : undefined;
}

/**
 * The legacy handshake: `initialize` offering `offered[0]` (once more with a version the
 * server names as supported), then `notifications/initialized`. When the server answers a
 * version the client does not speak, or an older one than a version the client offers
 * below the one it asked for, the client asks once more, on a fresh link (`ctx.reopen`),
 * for the newest version it offers below the one refused, and takes what the server then
 * answers if it speaks it.
 *
 * @param ctx The client's settings.
 * @param handle The link.
 * @param offered The legacy versions to offer, preferred first.
 * @param reopen Whether the handshake may open a fresh link to ask again (not when renewing
 *   a session).
 * @returns The link the handshake ended on, and the outcome.
 * @throws {McpError} Kind `protocol` (no common version, `initialize` rejected), or as the
 * request failed.
 */
export async function initialize(
  ctx: NegotiateContext,
  handle: LinkHandle,
  offered: string[],
  reopen = true,
): Promise<[LinkHandle, Negotiated]> {
  if (offered.length === 0) {
    throw new McpError("The client offers no legacy protocol version", {
      kind: "protocol",
      reason: "no_common_version",
    });
  }
  let requested = offered[0];
  let result: JsonObject | undefined;
  let askedAgain = false;
  for (let attempt = 0; result === undefined; attempt++) {
    const params = {
      protocolVersion: requested,
      capabilities: ctx.capabilities("legacy", requested),
      clientInfo: ctx.clientInfo,
    };
    try {
      result = await handle.session.request("initialize", params, {
        ...HANDSHAKE,
        timeout: ctx.requestTimeout,
      });
    } catch (error) {
      if (!isMcpError(error) || error.kind !== "server") throw error;
      const supported = isObject(error.data) && Array.isArray(error.data.supported)
        ? error.data.supported as unknown[]
        : undefined;
      const next = supported && pickVersion(supported, offered);
      if (next !== undefined && next !== requested && attempt === 0) {
        requested = next;
        continue;
      }
      const detail = supported ? `; it supports ${supported.map(String).join(", ")}` : "";
      throw new McpError(`The server rejected initialize: ${error.message}${detail}`, {
        kind: "protocol",
        reason: supported ? "no_common_version" : "initialize_failed",
        code: error.code,
        data: error.data,
        cause: error,
      });
    }
    const below = reopen && !askedAgain
      ? newerBelow(result.protocolVersion, requested, offered)
      : undefined;
    if (below !== undefined) {
      // Asked again on a fresh link: the first process or session heard an initialize
      // that is never completed.
      askedAgain = true;
      requested = below;
      result = undefined;
      handle = await ctx.reopen();
    }
  }
  const version = result.protocolVersion;
  if (typeof version !== "string" || !offered.includes(version)) {
    throw new McpError(
      `The server answered initialize with version ${String(version)}; ` +
        `the client offers ${offered.join(", ")}`,
      { kind: "protocol", reason: "no_common_version", data: { version } },
    );
  }
  await handle.session.notify("notifications/initialized");
  return [handle, {
    era: "legacy",
    version,
    serverInfo: isObject(result.serverInfo) ? result.serverInfo as Implementation : undefined,
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === "string" ? result.instructions : undefined,
  }];
}

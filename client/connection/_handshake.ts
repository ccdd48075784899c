/**
 * Private: the wire exchanges of negotiation on a fresh link: the modern `server/discover`
 * probe and what its verdict settles. The legacy `initialize` handshake is in
 * `_initialize.ts`, loaded with the first legacy server.
 *
 * @module
 */

import { isMcpError } from "../../protocol/errors.ts";
import { buildMeta, type Implementation, META_SERVER_INFO } from "../../protocol/meta.ts";
import type { ProbeOutcome, Verdict } from "../../protocol/negotiation.ts";
import { isFatal } from "./_retry.ts";
import { timeoutSignal } from "../../clock/timer.ts";
import { isObject } from "../../protocol/json.ts";
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

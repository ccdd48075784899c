/**
 * Private: the legacy `initialize` handshake with version negotiation, and what decides it
 * after a probe that found no modern server (a refused downgrade, a URL where nothing speaks
 * MCP), loaded with the first legacy server (a modern one never needs it).
 *
 * @module
 */

import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { Implementation } from "../../protocol/meta.ts";
import { isObject } from "../../protocol/json.ts";
import type { LinkHandle, NegotiateContext, Negotiated } from "./_link.ts";
import type { Probed } from "./_handshake.ts";

const HANDSHAKE = { bare: true, progress: false, cancellable: false } as const;

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
      // The first version offered that the server supports (as `pickVersion` picks).
      const next = supported && offered.find((version) => supported.includes(version));
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

function refuseLegacy(ctx: NegotiateContext): McpError | undefined {
  if (ctx.pinnedModern !== undefined) {
    return new McpError(
      `The server no longer answers as a modern (${ctx.pinnedModern}) server; ` +
        "the client pinned the modern era and does not downgrade",
      { kind: "protocol", reason: "downgrade_refused" },
    );
  }
  if (ctx.protocol !== "auto") {
    return new McpError(
      `The server does not speak the modern era (protocol: "${ctx.protocol}")`,
      { kind: "protocol", reason: "not_modern" },
    );
  }
  return undefined;
}

const NOT_THERE = new Set([404, 405]);

function httpStatus(error: unknown): number | undefined {
  if (!isMcpError(error) || error.reason !== "http_status") return undefined;
  const status = (error.data as { status?: unknown } | undefined)?.status;
  return typeof status === "number" ? status : undefined;
}

/**
 * Rethrows what `initialize` failed with, as kind `transport` reason `endpoint_not_found`
 * when both the probe and `initialize` were answered with HTTP 404 or 405: nothing at the
 * URL speaks MCP, and asking again will not change that.
 */
function notFound(probed: Probed): (error: unknown) => never {
  return (error) => {
    const probeStatus = probed.outcome.kind === "http" ? probed.outcome.status : undefined;
    const status = httpStatus(error);
    if (
      probeStatus === undefined || status === undefined || !NOT_THERE.has(probeStatus) ||
      !NOT_THERE.has(status)
    ) throw error;
    throw new McpError(
      `No MCP endpoint at this URL: the server answered server/discover with HTTP ` +
        `${probeStatus} and initialize with HTTP ${status}`,
      { kind: "transport", reason: "endpoint_not_found", data: { status }, cause: error },
    );
  };
}

/**
 * The legacy handshake after a `server/discover` probe whose verdict is legacy: refused when
 * the client pinned or chose the modern era, on a fresh link when the probe's process exited
 * (`reopen`), and read as `endpoint_not_found` when both the probe and `initialize` met HTTP
 * 404 or 405.
 *
 * @param ctx The client's settings.
 * @param handle The link the probe went on.
 * @param reopen Whether to open a fresh link first (the verdict `reconnect_legacy`).
 * @param probed What the probe came to.
 * @param offered The legacy versions to offer, preferred first.
 * @returns The link the handshake ended on, and the outcome.
 * @throws {McpError} `protocol` (a refused downgrade), or as `initialize` does.
 */
export async function afterProbe(
  ctx: NegotiateContext,
  handle: LinkHandle,
  reopen: boolean,
  probed: Probed,
  offered: string[],
): Promise<[LinkHandle, Negotiated]> {
  const refused = refuseLegacy(ctx);
  if (refused) throw refused;
  if (reopen) handle = await ctx.reopen();
  return await initialize(ctx, handle, offered).catch(notFound(probed));
}

/**
 * Era negotiation on a fresh link: the `server/discover` probe (as a normal request on
 * stdio and in-process links, through `link.probe` on HTTP), the verdict of
 * `classifyProbe`, and the legacy `initialize` handshake with version negotiation.
 *
 * @module
 */

import { isMcpError, McpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { buildMeta, type Implementation, META_SERVER_INFO } from "../protocol/meta.ts";
import { classifyProbe, type ProbeOutcome, type Verdict } from "../protocol/negotiation.ts";
import { type Era, era as eraOf, pickVersion } from "../protocol/versions.ts";
import type { TransportKind, TransportLink } from "../transports/transport.ts";
import { type ChallengeSummary, summarizeChallenge } from "../transports/_http_auth.ts";
import type { Session } from "./session.ts";
import type { ProtocolChoice } from "./types.ts";

/** A live link with its session. */
export interface LinkHandle {
  /** The link. */
  link: TransportLink;
  /** Its session. */
  session: Session;
}

/** What a handshake settled. */
export interface Negotiated {
  /** The era. */
  era: Era;
  /** The version. */
  version: string;
  /** The server's identity, when it reported one. */
  serverInfo?: Implementation;
  /** The server's capabilities. */
  capabilities: JsonObject;
  /** The server's instructions, raw. */
  instructions?: string;
}

/** Everything negotiation needs. */
export interface NegotiateContext {
  /** The transport kind (HTTP probes through `link.probe`). */
  kind: TransportKind;
  /** The first link. */
  handle: LinkHandle;
  /** Closes the current link and opens a fresh one (for `reconnect_legacy`). */
  reopen(): Promise<LinkHandle>;
  /** The protocol choice. */
  protocol: ProtocolChoice;
  /** The client's versions, preferred first. */
  versions: readonly string[];
  /** The modern version a previous connection settled on: never downgrade from it. */
  pinnedModern?: string;
  /** The era of the previous connection (a legacy reconnect skips the probe). */
  previousEra?: Era;
  /** The capabilities to declare for an era and version. */
  capabilities(era: Era, version: string): JsonObject;
  /** The client's identity. */
  clientInfo: Implementation;
  /** How long a probe waits. */
  probeTimeout: number;
  /** How long `initialize` waits. */
  requestTimeout: number;
}

const HANDSHAKE = { bare: true, progress: false, cancellable: false } as const;
const MAX_VERSION_RETRIES = 2;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function modernOnly(versions: readonly string[]): string[] {
  return versions.filter((version) => eraOf(version) === "modern");
}

function legacyOnly(versions: readonly string[]): string[] {
  return versions.filter((version) => eraOf(version) === "legacy");
}

async function probeOutcome(ctx: NegotiateContext, handle: LinkHandle, version: string) {
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
        signal: AbortSignal.timeout(ctx.probeTimeout),
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
      // The OAuth middleware refused to authorize (or the login failed): that is the answer,
      // not a probe outcome to retry.
      if (isMcpError(error) && error.kind === "auth") throw error;
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
    if (!isMcpError(error)) throw error;
    if (error.kind === "server") {
      const failure = { code: error.code ?? 0, message: error.message, data: error.data };
      return { outcome: { kind: "error", error: failure } as ProbeOutcome };
    }
    if (error.kind === "timeout") return { outcome: { kind: "timeout" } as ProbeOutcome };
    if (error.kind === "transport") {
      return { outcome: { kind: "closed", reason: error } as ProbeOutcome };
    }
    throw error;
  }
}

/** The challenge parameters an error may name: never realms, descriptions or anything else. */
const SAFE_CHALLENGE_PARAMS = ["error", "scope", "resource_metadata"] as const;

function safeParam(name: string, value: string): string | undefined {
  if (value.length > 512 || /[^\x20-\x7e]/.test(value)) return undefined;
  // A JWT or a long unbroken blob is credential-like, whatever the parameter is called.
  if (/[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./.test(value)) return undefined;
  if (name !== "resource_metadata") {
    return value.split(" ").every((part) => part.length <= 64) ? value : undefined;
  }
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`; // a query or fragment might carry a secret
  } catch {
    return undefined;
  }
}

/**
 * The scheme of a `WWW-Authenticate` challenge with only its `error`, `scope` and
 * `resource_metadata` parameters (URL query and fragment dropped, credential-like values
 * left out), or `undefined`.
 *
 * @param raw The header value.
 * @returns The safe summary.
 */
export function safeChallenge(raw: string | undefined): ChallengeSummary | undefined {
  const summary = summarizeChallenge(raw ?? null);
  if (summary === undefined || summary.scheme.length > 32) return undefined;
  const params: Record<string, string> = {};
  for (const name of SAFE_CHALLENGE_PARAMS) {
    const value = summary.params[name];
    const safe = value === undefined ? undefined : safeParam(name, value);
    if (safe !== undefined) params[name] = safe;
  }
  return { scheme: summary.scheme, params };
}

function describeSafe(summary: ChallengeSummary): string {
  const params = Object.entries(summary.params).map(([k, v]) => `${k}="${v}"`).join(", ");
  return params === "" ? summary.scheme : `${summary.scheme} ${params}`;
}

function fromDiscover(verdict: Extract<Verdict, { verdict: "modern" }>): Negotiated {
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

async function probe(ctx: NegotiateContext, versions: string[]): Promise<[LinkHandle, Negotiated]> {
  let handle = ctx.handle;
  let version = versions[0];
  for (let retries = 0;; retries++) {
    const probed = await probeOutcome(ctx, handle, version);
    const transport = ctx.kind === "http" ? "http" : "stdio";
    const verdict = classifyProbe(transport, probed.outcome, { versions });
    switch (verdict.verdict) {
      case "modern":
        return [handle, fromDiscover(verdict)];
      case "modern_retry":
        if (retries >= MAX_VERSION_RETRIES) {
          throw new McpError("The server keeps refusing the protocol version it asked for", {
            kind: "protocol",
            reason: "version_retry_loop",
          });
        }
        version = verdict.version;
        continue;
      case "legacy":
      case "reconnect_legacy": {
        const refused = refuseLegacy(ctx);
        if (refused) throw refused;
        if (verdict.verdict === "reconnect_legacy") handle = await ctx.reopen();
        return [handle, await initialize(ctx, handle, legacyOnly(ctx.versions))];
      }
      case "authorize": {
        const summary = safeChallenge(probed.challenge);
        const challenge = summary ? ` (challenge: ${describeSafe(summary)})` : "";
        throw new McpError(
          `The server requires authorization (HTTP ${verdict.status})${challenge}; OAuth is not configured`,
          {
            kind: "auth",
            reason: "oauth_not_configured",
            data: { status: verdict.status, challenge: summary },
          },
        );
      }
      case "retry":
        throw new McpError("The server/discover probe failed for now; retrying later", {
          kind: "transport",
          reason: "probe_retry",
          data: { retryAfterMs: probed.retryAfterMs },
          cause: verdict.reason,
        });
      case "error":
        throw verdict.error;
    }
  }
}

async function initialize(
  ctx: NegotiateContext,
  handle: LinkHandle,
  offered: string[],
): Promise<Negotiated> {
  if (offered.length === 0) {
    throw new McpError("The client offers no legacy protocol version", {
      kind: "protocol",
      reason: "no_common_version",
    });
  }
  let requested = offered[0];
  let result: JsonObject | undefined;
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
  return {
    era: "legacy",
    version,
    serverInfo: isObject(result.serverInfo) ? result.serverInfo as Implementation : undefined,
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === "string" ? result.instructions : undefined,
  };
}

/**
 * Starts a new legacy session on a live link whose session expired: a fresh `initialize`
 * (the link sends it without the old session id) and `notifications/initialized`, offering
 * `version` first.
 *
 * @param ctx The client's settings (`handle` and `reopen` are not used).
 * @param handle The link.
 * @param version The version of the expired session.
 * @returns The new session's outcome.
 * @throws {McpError} As `initialize` does.
 */
export function renewLegacySession(
  ctx: NegotiateContext,
  handle: LinkHandle,
  version: string,
): Promise<Negotiated> {
  const offered = eraOf(ctx.protocol) === "legacy"
    ? [ctx.protocol]
    : [version, ...legacyOnly(ctx.versions).filter((v) => v !== version)];
  return initialize(ctx, handle, offered);
}

/**
 * Settles the era and version on a fresh link, as the protocol choice says.
 *
 * @param ctx The link, the choice and the client's settings.
 * @returns The link negotiation ended on (a new one after `reconnect_legacy`) and the outcome.
 * @throws {McpError} `protocol` (no common version, a refused downgrade), `auth`,
 * `transport`/`timeout` (retry later), or a `server` error.
 */
export function negotiate(ctx: NegotiateContext): Promise<[LinkHandle, Negotiated]> {
  const { protocol, versions } = ctx;
  if (protocol === "legacy") {
    return initialize(ctx, ctx.handle, legacyOnly(versions)).then((n) => [ctx.handle, n]);
  }
  if (protocol === "modern") return probe(ctx, modernOnly(versions));
  if (protocol !== "auto") {
    if (eraOf(protocol) === "legacy") {
      return initialize(ctx, ctx.handle, [protocol]).then((n) => [ctx.handle, n]);
    }
    return probe(ctx, [protocol]);
  }
  if (ctx.pinnedModern !== undefined) return probe(ctx, modernOnly(versions));
  const modern = modernOnly(versions);
  if (ctx.previousEra === "legacy" || modern.length === 0) {
    return initialize(ctx, ctx.handle, legacyOnly(versions)).then((n) => [ctx.handle, n]);
  }
  return probe(ctx, modern);
}

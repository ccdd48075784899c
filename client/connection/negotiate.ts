/**
 * Era negotiation on a fresh link: the `server/discover` probe (as a normal request on
 * stdio and in-process links, through `link.probe` on HTTP), the verdict of
 * `classifyProbe`, and the legacy `initialize` handshake with version negotiation (the
 * exchanges themselves are in `_handshake.ts`, and in `_initialize.ts` for the legacy
 * handshake, which loads with the first legacy server).
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import { classifyProbe } from "../../protocol/negotiation.ts";
import { type Era, era as eraOf } from "../../protocol/versions.ts";
import { fromDiscover, probeOutcome } from "./_handshake.ts";
import type { LinkHandle, NegotiateContext, Negotiated } from "./_link.ts";

export type { LinkHandle, NegotiateContext, Negotiated } from "./_link.ts";

const MAX_VERSION_RETRIES = 2;

function only(era: Era, versions: readonly string[]): string[] {
  return versions.filter((version) => eraOf(version) === era);
}

/** The legacy handshake and what leads to it (`_initialize.ts`, with the first legacy server). */
const legacyLayer = () => import("./_initialize.ts");

/** The legacy handshake on the first link. */
async function legacy(
  ctx: NegotiateContext,
  offered: string[],
): Promise<[LinkHandle, Negotiated]> {
  return await (await legacyLayer()).initialize(ctx, ctx.handle, offered);
}

function causeText(cause: unknown): string {
  const text = typeof cause === "string" ? cause : (cause as { message?: unknown } | null)?.message;
  return typeof text === "string" && text !== "" ? ` (${text})` : "";
}

async function probe(ctx: NegotiateContext, versions: string[]): Promise<[LinkHandle, Negotiated]> {
  const handle = ctx.handle;
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
      case "reconnect_legacy":
        return await (await legacyLayer()).afterProbe(
          ctx,
          handle,
          verdict.verdict === "reconnect_legacy",
          probed,
          only("legacy", ctx.versions),
        );
      case "authorize": {
        // The challenge's allow-list loads with the first refusal.
        const { describeChallenge, safeChallenge } = await import(
          "../../transports/challenge_summary.ts"
        );
        const summary = safeChallenge(probed.challenge);
        const challenge = summary ? ` (challenge: ${describeChallenge(summary)})` : "";
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
        throw new McpError(`The server/discover probe failed${causeText(verdict.reason)}`, {
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
    : [version, ...only("legacy", ctx.versions).filter((v) => v !== version)];
  return legacyLayer().then(({ initialize }) => initialize(ctx, handle, offered, false))
    .then(([, negotiated]) => negotiated);
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
  if (protocol === "legacy") return legacy(ctx, only("legacy", versions));
  if (protocol === "modern") return probe(ctx, only("modern", versions));
  if (protocol !== "auto") {
    if (eraOf(protocol) === "legacy") return legacy(ctx, [protocol]);
    return probe(ctx, [protocol]);
  }
  if (ctx.pinnedModern !== undefined) return probe(ctx, only("modern", versions));
  const modern = only("modern", versions);
  if (ctx.previousEra === "legacy" || modern.length === 0) {
    return legacy(ctx, only("legacy", versions));
  }
  return probe(ctx, modern);
}

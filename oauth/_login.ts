/**
 * Private: a user's login for one recovery — the browser (authorization code) flow or the
 * device flow, picked per authorization server — with the account check of a bound profile.
 * The device flow loads only when a login uses it.
 *
 * @module
 */

import type { Discovery } from "./discovery.ts";
import type { DpopSigner } from "./dpop.ts";
import type { Grant, Need, RecoveryContext, Session } from "./_engine_types.ts";
import type { TokenSet } from "./store.ts";
import { authorizeInteractively, type InteractiveContext } from "./_interactive.ts";
import { oauthError } from "./_util.ts";
import { flowOf, type OAuthOptions } from "./options.ts";

function interactive(ctx: RecoveryContext): InteractiveContext {
  const o = (ctx.grant as Extract<Grant, { kind: "authorization_code" }>).options;
  return {
    options: o,
    client: o.client === undefined ? undefined : { ...o.client, issuer: ctx.boundIssuer },
    configured: ctx.configured,
    store: ctx.store,
    principal: ctx.principal,
    timeout: ctx.timeout,
    waiters: ctx.waiters,
    fetch: ctx.http(),
    now: ctx.now,
    fresh: ctx.fresh,
    auth: ctx.auth,
    profile: ctx.profile,
  };
}

/**
 * The flow a login uses at `d`: `"auto"` is the device flow when the server offers it and
 * no browser can come back here (no callback receiver or redirect URI, no
 * `onAuthorizationUrl`, or the receiver reports no display, an SSH session or CI).
 */
function pickFlow(o: OAuthOptions, d: Discovery): "browser" | "device" {
  const flow = flowOf(o);
  if (flow !== "auto") return flow;
  if (typeof d.metadata.device_authorization_endpoint !== "string") return "browser";
  if (o.onAuthorizationUrl === undefined) return "device";
  if (o.callback === undefined) return o.redirectUri === undefined ? "device" : "browser";
  return o.callback.browserUnavailable?.() === undefined ? "browser" : "device";
}

/** With `expectSubject`, tokens for another account are refused (and not kept). */
function checkSubject(o: OAuthOptions, tokens: TokenSet): void {
  if (o.expectSubject === undefined || tokens.subject === o.expectSubject) return;
  throw oauthError(
    tokens.subject === undefined
      ? `The login did not say which account it is; this profile is bound to ${o.expectSubject}`
      : `The login returned another account than the one this profile is bound to (${o.expectSubject}); nothing was kept`,
    "identity_mismatch",
    { expected: o.expectSubject },
  );
}

/** Runs a user's login (browser or device flow), reporting it to `ctx.auth`. */
export async function logIn(
  ctx: RecoveryContext,
  session: Session,
  d: Discovery,
  need: Need,
  signal: AbortSignal,
  dpop: DpopSigner | undefined,
): Promise<{ tokens: TokenSet; scopes?: string[] }> {
  const o = (ctx.grant as Extract<Grant, { kind: "authorization_code" }>).options;
  const before = ctx.auth.status().state;
  try {
    // The device flow loads only when a login uses it.
    const obtained = pickFlow(o, d) === "device"
      ? await (await import("./_device.ts")).authorizeWithDevice(
        interactive(ctx),
        session,
        d,
        need,
        signal,
        dpop,
        ctx.auth,
      )
      : await authorizeInteractively(interactive(ctx), session, d, need, signal, dpop);
    checkSubject(o, obtained.tokens);
    return obtained;
  } catch (error) {
    if (ctx.auth.status().state === "pending") {
      ctx.auth.set(before === "pending" ? "none" : before);
    }
    throw error;
  }
}

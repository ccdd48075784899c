/**
 * Private: how the engine gets tokens for one recovery. It runs discovery again (or reuses
 * the last one for a proactive refresh), takes fresh tokens another process stored, tries
 * a refresh, and only then obtains brand-new tokens: the interactive authorization code
 * flow, or the client credentials grant. Configured client credentials stay bound to one
 * authorization server, and DPoP keys are made only where the resource asks for them.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { timeoutSignal } from "../clock/timer.ts";
import { loginScopes } from "./authorize.ts";
import type { ResourceChallenge } from "./challenge.ts";
import { chooseAuthMethod, type TokenClient } from "./client_auth.ts";
import { tokenClient } from "./client_credentials.ts";
import { clientCredentialsToken } from "./client_credentials_grant.ts";
import { discover, type Discovery } from "./discovery.ts";
import { createDpopSigner, dpopAlgorithm, type DpopSigner } from "./dpop.ts";
import type { Grant, Need, Recovery, RecoveryContext, Session } from "./_engine_types.ts";
import { logIn } from "./_login.ts";
import type { TokenKey, TokenSet } from "./store.ts";
import { refreshRequest, type TokenContext, withNonceRetry } from "./token.ts";
import { processTokenResponse } from "./token_response.ts";
import { oauthError } from "./_util.ts";
import { needsReauthError } from "./auth_status.ts";

/** The store key of the tokens for a discovery. */
export function keyOf(ctx: RecoveryContext, d: Discovery): TokenKey {
  const key: TokenKey = { principal: ctx.principal, issuer: d.issuer, resource: d.resource };
  if (ctx.profile !== undefined) key.profile = ctx.profile;
  return key;
}

function checkBinding(ctx: RecoveryContext, issuer: string): void {
  const grant = ctx.grant;
  if (grant.kind === "authorization_code" && grant.options.client === undefined) return;
  if (ctx.boundIssuer === undefined) {
    ctx.boundIssuer = issuer;
    return;
  }
  if (ctx.boundIssuer !== issuer) {
    throw oauthError(
      `The configured client credentials belong to ${ctx.boundIssuer}, but the server now uses ` +
        `the authorization server ${issuer}; refusing to present them there`,
      "client_mismatch",
      { expected: ctx.boundIssuer, issuer },
    );
  }
}

/**
 * The DPoP signer to bind new tokens with: always with `dpop: true` (or a key pair); with
 * `"auto"` only when the resource asks for DPoP (a `DPoP` challenge, or
 * `dpop_bound_access_tokens_required`) and the authorization server lists ES256, so a
 * Bearer-only resource never gets tokens it cannot accept.
 */
async function dpopFor(
  ctx: RecoveryContext,
  session: Session,
  d: Discovery,
  challenge: ResourceChallenge | undefined,
): Promise<DpopSigner | undefined> {
  const setting = ctx.grant.options.dpop ?? "auto";
  if (setting === false) return undefined;
  if (setting === "auto" && challenge !== undefined) {
    const listed = d.metadata.dpop_signing_alg_values_supported;
    const wanted = challenge.dpop === true ||
      d.resourceMetadata?.dpop_bound_access_tokens_required === true;
    if (!wanted || !Array.isArray(listed) || dpopAlgorithm(listed) === undefined) {
      return undefined;
    }
  }
  if (session.dpop === undefined) {
    const now = ctx.now;
    session.dpop = typeof setting === "object"
      ? await createDpopSigner({ keyPair: setting.keyPair, algorithm: setting.algorithm, now })
      : await createDpopSigner({ now });
  }
  return session.dpop;
}

/** A known client (pre-registered or kept) with the method it authenticates with there. */
function knownClient(
  client: { clientId: string; clientSecret?: string; tokenEndpointAuthMethod?: string },
  d: Discovery,
): TokenClient {
  return {
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    method: chooseAuthMethod(
      client.tokenEndpointAuthMethod,
      client.clientSecret !== undefined,
      d.metadata,
    ),
  };
}

/** The client the tokens were issued to, when this engine still knows it. */
async function clientFor(
  ctx: RecoveryContext,
  d: Discovery,
  tokens: TokenSet,
): Promise<TokenClient | undefined> {
  const grant = ctx.grant;
  if (grant.kind === "client_credentials") return await tokenClient(grant.options, d.metadata);
  const clientId = tokens.clientId;
  if (clientId === undefined) return undefined;
  const pre = grant.options.client;
  if (pre !== undefined && pre.clientId === clientId) return knownClient(pre, d);
  const kept = await ctx.store.getClient(d.issuer);
  if (kept !== undefined && kept.clientId === clientId) return knownClient(kept, d);
  if (clientId === grant.options.clientMetadataUrl) return { clientId, method: "none" };
  return undefined;
}

function tokenContext(
  ctx: RecoveryContext,
  d: Discovery,
  client: TokenClient,
  signal: AbortSignal,
  dpop: DpopSigner | undefined,
): TokenContext {
  return {
    metadata: d.metadata,
    client,
    resource: d.resource,
    fetch: ctx.http(),
    signal,
    dpop: dpop?.handle,
    now: ctx.now,
  };
}

async function refresh(
  ctx: RecoveryContext,
  session: Session,
  d: Discovery,
  tokens: TokenSet,
  signal: AbortSignal,
): Promise<TokenSet | "refused" | undefined> {
  const client = await clientFor(ctx, d, tokens);
  if (client === undefined || tokens.refreshToken === undefined) return undefined;
  // A DPoP-bound token is refreshed with the same key (no challenge: no auto decision).
  const dpop = tokens.tokenType === "DPoP" ? await dpopFor(ctx, session, d, undefined) : undefined;
  const tc = tokenContext(ctx, d, client, signal, dpop);
  const refreshToken = tokens.refreshToken;
  try {
    const next = await withNonceRetry(
      () => refreshRequest(tc, refreshToken),
      (response) =>
        processTokenResponse(tc, response, { grant: "refresh_token", previous: tokens }),
    );
    return { ...next, clientId: client.clientId };
  } catch (error) {
    // A refused refresh (expired, revoked, rotated elsewhere) means: log in again.
    if (error instanceof McpError && error.reason === "refresh_failed") return "refused";
    throw error;
  }
}

async function obtainCredentials(
  ctx: RecoveryContext,
  session: Session,
  d: Discovery,
  need: Need,
  signal: AbortSignal,
): Promise<{ tokens: TokenSet; scopes?: string[] }> {
  const o = (ctx.grant as Extract<Grant, { kind: "client_credentials" }>).options;
  checkBinding(ctx, d.issuer);
  const scopes = loginScopes({
    configured: ctx.configured,
    need,
    session,
    discovery: d,
    offlineAccess: false,
  });
  const dpop = await dpopFor(ctx, session, d, need.challenge);
  const client = await tokenClient(o, d.metadata);
  const tokens = await clientCredentialsToken(
    tokenContext(ctx, d, client, signal, dpop),
    { scope: scopes?.join(" "), assertion: o.assertion },
  );
  return { tokens: { ...tokens, clientId: client.clientId }, scopes };
}

/**
 * Runs one recovery: discovery, stored tokens, a refresh, then brand-new tokens.
 *
 * @param ctx The engine's context.
 * @param session The endpoint's state (updated with the discovery, tokens and scopes).
 * @param need What the recovery must do.
 * @param life Aborted when the engine's authorizations are abandoned.
 */
export async function recoverTokens(
  ctx: RecoveryContext,
  session: Session,
  need: Need,
  life: AbortSignal,
): Promise<Recovery> {
  const { grant, store } = ctx;
  const signal = AbortSignal.any([timeoutSignal(ctx.timeout), life]);
  if (need.challenge.resourceMetadata !== undefined) {
    session.resourceMetadataUrl = need.challenge.resourceMetadata;
  }
  // Every refusal runs discovery again (the resource may have moved to another
  // authorization server); a proactive refresh uses the last one.
  const d = need.refreshOnly && session.discovery !== undefined
    ? session.discovery
    : await discover(session.serverUrl, {
      resourceMetadataUrl: session.resourceMetadataUrl,
      fetch: ctx.http(),
      signal,
      selectAuthorizationServer: grant.options.selectAuthorizationServer,
    });
  session.discovery = d;
  const key = keyOf(ctx, d);
  if (!need.stepUp && !need.reauthorize && !ctx.forceLogin) {
    const stored = await store.getTokens(key);
    if (
      stored !== undefined && stored.accessToken !== need.failed?.accessToken &&
      ctx.fresh(stored) && (stored.tokenType !== "DPoP" || session.dpop !== undefined)
    ) {
      session.tokens = stored;
      ctx.auth.set("ok");
      return { tokens: stored, how: "stored" };
    }
    const candidates = [stored, session.tokens].filter((t, i, all): t is TokenSet =>
      t !== undefined && t.refreshToken !== undefined && t.issuer === d.issuer &&
      t.resource === d.resource &&
      // One refresh token is tried once, even when the store and the session both hold it.
      (i === 0 || all[0]?.refreshToken !== t.refreshToken)
    );
    let refused = false;
    for (const candidate of candidates) {
      const refreshed = await refresh(ctx, session, d, candidate, signal);
      if (refreshed === "refused") refused = true;
      else if (refreshed !== undefined) {
        await store.setTokens(key, refreshed);
        session.tokens = refreshed;
        ctx.auth.set("ok");
        return { tokens: refreshed, how: "refreshed" };
      }
    }
    if (stored !== undefined) await store.deleteTokens(key);
    // A refused refresh never starts a login by itself: the user is asked to log in again.
    if (refused && grant.kind === "authorization_code") {
      session.tokens = undefined;
      ctx.auth.set("needs_reauth");
      throw needsReauthError();
    }
  }
  if (need.refreshOnly && grant.kind === "authorization_code" && need.failed !== undefined) {
    return { tokens: need.failed, how: "current" };
  }
  let obtained: { tokens: TokenSet; scopes?: string[] };
  if (grant.kind === "authorization_code") {
    checkBinding(ctx, d.issuer);
    const dpop = await dpopFor(ctx, session, d, need.challenge);
    obtained = await logIn(ctx, session, d, need, signal, dpop);
    ctx.forceLogin = false;
  } else obtained = await obtainCredentials(ctx, session, d, need, signal);
  session.scopes = obtained.scopes;
  await store.setTokens(key, obtained.tokens);
  session.tokens = obtained.tokens;
  ctx.auth.set("ok");
  return { tokens: obtained.tokens, how: "authorized" };
}

/**
 * Private: the device authorization grant (RFC 8628), loaded only when a login uses it. It
 * registers (or reuses) a client with the device grant, asks the authorization server's
 * `device_authorization_endpoint` for a code, hands it to `onDeviceCode` once, and polls
 * the token endpoint at the server's `interval`: `authorization_pending` waits,
 * `slow_down` adds 5 seconds, `expired_token` and `access_denied` end it. No listener is
 * opened and no browser is started.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import { McpError } from "../protocol/errors.ts";
import { serverDelay, startTimer } from "../clock/timer.ts";
import type { AuthTracker } from "./auth_status.ts";
import { clientAuthentication } from "./client_auth.ts";
import type { Discovery } from "./discovery.ts";
import type { DpopSigner } from "./dpop.ts";
import { type InteractiveContext, type InteractiveNeed, prepareLogin } from "./_interactive.ts";
import type { DeviceCode } from "./options.ts";
import type { TokenSet } from "./store.ts";
import { type TokenContext, withNonceRetry } from "./token.ts";
import { processTokenResponse } from "./token_response.ts";
import { fromOAuthError, o4wOptions, tokenEndpointOptions } from "./_o4w.ts";
import { checkEndpoint, oauthError } from "./_util.ts";

/** The longest poll interval a server may ask for (ms). */
const MAX_INTERVAL = 60_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      timer.clear();
      reject(signal.reason);
    };
    const timer = startTimer(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A page the server names for the user: an `https:` URL (or `http:` on loopback). */
function userPage(value: unknown, what: string): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw oauthError(`The device authorization response has no usable ${what}`, "device_failed");
  }
  checkEndpoint(url, what);
  return url.href;
}

function errorCode(error: unknown): string | undefined {
  if (!(error instanceof McpError)) return undefined;
  const data = error.data as { error?: unknown } | undefined;
  return typeof data?.error === "string" ? data.error : undefined;
}

/**
 * Runs one device login at `d`; resolves with the tokens and the scopes asked for.
 *
 * @param ctx The interactive context (options, store, clock).
 * @param session The endpoint's scopes so far.
 * @param d The discovery.
 * @param need What the recovery asks (scopes of a challenge, step-up).
 * @param signal Ends the login (timeout, abandon).
 * @param dpop The DPoP signer, when tokens are sender-constrained.
 * @param auth Told that the login is pending, with the code.
 */
export async function authorizeWithDevice(
  ctx: InteractiveContext,
  session: { scopes?: string[] },
  d: Discovery,
  need: InteractiveNeed,
  signal: AbortSignal,
  dpop: DpopSigner | undefined,
  auth: AuthTracker,
): Promise<{ tokens: TokenSet; scopes?: string[] }> {
  const { options: o, now } = ctx;
  const endpoint = d.metadata.device_authorization_endpoint;
  if (typeof endpoint !== "string") {
    throw oauthError(
      "The authorization server offers no device flow (no device_authorization_endpoint)",
      "device_unsupported",
    );
  }
  checkEndpoint(new URL(endpoint), "device authorization endpoint");
  const { client, scopes } = await prepareLogin(ctx, session, d, need, {
    redirectUri: "",
    flow: "device",
    signal,
  });
  const scope = scopes?.join(" ");
  const params = new URLSearchParams({ resource: d.resource });
  if (scope) params.set("scope", scope);
  const as = d.metadata as oauth.AuthorizationServer;
  const o4wClient: oauth.Client = { client_id: client.clientId };
  let grant: oauth.DeviceAuthorizationResponse;
  const started = now();
  try {
    const response = await oauth.deviceAuthorizationRequest(
      as,
      o4wClient,
      clientAuthentication(client),
      params,
      o4wOptions(endpoint, { fetch: ctx.fetch, signal }),
    );
    grant = await oauth.processDeviceAuthorizationResponse(as, o4wClient, response);
  } catch (error) {
    throw fromOAuthError(error, "the device authorization request", "device_failed");
  }
  // A code is shown to the user: printable characters only (no terminal escapes).
  if (grant.user_code.length > 256 || !/^[\x20-\x7e]+$/.test(grant.user_code)) {
    throw oauthError(
      "The device authorization response has an unusable user_code",
      "device_failed",
    );
  }
  const code: DeviceCode = {
    userCode: grant.user_code,
    verificationUri: userPage(grant.verification_uri, "verification_uri"),
    expiresIn: grant.expires_in,
  };
  if (grant.verification_uri_complete !== undefined) {
    code.verificationUriComplete = userPage(
      grant.verification_uri_complete,
      "verification_uri_complete",
    );
  }
  const expiresAt = started + grant.expires_in * 1000;
  auth.set("pending", {
    url: code.verificationUriComplete ?? code.verificationUri,
    userCode: code.userCode,
    expiresAt,
  });
  try {
    await o.onDeviceCode!({ ...code }, { signal });
  } catch (cause) {
    throw new McpError("The onDeviceCode callback failed", {
      kind: "auth",
      reason: "authorization_failed",
      cause,
    });
  }
  let interval = serverDelay((grant.interval ?? 5) * 1000, 0, MAX_INTERVAL);
  const tc: TokenContext = {
    metadata: d.metadata,
    client,
    resource: d.resource,
    fetch: ctx.fetch,
    signal,
    dpop: dpop?.handle,
    now,
  };
  const expired = () =>
    oauthError(
      "The device code expired before the login was approved; log in again",
      "device_code_expired",
    );
  for (;;) {
    await sleep(interval, signal);
    try {
      const tokens = await withNonceRetry(
        () => deviceCodeRequest(tc, grant.device_code),
        (response) => processTokenResponse(tc, response, { grant: "device_code", scope }),
      );
      return { tokens: { ...tokens, issuer: d.issuer, clientId: client.clientId }, scopes };
    } catch (error) {
      switch (errorCode(error)) {
        case "authorization_pending":
          if (now() >= expiresAt) throw expired();
          continue;
        case "slow_down":
          if (now() >= expiresAt) throw expired();
          interval = Math.min(interval + 5_000, MAX_INTERVAL);
          continue;
        case "expired_token":
          throw expired();
        case "access_denied":
          throw oauthError(
            "The login was denied on the verification page",
            "authorization_denied",
            {
              error: "access_denied",
            },
          );
        default:
          throw error;
      }
    }
  }
}

async function deviceCodeRequest(ctx: TokenContext, deviceCode: string): Promise<Response> {
  try {
    return await oauth.deviceCodeGrantRequest(
      ctx.metadata as oauth.AuthorizationServer,
      { client_id: ctx.client.clientId },
      clientAuthentication(ctx.client),
      deviceCode,
      { ...tokenEndpointOptions(ctx), additionalParameters: { resource: ctx.resource } },
    );
  } catch (error) {
    throw fromOAuthError(error, "the token request", "token_failed");
  }
}

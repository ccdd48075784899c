/**
 * Completing an authorization from the URL the browser was redirected to, for hosts whose
 * web server is separate from the MCP client (and for `OAuthMiddleware.handleCallback` when
 * no request of its own waits for the `state`).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import type { PreRegisteredClient } from "./registration.ts";
import type { TokenStore } from "./store.ts";
import { type FetchLike, oauthError } from "./_util.ts";
import { recordingFetch } from "./recording_fetch.ts";
import { createSecrets } from "../protocol/secrets.ts";
import { callbackState } from "./authorize.ts";
import { chooseAuthMethod } from "./client_auth.ts";
import { exchangeCode } from "./_interactive.ts";

// What the middleware's callback path needs with it, in the same lazy load.
export { oauthError };

/**
 * The callback as a URL: a full URL as it is, a bare query (with or without `?`) on a
 * placeholder origin.
 *
 * @param callback The redirect URL, or its query.
 * @returns The URL to read the response parameters from.
 * @throws {TypeError} When `callback` is neither a string nor a URL.
 */
export function callbackUrl(callback: string | URL): URL {
  if (callback instanceof URL) return new URL(callback.href);
  if (typeof callback !== "string") throw new TypeError("callback must be a URL or a string");
  try {
    return new URL(callback);
  } catch {
    const query = callback.startsWith("?") ? callback : `?${callback}`;
    return new URL(`http://callback.invalid/${query}`);
  }
}

/** Options for the standalone {@linkcode handleCallback}. */
export interface HandleCallbackOptions {
  /** The store the authorization was started with (its pending record is read from it). */
  store: TokenStore;
  /** The `fetch` for the token request. */
  fetch?: FetchLike;
  /** The pre-registered client, when the authorization used one (for its secret). */
  client?: PreRegisteredClient;
  /** A client (or anything with `authorized()`) to tell once the tokens are stored. */
  mcpClient?: { authorized(): unknown };
  /** The clock. */
  now?: () => number;
}

/**
 * Completes an authorization from the URL the browser was redirected to, for hosts whose
 * web server is separate from the MCP client: finds the pending authorization (by `state`)
 * in the shared store, checks the response (`iss`, `state`, `error`), exchanges the code,
 * stores the tokens, and calls `mcpClient.authorized()`.
 *
 * @param callback The redirect URL (or its query).
 * @param options The store, `fetch`, the pre-registered client, the MCP client to wake.
 * @throws {McpError} kind `auth`: `unknown_state` (no such pending authorization, or it
 *   expired or was used), and the reasons of the checks and the token request.
 *
 * @example
 * ```ts
 * import { handleCallback } from "./handle_callback.ts";
 * import { memoryTokenStore } from "./store.ts";
 *
 * try {
 *   await handleCallback("http://127.0.0.1:8765/callback?code=c&state=nope", { store: memoryTokenStore() });
 *   throw new Error("accepted");
 * } catch (error) {
 *   if ((error as { reason?: string }).reason !== "unknown_state") throw error;
 * }
 * ```
 */
export async function handleCallback(
  callback: string | URL,
  options: HandleCallbackOptions,
): Promise<void> {
  if (typeof options !== "object" || options === null || typeof options.store !== "object") {
    throw new TypeError("options.store must be a TokenStore");
  }
  checkKeys(options, ["store", "fetch", "client", "mcpClient", "now"], "handleCallback options");
  const url = callbackUrl(callback);
  const state = callbackState(url);
  const pending = state === undefined ? undefined : await options.store.getPending(state);
  if (pending === undefined) {
    throw oauthError(
      "No pending authorization matches this callback (unknown, expired or already used state)",
      "unknown_state",
    );
  }
  await options.store.deletePending(pending.state);
  const metadata = pending.metadata as AuthorizationServerMetadata;
  let clientSecret: string | undefined;
  if (options.client !== undefined && options.client.clientId === pending.clientId) {
    clientSecret = options.client.clientSecret;
  } else {
    const kept = await options.store.getClient(pending.issuer);
    if (kept !== undefined && kept.clientId === pending.clientId) clientSecret = kept.clientSecret;
  }
  const method = chooseAuthMethod(
    pending.tokenEndpointAuthMethod,
    clientSecret !== undefined,
    metadata,
  );
  // What the token endpoint writes back never carries the code, the verifier or the secret.
  const secrets = createSecrets();
  for (const secret of [clientSecret, pending.codeVerifier]) secrets.add(secret, true);
  const fetch = recordingFetch(
    options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    secrets,
  );
  secrets.add(url.searchParams.get("code") ?? undefined, true);
  const tokens = await exchangeCode(pending, url, {
    clientId: pending.clientId,
    clientSecret,
    method,
  }, { fetch, now: options.now }).catch((error) => {
    throw secrets.error(error);
  });
  await options.store.setTokens(
    {
      principal: pending.principal,
      issuer: pending.issuer,
      resource: pending.resource,
      ...(pending.profile === undefined ? {} : { profile: pending.profile }),
    },
    tokens,
  );
  try {
    options.mcpClient?.authorized();
  } catch (cause) {
    throw new McpError("The client could not be told about the new tokens", {
      kind: "auth",
      reason: "authorized_failed",
      cause,
    });
  }
}

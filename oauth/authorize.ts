/**
 * The authorization request (authorization code + PKCE S256, `state`, `resource`, scope
 * selection) and the checks of its response (RFC 9207 `iss`, `state`, `error`).
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import type { AuthorizationServerMetadata } from "./server_metadata.ts";
import type { PendingAuthorization } from "./store.ts";
import { checkEndpoint, oauthError } from "./_util.ts";

/** The inputs of {@linkcode selectScopes}. */
export interface ScopeInputs {
  /** Scopes configured by the host: used as the base instead of the discovered ones. */
  configured?: string[];
  /** The 401/403 challenge's `scope` (authoritative for the current operation). */
  challenged?: string[];
  /** The protected resource metadata's `scopes_supported`. */
  resourceScopes?: string[];
  /** Scopes asked for before (step-up asks for the union). */
  previous?: string[];
  /** The authorization server's `scopes_supported` (for `offline_access`). */
  serverScopes?: string[];
  /** Whether to ask for `offline_access` when the server lists it (default `true`). */
  offlineAccess?: boolean;
}

/**
 * Picks the scopes to request: the configured ones, else the challenge's, else the
 * resource's `scopes_supported`, else none (the parameter is omitted); then the union with
 * the scopes asked for before (step-up); plus `offline_access` only when the authorization
 * server lists it (and some scope is requested at all).
 *
 * @param inputs The sources.
 * @returns The scopes, or `undefined` to omit `scope`.
 *
 * @example
 * ```ts
 * import { selectScopes } from "./authorize.ts";
 *
 * const first = selectScopes({ challenged: ["mcp:basic"], resourceScopes: ["mcp:profile"] });
 * const stepUp = selectScopes({ challenged: ["mcp:write"], previous: first });
 * if (stepUp?.join(" ") !== "mcp:basic mcp:write") throw new Error();
 * const offline = selectScopes({ resourceScopes: ["a"], serverScopes: ["a", "offline_access"] });
 * if (offline?.join(" ") !== "a offline_access") throw new Error();
 * if (selectScopes({}) !== undefined) throw new Error();
 * ```
 */
export function selectScopes(inputs: ScopeInputs): string[] | undefined {
  const base = inputs.configured ?? inputs.challenged ?? inputs.resourceScopes;
  const scopes = new Set<string>([...(inputs.previous ?? []), ...(base ?? [])]);
  if (scopes.size === 0) return undefined;
  if (inputs.offlineAccess !== false && inputs.serverScopes?.includes("offline_access")) {
    scopes.add("offline_access");
  }
  return [...scopes];
}

/** What a login knows when it picks its scopes (see {@linkcode loginScopes}). */
export interface LoginScopeInputs {
  /** The host's configured scopes (not used on a step-up). */
  configured?: string[];
  /** The recovery: its challenge, whether it steps up, the tokens that were refused. */
  need: { challenge: { scope?: string[] }; stepUp?: boolean; failed?: { scope?: string } };
  /** The scopes this endpoint's session asked for before. */
  session: { scopes?: string[] };
  /** The discovery: the resource's and the authorization server's `scopes_supported`. */
  discovery: {
    resourceMetadata?: { scopes_supported?: string[] };
    metadata: { scopes_supported?: string[] };
  };
  /** Whether to ask for `offline_access` when the server lists it (default `true`). */
  offlineAccess?: boolean;
}

/**
 * The scopes a login asks for, whichever grant runs it (browser, device, client
 * credentials): {@linkcode selectScopes} over the configured scopes (not on a step-up), the
 * challenge's and the resource's; on a step-up, the union with what was asked before — the
 * session's scopes, or the refused token's when this process never logged in itself (its
 * tokens came from a store).
 *
 * @param inputs What the login knows.
 * @returns The scopes, or `undefined` to omit `scope`.
 *
 * @example
 * ```ts
 * import { loginScopes } from "./authorize.ts";
 *
 * const scopes = loginScopes({
 *   need: { challenge: { scope: ["mcp:write"] }, stepUp: true, failed: { scope: "mcp:read" } },
 *   session: {},
 *   discovery: { metadata: {} },
 * });
 * if (scopes?.join(" ") !== "mcp:read mcp:write") throw new Error();
 * ```
 */
export function loginScopes(inputs: LoginScopeInputs): string[] | undefined {
  const { need, session, discovery } = inputs;
  const granted = need.failed?.scope?.split(/\s+/).filter((s) => s !== "");
  return selectScopes({
    configured: need.stepUp ? undefined : inputs.configured,
    challenged: need.challenge.scope,
    resourceScopes: discovery.resourceMetadata?.scopes_supported,
    previous: need.stepUp ? session.scopes ?? (granted?.length ? granted : undefined) : undefined,
    serverScopes: discovery.metadata.scopes_supported,
    offlineAccess: inputs.offlineAccess,
  });
}

/** What {@linkcode startAuthorization} needs. */
export interface AuthorizationRequestInputs {
  /** The issuer the metadata was checked against (recorded for the `iss` check). */
  issuer: string;
  /** The authorization server metadata. */
  metadata: AuthorizationServerMetadata;
  /** The `client_id`. */
  clientId: string;
  /** How the client authenticates when it exchanges the code. */
  tokenEndpointAuthMethod: string;
  /** The `redirect_uri`. */
  redirectUri: string;
  /** The `resource` (RFC 8707). */
  resource: string;
  /** The scopes, or `undefined` to omit `scope`. */
  scopes?: string[];
  /** Whom the tokens will be for. */
  principal: string;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

/**
 * Builds an authorization request: a fresh `state` and PKCE verifier, the S256 challenge,
 * and the URL to send the user to. The returned {@linkcode PendingAuthorization} is what
 * the callback is checked against; keep it (it holds the verifier) until then.
 *
 * @param inputs The server, client, redirect URI, resource and scopes.
 * @returns The URL and the pending authorization.
 * @throws {McpError} kind `auth`: `pkce_unsupported` when the server does not list S256,
 *   `invalid_metadata` without an authorization endpoint.
 *
 * @example
 * ```ts
 * import { startAuthorization } from "./authorize.ts";
 *
 * const { url, pending } = await startAuthorization({
 *   issuer: "https://as.example.com",
 *   metadata: {
 *     issuer: "https://as.example.com",
 *     authorization_endpoint: "https://as.example.com/authorize",
 *     code_challenge_methods_supported: ["S256"],
 *   },
 *   clientId: "c1",
 *   tokenEndpointAuthMethod: "none",
 *   redirectUri: "http://127.0.0.1:8765/callback",
 *   resource: "https://mcp.example.com/mcp",
 *   scopes: ["files:read"],
 *   principal: "default",
 * });
 * if (url.searchParams.get("state") !== pending.state) throw new Error();
 * if (url.searchParams.get("code_challenge_method") !== "S256") throw new Error();
 * if (url.searchParams.get("resource") !== "https://mcp.example.com/mcp") throw new Error();
 * ```
 */
export async function startAuthorization(
  inputs: AuthorizationRequestInputs,
): Promise<{ url: URL; pending: PendingAuthorization }> {
  const { metadata } = inputs;
  const methods = metadata.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes("S256")) {
    throw oauthError(
      "The authorization server does not list PKCE S256 in code_challenge_methods_supported; " +
        "refusing to authorize without it",
      "pkce_unsupported",
    );
  }
  if (typeof metadata.authorization_endpoint !== "string") {
    throw oauthError("The authorization server has no authorization_endpoint", "invalid_metadata");
  }
  const url = new URL(metadata.authorization_endpoint);
  checkEndpoint(url, "authorization endpoint");
  const state = oauth.generateRandomState();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", inputs.clientId);
  url.searchParams.set("redirect_uri", inputs.redirectUri);
  url.searchParams.set("code_challenge", challenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  const scope = inputs.scopes?.join(" ");
  if (scope) url.searchParams.set("scope", scope);
  url.searchParams.set("resource", inputs.resource);
  const pending: PendingAuthorization = {
    state,
    codeVerifier,
    issuer: inputs.issuer,
    metadata: { ...metadata },
    redirectUri: inputs.redirectUri,
    resource: inputs.resource,
    clientId: inputs.clientId,
    tokenEndpointAuthMethod: inputs.tokenEndpointAuthMethod,
    principal: inputs.principal,
    createdAt: (inputs.now ?? Date.now)(),
  };
  if (scope) pending.scope = scope;
  return { url, pending };
}

/**
 * Reads the `state` of a callback URL (or query), to find its pending authorization.
 *
 * @param callback The URL the browser was redirected to, or its query.
 * @returns The `state`, if any.
 *
 * @example
 * ```ts
 * import { callbackState } from "./authorize.ts";
 *
 * if (callbackState("http://127.0.0.1:8765/callback?code=c&state=s1") !== "s1") throw new Error();
 * ```
 */
export function callbackState(callback: URL | URLSearchParams | string): string | undefined {
  return callbackParams(callback).get("state") ?? undefined;
}

function callbackParams(callback: URL | URLSearchParams | string): URLSearchParams {
  if (callback instanceof URLSearchParams) return new URLSearchParams(callback);
  if (callback instanceof URL) return new URLSearchParams(callback.search);
  const text = String(callback);
  try {
    return new URLSearchParams(new URL(text).search);
  } catch {
    return new URLSearchParams(text.startsWith("?") ? text.slice(1) : text);
  }
}

/**
 * Checks an authorization response against its pending authorization, in this order:
 * `iss` (RFC 9207: compared as plain strings with the recorded issuer whenever present;
 * required when the server advertises `authorization_response_iss_parameter_supported`),
 * `state`, then an `error`. A mismatched `iss` is refused without showing the response's
 * `error` or `error_description`.
 *
 * @param pending The pending authorization (from {@linkcode startAuthorization}).
 * @param callback The URL the browser was redirected to, or its query.
 * @returns The parameters to exchange (they carry the code).
 * @throws {McpError} kind `auth`: `iss_mismatch`, `iss_missing`, `state_mismatch`,
 *   `authorization_denied`, `invalid_callback`.
 *
 * @example
 * ```ts
 * import { validateCallback } from "./authorize.ts";
 * import type { PendingAuthorization } from "./store.ts";
 *
 * const pending = {
 *   state: "s1", codeVerifier: "v", issuer: "https://as.example.com",
 *   metadata: { issuer: "https://as.example.com", authorization_response_iss_parameter_supported: true },
 *   redirectUri: "http://127.0.0.1:8765/callback", resource: "https://mcp.example.com/mcp",
 *   clientId: "c1", tokenEndpointAuthMethod: "none", principal: "default", createdAt: 0,
 * } satisfies PendingAuthorization;
 * const ok = validateCallback(pending, "http://127.0.0.1:8765/callback?code=c&state=s1&iss=https%3A%2F%2Fas.example.com");
 * if (ok.get("code") !== "c") throw new Error();
 * try {
 *   validateCallback(pending, "http://127.0.0.1:8765/callback?code=c&state=s1&iss=https%3A%2F%2Fas.example.com%2F");
 *   throw new Error("accepted a normalized iss");
 * } catch (error) {
 *   if ((error as { reason?: string }).reason !== "iss_mismatch") throw error;
 * }
 * ```
 */
export function validateCallback(
  pending: PendingAuthorization,
  callback: URL | URLSearchParams | string,
): URLSearchParams {
  const params = callbackParams(callback);
  const iss = params.get("iss");
  const advertised = pending.metadata.authorization_response_iss_parameter_supported === true;
  if (iss === null) {
    if (advertised) {
      throw oauthError(
        "The authorization response has no iss although the authorization server advertises " +
          "it (RFC 9207); refusing it",
        "iss_missing",
      );
    }
  } else if (iss !== pending.issuer) {
    throw oauthError(
      `The authorization response came from another issuer (iss does not equal ${pending.issuer}); refusing it`,
      "iss_mismatch",
      { expected: pending.issuer },
    );
  }
  if (params.get("state") !== pending.state) {
    throw oauthError(
      "The authorization response has the wrong state; refusing it",
      "state_mismatch",
    );
  }
  const error = params.get("error");
  if (error !== null) {
    const description = params.get("error_description");
    throw oauthError(
      `The authorization was refused (${error.slice(0, 100)}${
        description ? `: ${description.slice(0, 200)}` : ""
      })`,
      "authorization_denied",
      { error: error.slice(0, 100) },
    );
  }
  if (!params.get("code")) {
    throw oauthError("The authorization response has no code", "invalid_callback");
  }
  try {
    return oauth.validateAuthResponse(
      {
        issuer: pending.issuer,
        authorization_response_iss_parameter_supported: advertised,
      },
      { client_id: pending.clientId },
      params,
      pending.state,
    );
  } catch {
    throw oauthError("The authorization response is not usable", "invalid_callback");
  }
}

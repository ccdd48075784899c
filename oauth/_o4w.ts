/**
 * Private: what the OAuth files hand to and take from oauth4webapi — its request options
 * (injected fetch, signal, `http:` only for loopback) and its errors turned into
 * secret-free `McpError`s.
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import { McpError } from "../protocol/errors.ts";
import { checkEndpoint, type HttpOptions, isLoopback, oauthError } from "./_util.ts";

/** oauth4webapi's request options: injected fetch, signal, and http: only for loopback. */
export function o4wOptions(
  url: URL | string | undefined,
  http: HttpOptions,
): {
  signal?: AbortSignal;
  [oauth.customFetch]?: typeof fetch;
  [oauth.allowInsecureRequests]?: boolean;
} {
  const options: {
    signal?: AbortSignal;
    [oauth.customFetch]?: typeof fetch;
    [oauth.allowInsecureRequests]?: boolean;
  } = {};
  if (http.signal) options.signal = http.signal;
  const f = http.fetch;
  if (f !== undefined) {
    options[oauth.customFetch] = ((input: string, init: RequestInit) => f(input, init)) as never;
  }
  if (url !== undefined) {
    try {
      const parsed = new URL(url);
      if (parsed.protocol === "http:" && isLoopback(parsed)) {
        options[oauth.allowInsecureRequests] = true;
      }
    } catch {
      // oauth4webapi reports the bad URL itself
    }
  }
  return options;
}

/**
 * oauth4webapi's options for a token endpoint request: the metadata must name a
 * `token_endpoint` that is HTTPS (or loopback); the DPoP handle is added when there is one.
 */
export function tokenEndpointOptions(
  ctx: HttpOptions & { metadata: oauth.AuthorizationServer; dpop?: oauth.DPoPHandle },
): ReturnType<typeof o4wOptions> & { DPoP?: oauth.DPoPHandle } {
  const endpoint = ctx.metadata.token_endpoint;
  if (typeof endpoint !== "string") {
    throw oauthError("The authorization server has no token_endpoint", "invalid_metadata");
  }
  checkEndpoint(new URL(endpoint), "token endpoint");
  return { ...o4wOptions(endpoint, ctx), ...(ctx.dpop ? { DPoP: ctx.dpop } : {}) };
}

/**
 * Turns an error from oauth4webapi (or the network) into a secret-free `McpError` with the
 * given reason. OAuth error responses keep their `error` code and description.
 */
export function fromOAuthError(error: unknown, what: string, reason: string): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    const description = typeof error.error_description === "string"
      ? `: ${clip(error.error_description)}`
      : "";
    return oauthError(
      `The authorization server refused ${what} (HTTP ${error.status}, ${error.error}${description})`,
      reason,
      { status: error.status, error: error.error },
    );
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return oauthError(
      `The authorization was refused (${error.error}${
        error.error_description ? `: ${clip(error.error_description)}` : ""
      })`,
      "authorization_denied",
      { error: error.error },
    );
  }
  if (
    error instanceof oauth.OperationProcessingError ||
    error instanceof oauth.UnsupportedOperationError || error instanceof TypeError
  ) {
    const code = (error as { code?: unknown }).code;
    return oauthError(`${capitalize(what)} failed: ${error.message}`, reason, {
      code: typeof code === "string" ? code : undefined,
    });
  }
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return new McpError(`${capitalize(what)} was cancelled`, {
      kind: "cancelled",
      reason: "aborted",
    });
  }
  return new McpError(`${capitalize(what)} failed`, {
    kind: "auth",
    reason,
    cause: safeCause(error),
  });
}

/** A server's description, at most 200 characters; a clipped one ends with `…`. */
function clip(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function safeCause(error: unknown): unknown {
  // Network errors (TypeError from fetch) carry no secrets; anything else is summarized.
  if (error instanceof Error) return new Error(error.name);
  return undefined;
}

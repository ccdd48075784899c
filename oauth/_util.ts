/**
 * Private helpers shared by the OAuth files: the `McpError` they throw, the HTTP options
 * handed to oauth4webapi, and URL rules. Nothing here puts a token, secret or code into a
 * message, and oauth4webapi errors are never attached as `cause` (theirs may hold
 * response bodies).
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import { McpError } from "../protocol/errors.ts";

import type { FetchLike } from "../transports/_http.ts";

export type { FetchLike };

/** What every network step takes: the `fetch` to use and an abort signal. */
export interface HttpOptions {
  /** The `fetch` to use (default `globalThis.fetch`). */
  fetch?: FetchLike;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/**
 * The `McpError` (kind `auth`) every OAuth step throws.
 *
 * @param message A sentence without secrets.
 * @param reason A stable snake_case reason.
 * @param data Safe details (never tokens, secrets or codes).
 */
export function oauthError(message: string, reason: string, data?: unknown): McpError {
  return new McpError(message, { kind: "auth", reason, ...(data === undefined ? {} : { data }) });
}

/** `127.0.0.1`, `[::1]` and `localhost` (names that stay on this machine). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host === "::1" ||
    host.endsWith(".localhost");
}

/**
 * Refuses plain `http:` except to loopback hosts (a local authorization server, tests).
 * Every authorization server endpoint must be HTTPS otherwise.
 */
export function checkEndpoint(url: URL, what: string): void {
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopback(url)) return;
  throw oauthError(
    `The ${what} ${url.origin} is not HTTPS; OAuth endpoints must use HTTPS (or a loopback host)`,
    "insecure_endpoint",
    { url: url.origin },
  );
}

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

/** Calls `fetch`, turning a network failure into kind `auth` reason `network` (no cause body). */
export async function send(
  url: URL,
  init: RequestInit,
  http: HttpOptions,
  what: string,
): Promise<Response> {
  const f = http.fetch ?? ((input, i) => globalThis.fetch(input, i));
  try {
    return await f(url, { ...init, signal: http.signal });
  } catch (cause) {
    if (http.signal?.aborted) throw http.signal.reason ?? cause;
    throw new McpError(`Cannot reach the ${what} at ${url.origin}`, {
      kind: "auth",
      reason: "network",
      cause,
    });
  }
}

/** Reads a JSON object body, or `undefined` when it is not one. Cancels nothing else. */
export async function jsonObject(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const body = await response.json();
    return typeof body === "object" && body !== null && !Array.isArray(body)
      ? body as Record<string, unknown>
      : undefined;
  } catch {
    return undefined;
  }
}

/** Drops a body we do not read. */
export function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

/**
 * Turns an error from oauth4webapi (or the network) into a secret-free `McpError` with the
 * given reason. OAuth error responses keep their `error` code and description.
 */
export function fromOAuthError(error: unknown, what: string, reason: string): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    const description = typeof error.error_description === "string"
      ? `: ${error.error_description.slice(0, 200)}`
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
        error.error_description ? `: ${error.error_description.slice(0, 200)}` : ""
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

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function safeCause(error: unknown): unknown {
  // Network errors (TypeError from fetch) carry no secrets; anything else is summarized.
  if (error instanceof Error) return new Error(error.name);
  return undefined;
}

/** The resource identifier for a server URL when no metadata names one: no fragment or query. */
export function canonicalResource(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = "";
  copy.search = "";
  const href = copy.href;
  return copy.pathname === "/" ? href.slice(0, -1) : href;
}

/** Current time in ms; injectable for tests through `now` options. */
export type Clock = () => number;

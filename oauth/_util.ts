/**
 * Private helpers shared by the OAuth files: the `McpError` they throw, plain HTTP helpers
 * and URL rules (oauth4webapi's options and errors are in `_o4w.ts`, so that this file
 * loads no OAuth library). Nothing here puts a token, secret or code into a
 * message, and oauth4webapi errors are never attached as `cause` (theirs may hold
 * response bodies).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";

import type { FetchLike } from "../protocol/fetch_like.ts";

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

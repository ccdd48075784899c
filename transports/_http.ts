/**
 * Private HTTP mechanics for the Streamable HTTP transport: fetch with same-origin
 * redirects, bounded bodies (in `_http_body.ts`, re-exported), `Retry-After`, the status → `McpError` mapping, and abort
 * plumbing. Nothing here puts a token or a full header in an error.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { fetchFailureError } from "./_fetch_failure.ts";
import { startTimer } from "../clock/timer.ts";
import type { FetchLike } from "../protocol/fetch_like.ts";

export type { FetchLike } from "../protocol/fetch_like.ts";
export { readBounded, readBoundedText, utf8Length } from "./_http_body.ts";

/** What {@linkcode fetchSameOrigin} needs. */
export interface FetchPlan {
  fetch: FetchLike;
  url: URL;
  method: "GET" | "POST" | "DELETE";
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  maxRedirects: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches, following redirects only within the URL's origin (at most `maxRedirects`
 * hops). A redirect to another origin is refused before anything is sent there.
 * Network failures become `McpError` kind `transport` (reason `network`); an aborted
 * signal rethrows its reason when that is an `McpError`, else kind `cancelled`.
 */
export async function fetchSameOrigin(plan: FetchPlan): Promise<Response> {
  let url = plan.url;
  let method: string = plan.method;
  let body = plan.body;
  for (let hop = 0;; hop++) {
    let response: Response;
    try {
      // A string: runtimes re-parse a URL object on every call.
      response = await plan.fetch(url.href, {
        method,
        headers: plan.headers,
        body,
        signal: plan.signal,
        redirect: "manual",
      });
    } catch (cause) {
      throw networkError(cause, plan.signal, url);
    }
    if (!REDIRECTS.has(response.status)) return response;
    const location = response.headers.get("location");
    await response.body?.cancel().catch(() => {});
    if (location === null) {
      throw new McpError(`The server at ${url.origin} redirected without a Location`, {
        kind: "transport",
        reason: "http_status",
        data: { status: response.status },
      });
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new McpError(`The server at ${url.origin} redirected to an invalid URL`, {
        kind: "transport",
        reason: "redirect_refused",
      });
    }
    if (next.origin !== plan.url.origin) {
      throw new McpError(
        `Refused a redirect from ${plan.url.origin} to another origin (${next.origin}); ` +
          "credentials are only sent to the configured origin",
        { kind: "transport", reason: "redirect_refused", data: { status: response.status } },
      );
    }
    if (hop + 1 > plan.maxRedirects) {
      throw new McpError(`Too many redirects (more than ${plan.maxRedirects}) at ${url.origin}`, {
        kind: "transport",
        reason: "redirect_refused",
        data: { status: response.status },
      });
    }
    // The fetch standard's method rules: 303 (and 301/302 after a POST) continue as GET.
    if (
      (response.status === 303 && method !== "GET") || (
        (response.status === 301 || response.status === 302) && method === "POST"
      )
    ) {
      method = "GET";
      body = undefined;
    }
    url = next;
  }
}

/** The error for a failed fetch: the abort reason, a cancellation, or a network error. */
export function networkError(cause: unknown, signal: AbortSignal | undefined, url: URL): McpError {
  if (signal?.aborted) return abortError(signal);
  if (cause instanceof McpError) return cause;
  const hopeless = fetchFailureError(cause, url);
  if (hopeless !== undefined) return hopeless;
  return new McpError(`Cannot reach the MCP server at ${url.origin}`, {
    kind: "transport",
    reason: "network",
    cause,
  });
}

/** The error for an aborted signal: its reason when that is an `McpError`, else `cancelled`. */
export function abortError(signal: AbortSignal): McpError {
  const reason = signal.reason;
  if (reason instanceof McpError) return reason;
  return new McpError("The request was cancelled", {
    kind: "cancelled",
    reason: "aborted",
    cause: reason,
  });
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP-date (relative to `now`);
 * `undefined` when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The `McpError` for an HTTP status the transport cannot use (kind `transport`). */
export function statusError(response: Response, what: string): McpError {
  const status = response.status;
  const after = retryAfterMs(response.headers.get("retry-after"));
  const data: { status: number; retryAfterMs?: number } = { status };
  if (after !== undefined) data.retryAfterMs = after;
  return new McpError(
    `The server answered ${what} with HTTP ${status}` +
      (after !== undefined ? ` (retry after ${after} ms)` : ""),
    { kind: "transport", reason: "http_status", data },
  );
}

/** Whether a status is worth retrying later: 408, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** The media type of a `Content-Type` header, lower case, without parameters. */
export function mediaType(value: string | null): string {
  if (value === null) return "";
  return value.split(";")[0].trim().toLowerCase();
}

/** Waits `ms` milliseconds; rejects with the abort error when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      timer.clear();
      reject(abortError(signal));
    };
    const timer = startTimer(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** One abort signal following several, and a way to stop following them. */
export interface LinkedSignal {
  /** Aborts when any source aborts, with that source's reason. */
  signal: AbortSignal;
  /** Removes the listeners from the sources (call when the work settles). */
  unlink(): void;
}

/**
 * Links a fresh signal to `sources` with listeners that {@linkcode LinkedSignal.unlink}
 * removes, so long-lived signals do not collect one listener per request.
 */
export function linkSignals(...sources: (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  const listening: AbortSignal[] = [];
  const unlink = () => {
    for (const source of listening) source.removeEventListener("abort", onAbort);
    listening.length = 0;
  };
  function onAbort(this: AbortSignal) {
    controller.abort(this.reason);
    unlink();
  }
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    source.addEventListener("abort", onAbort, { once: true });
    listening.push(source);
  }
  if (controller.signal.aborted) unlink();
  return { signal: controller.signal, unlink };
}

/** Drops a body we will not read, without waiting for it. */
export function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

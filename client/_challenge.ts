/**
 * Private: what an error may say about a `WWW-Authenticate` challenge: its scheme and its
 * `error`, `scope` and `resource_metadata` parameters, with anything credential-like left out.
 *
 * @module
 */

import { type ChallengeSummary, summarizeChallenge } from "../transports/_http_auth.ts";

/** The challenge parameters an error may name: never realms, descriptions or anything else. */
const SAFE_CHALLENGE_PARAMS = ["error", "scope", "resource_metadata"] as const;

function safeParam(name: string, value: string): string | undefined {
  if (value.length > 512 || /[^\x20-\x7e]/.test(value)) return undefined;
  // A JWT or a long unbroken blob is credential-like, whatever the parameter is called.
  if (/[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./.test(value)) return undefined;
  if (name !== "resource_metadata") {
    return value.split(" ").every((part) => part.length <= 64) ? value : undefined;
  }
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`; // a query or fragment might carry a secret
  } catch {
    return undefined;
  }
}

/**
 * The scheme of a `WWW-Authenticate` challenge with only its `error`, `scope` and
 * `resource_metadata` parameters (URL query and fragment dropped, credential-like values
 * left out), or `undefined`.
 *
 * @param raw The header value.
 * @returns The safe summary.
 */
export function safeChallenge(raw: string | undefined): ChallengeSummary | undefined {
  const summary = summarizeChallenge(raw ?? null);
  if (summary === undefined || summary.scheme.length > 32) return undefined;
  const params: Record<string, string> = {};
  for (const name of SAFE_CHALLENGE_PARAMS) {
    const value = summary.params[name];
    const safe = value === undefined ? undefined : safeParam(name, value);
    if (safe !== undefined) params[name] = safe;
  }
  return { scheme: summary.scheme, params };
}

/**
 * A challenge summary as text for an error message: the scheme, then `name="value"` pairs.
 *
 * @param summary What {@linkcode safeChallenge} returned.
 * @returns The text.
 */
export function describeSafe(summary: ChallengeSummary): string {
  const params = Object.entries(summary.params).map(([k, v]) => `${k}="${v}"`).join(", ");
  return params === "" ? summary.scheme : `${summary.scheme} ${params}`;
}

/**
 * Private: the one allow-list for what an error, a warning or `status()` may say about a
 * 401/403 `WWW-Authenticate` challenge. Only the first challenge's scheme and its `error`,
 * `scope` and `resource_metadata` parameters, each strictly shaped (a realm, a description
 * or any other parameter is never copied, whatever its name); credential-like values are
 * left out.
 *
 * @module
 */

import { parseChallenges } from "../oauth/challenge.ts";

/** The scheme and the allowed parameters of a `WWW-Authenticate` challenge. */
export interface ChallengeSummary {
  /** E.g. `"Bearer"`. */
  scheme: string;
  /** At most `error`, `scope` and `resource_metadata`. */
  params: Record<string, string>;
}

/** The challenge parameters an error may name: never realms, descriptions or anything else. */
const ALLOWED = ["error", "scope", "resource_metadata"] as const;

/** An OAuth error code: `invalid_token`, `insufficient_scope`, `use_dpop_nonce`. */
const ERROR_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
/** One scope token (RFC 6749 §3.3, without quotes and backslashes), kept short. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;
/** A compact JWS/JWT, or a long unbroken blob: credential-like whatever it is called. */
const CREDENTIAL_LIKE = /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.|[A-Za-z0-9+/_=-]{80,}/;

function allowed(name: (typeof ALLOWED)[number], value: string): string | undefined {
  if (value.length > 512 || CREDENTIAL_LIKE.test(value)) return undefined;
  switch (name) {
    case "error":
      return ERROR_CODE.test(value) ? value : undefined;
    case "scope": {
      const scopes = value.split(" ").filter((s) => s !== "");
      return scopes.length > 0 && scopes.length <= 32 && scopes.every((s) => SCOPE_TOKEN.test(s))
        ? scopes.join(" ")
        : undefined;
    }
    case "resource_metadata":
      try {
        const url = new URL(value);
        if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
        // A query, a fragment or user info might carry a secret: origin and path only.
        return `${url.origin}${url.pathname}`;
      } catch {
        return undefined;
      }
  }
}

/**
 * The first challenge of a `WWW-Authenticate` value with only its scheme and its allowed
 * parameters (`error`, `scope`, `resource_metadata`; URL query and fragment dropped,
 * credential-like or oddly shaped values left out), or `undefined` without a challenge.
 *
 * @param raw The header value.
 * @returns The safe summary.
 */
export function safeChallenge(raw: string | null | undefined): ChallengeSummary | undefined {
  const [first] = parseChallenges(raw);
  if (first === undefined || first.scheme.length > 32) return undefined;
  const params: Record<string, string> = {};
  for (const name of ALLOWED) {
    const value = first.params[name];
    const safe = value === undefined ? undefined : allowed(name, value);
    if (safe !== undefined) params[name] = safe;
  }
  return { scheme: first.scheme, params };
}

/**
 * A safe summary as text for an error message: the scheme, then `name="value"` pairs, e.g.
 * `Bearer error="insufficient_scope", scope="files:read"`.
 *
 * @param summary What {@linkcode safeChallenge} returned.
 * @returns The text (`no WWW-Authenticate challenge` for none).
 */
export function describeChallenge(summary: ChallengeSummary | undefined): string {
  if (summary === undefined) return "no WWW-Authenticate challenge";
  const params = Object.entries(summary.params).map(([k, v]) => `${k}="${v}"`).join(", ");
  return params === "" ? summary.scheme : `${summary.scheme} ${params}`;
}

/**
 * What an OAuth middleware holds from its start, before its code loads: the set of secrets
 * it keeps out of errors (filled with the credentials it is configured with: client secrets,
 * a private key, an assertion) and who follows its token fetches. The middleware
 * (`middleware.ts`) and its shell that loads it on first use (`lazy_middleware.ts`) share
 * them, so a transport redacts the configured secrets from its first message on. With them,
 * how one credential header's value is remembered in such a set: what the HTTP transport pins
 * from its static headers, and what `recordingFetch` remembers from every outgoing request;
 * and the set of a Streamable HTTP transport, made from them when it first opens
 * (`transportSecrets`).
 *
 * @module
 */

import { createSecrets, isCredentialName, type Secrets, secretsOf } from "../protocol/secrets.ts";
import type { TokenObserver } from "../protocol/token_events.ts";
import type { Grant } from "./_engine_types.ts";

export type { Grant } from "./_engine_types.ts";

/** The secrets and token observers of one middleware. */
export interface MiddlewareParts {
  /** Every credential the middleware holds or sends (its errors and a transport's omit them). */
  secrets: Secrets;
  /** Who follows its token fetches (a traced client): empty until one adds to it. */
  observers: Set<TokenObserver>;
}

/**
 * The parts of a middleware for `grant`, its configured credentials already in its secrets.
 *
 * @param grant The grant and its checked options.
 * @returns The secrets and an empty set of observers.
 *
 * @example
 * ```ts
 * import { middlewareParts } from "./middleware_parts.ts";
 *
 * const parts = middlewareParts({
 *   kind: "client_credentials",
 *   options: { clientId: "svc", clientSecret: "s3cret-value" },
 * });
 * if (parts.secrets.text("sent s3cret-value") !== "sent [redacted]") throw new Error();
 * ```
 */
export function middlewareParts(grant: Grant): MiddlewareParts {
  const secrets = createSecrets();
  for (const secret of configuredSecrets(grant)) secrets.add(secret, true);
  return { secrets, observers: new Set() };
}

/**
 * The credentials a grant is configured with: client secrets, a private key, an assertion.
 *
 * @example
 * ```ts
 * import { configuredSecrets } from "./middleware_parts.ts";
 *
 * const secrets = configuredSecrets({
 *   kind: "client_credentials",
 *   options: { clientId: "svc", clientSecret: "s3cret-value" },
 * });
 * if (!secrets.includes("s3cret-value")) throw new Error("unexpected");
 * ```
 */
export function configuredSecrets(grant: Grant): (string | undefined)[] {
  if (grant.kind === "authorization_code") return [grant.options.client?.clientSecret];
  const { clientSecret, privateKey, assertion } = grant.options;
  const out = [clientSecret, typeof assertion === "string" ? assertion : undefined];
  if (typeof privateKey === "string") {
    // The PEM text, and its base64 body on one line.
    out.push(privateKey.trim(), privateKey.replace(/-----[^-]+-----|\s+/g, ""));
  }
  return out;
}

/**
 * Remembers the credential in one header value: the credentials of an `Authorization`
 * (and, for `Basic`, the decoded secret), each cookie value, or the whole value.
 *
 * @param secrets Where to remember it.
 * @param name The header name.
 * @param value Its value.
 * @param pinned Whether it is configured (kept longer).
 * @example
 * ```ts
 * import { recordHeader } from "./middleware_parts.ts";
 * import { createSecrets } from "../protocol/secrets.ts";
 *
 * const secrets = createSecrets();
 * recordHeader(secrets, "Authorization", "Bearer tok-123456789", true);
 * if (secrets.text("echo tok-123456789") !== "echo [redacted]") throw new Error("unexpected");
 * ```
 */
export function recordHeader(secrets: Secrets, name: string, value: string, pinned = false): void {
  const lower = name.toLowerCase();
  if (lower === "authorization" || lower === "proxy-authorization") {
    const space = value.indexOf(" ");
    const credentials = space < 0 ? value : value.slice(space + 1).trim();
    secrets.add(credentials, pinned);
    if (/^basic$/i.test(value.slice(0, space))) {
      try {
        const pair = atob(credentials);
        const colon = pair.indexOf(":");
        secrets.add(pair, pinned);
        secrets.add(decodeURIComponent(pair.slice(colon + 1)), pinned);
      } catch {
        // not base64 (or not percent-encoded): the encoded form is remembered
      }
    }
    return;
  }
  if (lower === "cookie") {
    for (const part of value.split(";")) {
      secrets.add(part.slice(part.indexOf("=") + 1).trim(), pinned);
    }
    return;
  }
  secrets.add(value, pinned);
}

/** A transport's {@linkcode Secrets}, with what sets them up. */
export interface TransportSecrets extends Secrets {
  /** Remembers the configured credentials of an `auth` value (a bearer token, OAuth secrets). */
  pin(auth: unknown): void;
  /** Includes the secrets a `fetch` holds (an OAuth middleware's, whose tokens it attaches). */
  includeFetch(fetch: unknown): void;
}

/**
 * The secrets of a Streamable HTTP transport: its credential headers, the configured
 * credentials of each `auth` it is given (`pin`), and those of a `fetch` that holds its own.
 *
 * @param headers The static headers (names in lower case).
 * @param fetch The transport's `fetch` option.
 * @returns The secrets.
 */
export function transportSecrets(
  headers: Record<string, string>,
  fetch: unknown,
): TransportSecrets {
  const secrets = createSecrets() as TransportSecrets;
  for (const name in headers) {
    if (isCredentialName(name)) recordHeader(secrets, name, headers[name], true);
  }
  secrets.pin = (auth) => {
    const form = auth as Record<string, unknown> | undefined;
    if (typeof form?.bearer === "string") secrets.add(form.bearer, true);
    // The OAuth forms' configured credentials, at once (their middleware loads later).
    const grant = typeof form?.oauth === "object"
      ? { kind: "authorization_code", options: form.oauth }
      : typeof form?.clientCredentials === "object"
      ? { kind: "client_credentials", options: form.clientCredentials }
      : undefined;
    for (const secret of grant ? configuredSecrets(grant as Grant) : []) secrets.add(secret, true);
  };
  secrets.includeFetch = (f) => {
    const own = secretsOf(f);
    if (own !== undefined) secrets.include(own);
  };
  secrets.includeFetch(fetch);
  return secrets;
}

/**
 * What an OAuth middleware holds from its start, before its code loads: the set of secrets
 * it keeps out of errors (filled with the credentials it is configured with: client secrets,
 * a private key, an assertion) and who follows its token fetches. The middleware
 * (`middleware.ts`) and its shell that loads it on first use (`lazy_middleware.ts`) share
 * them, so a transport redacts the configured secrets from its first message on.
 *
 * @module
 */

import { createSecrets, type Secrets } from "../protocol/secrets.ts";
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

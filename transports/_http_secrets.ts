/**
 * Private: the secrets of a Streamable HTTP transport, set up when it is made (its credential
 * headers, its `auth`'s configured credentials, and those of a `fetch` that holds its own),
 * before any request runs. Where they are applied is `_redact.ts`.
 *
 * @module
 */

import { configuredSecrets, type Grant } from "../oauth/middleware_parts.ts";
import { recordHeader } from "../oauth/record_header.ts";
import { isCredentialName } from "../protocol/credential_names.ts";
import { createSecrets, type Secrets, secretsOf } from "../protocol/secrets.ts";

/** A transport's {@linkcode Secrets}, with what sets them up. */
export interface TransportSecrets extends Secrets {
  /** Remembers the configured credentials of an `auth` value (a bearer token, OAuth secrets). */
  pin(auth: unknown): void;
  /** Includes the secrets a `fetch` holds (an OAuth middleware's, whose tokens it attaches). */
  includeFetch(fetch: unknown): void;
}

/**
 * The secrets of a Streamable HTTP transport: its credential headers, and those of a
 * `fetch` that holds its own.
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

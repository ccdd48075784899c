/**
 * Private: what a Streamable HTTP transport makes when it is first needed (the first open, or
 * a tracer asking for its secrets) rather than with the transport: its secrets, and the
 * forwarder of its token events to those who follow them. `streamableHttp` loads this with its
 * core, so a client that never opens an HTTP transport loads no redaction.
 *
 * @module
 */

import { type TransportSecrets, transportSecrets } from "../oauth/middleware_parts.ts";

export { forwardTokens } from "../protocol/token_events.ts";

/**
 * The secrets of a transport (see `transportSecrets`), with the credentials it was configured
 * with until now pinned in them.
 *
 * @param headers The static headers (names in lower case).
 * @param fetch The transport's `fetch` option.
 * @param configured Each `auth` the transport has held, oldest first.
 * @returns The secrets.
 *
 * @example
 * ```ts
 * import { madeSecrets } from "./_http_secrets.ts";
 *
 * const secrets = madeSecrets({}, undefined, [{ bearer: "token-123456" }]);
 * if (secrets.text("a token-123456") !== "a [redacted]") throw new Error("not redacted");
 * ```
 */
export function madeSecrets(
  headers: Record<string, string>,
  fetch: unknown,
  configured: readonly unknown[],
): TransportSecrets {
  const secrets = transportSecrets(headers, fetch);
  for (const auth of configured) secrets.pin(auth);
  return secrets;
}

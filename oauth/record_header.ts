/**
 * How one credential header's value is remembered in a {@linkcode Secrets} set: what the
 * HTTP transport pins from its static headers at once, and what `recordingFetch` remembers
 * from every outgoing request.
 *
 * @module
 */

import type { Secrets } from "../protocol/secrets.ts";

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
 * import { recordHeader } from "./record_header.ts";
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

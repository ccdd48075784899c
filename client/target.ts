/**
 * Turns a `connect()` target into a transport: the part both entries share, and the hub's
 * server entries (a URL or a transport) too.
 *
 * @module
 */

import { streamableHttp, type StreamableHttpOptions } from "../transports/streamable_http.ts";
import type { Transport } from "../transports/transport.ts";

/**
 * The transport for a URL or transport target, or `undefined` for anything else.
 * A string that is not an http(s) URL is a `TypeError` whose message starts with `where`.
 */
export function httpOrTransport(
  target: unknown,
  http: StreamableHttpOptions | undefined,
  where = "Cannot connect",
  profile?: string,
): Transport | undefined {
  if (typeof target === "string" || target instanceof URL) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new TypeError(`${where}: "${String(target)}" is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`${where}: unsupported URL scheme "${url.protocol}"`);
    }
    return streamableHttp(url, withProfile(http, profile));
  }
  const candidate = target as Partial<Transport> | null;
  if (
    typeof candidate === "object" && candidate !== null && typeof candidate.open === "function" &&
    typeof candidate.kind === "string"
  ) {
    return candidate as Transport;
  }
  return undefined;
}

/**
 * The HTTP options with the OAuth credentials' `profile` set to `profile` (a client's or a
 * hub entry's `profile` option); a different profile already there is a `TypeError`.
 */
function withProfile(
  http: StreamableHttpOptions | undefined,
  profile: string | undefined,
): StreamableHttpOptions | undefined {
  if (profile === undefined) return http;
  if (typeof profile !== "string" || profile === "") {
    throw new TypeError("profile must be a non-empty string");
  }
  const auth = http?.auth as Record<string, unknown> | undefined;
  if (typeof auth !== "object" || auth === null) return http;
  for (const form of ["oauth", "clientCredentials"]) {
    const options = auth[form] as { profile?: unknown } | undefined;
    if (typeof options !== "object" || options === null) continue;
    if (options.profile !== undefined && options.profile !== profile) {
      throw new TypeError(
        `profile "${profile}" differs from auth.${form}.profile "${String(options.profile)}"`,
      );
    }
    return { ...http, auth: { [form]: { ...options, profile } } as StreamableHttpOptions["auth"] };
  }
  return http;
}

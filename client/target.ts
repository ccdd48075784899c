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
    return streamableHttp(url, http);
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

/**
 * Private: the checks of `streamableHttp` options (a `TypeError` naming the bad one): the
 * known keys, the endpoint URL, the static headers and the integer limits.
 *
 * @module
 */

/** One mebibyte. */
export const MiB = 1024 * 1024;

/** The option keys of `streamableHttp`. */
export const KEYS = [
  "headers",
  "auth",
  "credentialId",
  "fetch",
  "maxResponseBytes",
  "maxEventBytes",
  "maxRedirects",
  "reconnectDelay",
  "maxReconnects",
  "closeTimeout",
];

/** An integer option of at least `min`, or the fallback. */
export function positiveInteger(value: unknown, key: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new TypeError(`options.${key} must be an integer of at least ${min}`);
  }
  return value;
}

/** The MCP endpoint: an absolute http: or https: URL, without its fragment. */
export function endpoint(url: unknown): URL {
  if (typeof url !== "string" && !(url instanceof URL)) {
    throw new TypeError("url must be a string or a URL");
  }
  let parsed: URL;
  try {
    parsed = url instanceof URL ? new URL(url.href) : new URL(String(url));
  } catch {
    throw new TypeError("url must be an absolute http: or https: URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError("url must be an absolute http: or https: URL");
  }
  parsed.hash = "";
  return parsed;
}

/** The `headers` option as a plain record of lower-case names. */
export function staticHeaders(init: unknown): Record<string, string> {
  if (init === undefined) return {};
  try {
    // Checked and normalized once by `Headers`; kept as a plain record (lower-case names).
    return Object.fromEntries(new Headers(init as HeadersInit));
  } catch {
    throw new TypeError("options.headers must hold valid header names and values");
  }
}

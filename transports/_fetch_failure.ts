/**
 * Private: what a failed `fetch` means, when retrying cannot help. Runtimes say it in their
 * own ways: Deno throws `NotCapable` (or `PermissionDenied`) without `--allow-net`, and
 * wraps a TLS failure's words ("invalid peer certificate") two causes down; Bun puts an
 * OpenSSL code (`DEPTH_ZERO_SELF_SIGNED_CERT`, `EPROTO`) on the error. Pure work on the
 * error's names, codes and messages, so edge workers can use it too.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";

/** A fetch failure that no later attempt can fix. */
export interface FetchFailure {
  /** `permission_denied`: the runtime refused network access; `tls`: the TLS handshake failed. */
  reason: "permission_denied" | "tls";
  /** The runtime's own words for it (URLs cut to their origin). */
  detail: string;
}

const PERMISSION_NAMES = new Set(["NotCapable", "PermissionDenied"]);
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_(?:GET|VERIFY)|^ERR_(?:TLS|SSL)|^EPROTO$/;
const TLS_TEXT = /certificate|\btls\b|\bssl\b|handshake|corrupt message|InvalidContentType/i;
const URL_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)'"]+/gi;

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "<url>";
  }
}

function words(error: { message?: unknown }): string {
  return typeof error.message === "string" ? error.message.replace(URL_TEXT, origin) : "";
}

/**
 * Looks through `error` and its causes (a few levels) for a refused permission or a TLS
 * failure.
 *
 * @param error What `fetch` threw.
 * @returns The failure, or `undefined` when a later attempt may succeed.
 */
export function fetchFailure(error: unknown): FetchFailure | undefined {
  let tls: string | undefined;
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { name, code, cause } = current as { name?: unknown; code?: unknown; cause?: unknown };
    const text = words(current as { message?: unknown });
    if (typeof name === "string" && PERMISSION_NAMES.has(name)) {
      return { reason: "permission_denied", detail: text };
    }
    const tlsCode = typeof code === "string" && TLS_CODE.test(code);
    // The innermost description wins: it is the one that names the actual problem.
    if (tlsCode || TLS_TEXT.test(text)) tls = tlsCode ? `${text} (${code})` : text;
    current = cause;
  }
  return tls === undefined ? undefined : { reason: "tls", detail: tls };
}

/**
 * The error for a fetch of `url` that no retry can fix: kind `transport`, reason
 * `permission_denied` or `tls`, with the runtime's words in the message.
 *
 * @param cause What `fetch` threw.
 * @param url The URL fetched (the message names its origin only).
 * @returns The error, or `undefined` when a later attempt may succeed.
 */
export function fetchFailureError(cause: unknown, url: URL): McpError | undefined {
  const failure = fetchFailure(cause);
  if (failure === undefined) return undefined;
  const what = failure.reason === "tls" ? "the TLS handshake failed" : "network access denied";
  return new McpError(`Cannot reach the MCP server at ${url.origin}: ${what} (${failure.detail})`, {
    kind: "transport",
    reason: failure.reason,
    cause,
  });
}

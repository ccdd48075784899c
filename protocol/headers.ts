/**
 * Modern Streamable HTTP header rules: the mirrored `MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name` and `Mcp-Param-*` headers and their values' `=?base64?…?=` encoding (the
 * `x-mcp-header` rules that declare a tool's param headers are in `param_headers.ts`).
 *
 * @module
 */

import type { JsonRpcNotification, JsonRpcRequest } from "./jsonrpc.ts";
import { META_PROTOCOL_VERSION } from "./meta.ts";

/** The names of the modern mirrored headers (`paramPrefix` + the declared name for arguments). */
export const MCP_HEADERS: Readonly<{
  protocolVersion: "MCP-Protocol-Version";
  method: "Mcp-Method";
  name: "Mcp-Name";
  paramPrefix: "Mcp-Param-";
}> = Object.freeze({
  protocolVersion: "MCP-Protocol-Version",
  method: "Mcp-Method",
  name: "Mcp-Name",
  paramPrefix: "Mcp-Param-",
});

/** Options for {@linkcode modernHeaders}. */
export interface ModernHeadersOptions {
  /** `Mcp-Param-*` headers from `paramHeaders` (`param_headers.ts`), added as they are. */
  paramHeaders?: Record<string, string>;
}

const NAME_PARAM: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * The modern mirrored headers of a request or notification: `MCP-Protocol-Version` (from
 * `params._meta["io.modelcontextprotocol/protocolVersion"]`, when present), `Mcp-Method`,
 * and `Mcp-Name` (`params.name` for `tools/call` and `prompts/get`, `params.uri` for
 * `resources/read`, `params.taskId` for `tasks/get`, `tasks/update` and `tasks/cancel`),
 * all encoded with {@linkcode encodeHeaderValue}, plus `opts.paramHeaders`.
 *
 * @param message The outgoing request or notification.
 * @param opts Extra `Mcp-Param-*` headers.
 * @returns The header names and values.
 *
 * @example
 * ```ts
 * import { modernHeaders } from "./headers.ts";
 *
 * const headers = modernHeaders({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "resources/read",
 *   params: { uri: "file:///ü.txt", _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
 * });
 * if (headers["MCP-Protocol-Version"] !== "2026-07-28") throw new Error();
 * if (headers["Mcp-Name"] !== "=?base64?ZmlsZTovLy/DvC50eHQ=?=") throw new Error();
 * ```
 */
export function modernHeaders(
  message: JsonRpcRequest | JsonRpcNotification,
  opts: ModernHeadersOptions = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  const params = message.params;
  const meta = params?._meta;
  const version = typeof meta === "object" && meta !== null
    ? (meta as Record<string, unknown>)[META_PROTOCOL_VERSION]
    : undefined;
  if (typeof version === "string") {
    headers[MCP_HEADERS.protocolVersion] = encodeHeaderValue(version);
  }
  headers[MCP_HEADERS.method] = encodeHeaderValue(message.method);
  const key = Object.hasOwn(NAME_PARAM, message.method) ? NAME_PARAM[message.method] : undefined;
  const name = key === undefined ? undefined : params?.[key];
  if (typeof name === "string") headers[MCP_HEADERS.name] = encodeHeaderValue(name);
  const extra = opts.paramHeaders;
  if (extra !== undefined) {
    for (const header of Object.keys(extra)) headers[header] = extra[header];
  }
  return headers;
}

const PREFIX = "=?base64?";
const SUFFIX = "?=";

function looksEncoded(value: string): boolean {
  return value.length >= PREFIX.length + SUFFIX.length && value.startsWith(PREFIX) &&
    value.endsWith(SUFFIX);
}

function isPlain(value: string): boolean {
  if (looksEncoded(value)) return false;
  const n = value.length;
  if (n === 0) return true;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(n - 1);
  if (first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09) return false;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 || c > 0x7e) && c !== 0x09) return false;
  }
  return true;
}

/**
 * Encodes a value for a modern MCP header. Integers are written in decimal and booleans as
 * `true`/`false`. A string stays as it is when every character is visible ASCII (0x21–0x7E)
 * or an inner space or tab, it has no leading or trailing whitespace, and it does not
 * already look like `=?base64?…?=`; otherwise it is sent as `=?base64?<base64 of UTF-8>?=`.
 *
 * @param value A string, an integer within ±(2^53−1), or a boolean.
 * @returns The header value.
 * @throws {RangeError} For a number that is not a safe integer.
 *
 * @example
 * ```ts
 * import { encodeHeaderValue } from "./headers.ts";
 *
 * if (encodeHeaderValue("us-west1") !== "us-west1") throw new Error();
 * if (encodeHeaderValue("Hello, 世界") !== "=?base64?SGVsbG8sIOS4lueVjA==?=") throw new Error();
 * if (encodeHeaderValue(42) !== "42" || encodeHeaderValue(false) !== "false") throw new Error();
 * ```
 */
export function encodeHeaderValue(value: string | number | boolean): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      throw new RangeError("encodeHeaderValue: a number must be an integer within ±(2^53−1)");
    }
    return String(value);
  }
  if (typeof value !== "string") throw new TypeError("encodeHeaderValue: unsupported value");
  if (isPlain(value)) return value;
  return PREFIX + encodeBase64(new TextEncoder().encode(value)) + SUFFIX;
}

/**
 * Decodes a modern MCP header value: `=?base64?…?=` values are decoded from base64 UTF-8,
 * anything else is returned as it is (servers and test fixtures use this).
 *
 * @param value The header value.
 * @returns The decoded text, or `undefined` when the base64 or its UTF-8 is invalid.
 *
 * @example
 * ```ts
 * import { decodeHeaderValue } from "./headers.ts";
 *
 * if (decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?=") !== "Hello, 世界") throw new Error();
 * if (decodeHeaderValue("plain") !== "plain") throw new Error();
 * ```
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!looksEncoded(value)) return value;
  const bytes = decodeBase64(value.slice(PREFIX.length, value.length - SUFFIX.length));
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Encodes bytes as padded base64.
 *
 * @param bytes The bytes.
 * @returns The base64 text.
 */
function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = i + 1 < bytes.length ? bytes[i + 1] : 0;
    const c = i + 2 < bytes.length ? bytes[i + 2] : 0;
    const n = (a << 16) | (b << 8) | c;
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
    out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63] : "=";
    out += i + 2 < bytes.length ? ALPHABET[n & 63] : "=";
  }
  return out;
}

/**
 * Decodes padded base64 (the length must be a multiple of 4, padding only at the end).
 *
 * @param text The base64 text.
 * @returns The bytes, or `undefined` when `text` is not valid base64.
 */
function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const ch = text[i + j];
      n = (n << 6) | (ch === "=" ? 0 : ALPHABET.indexOf(ch));
    }
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

/**
 * Standard base64 (RFC 4648 §4, with padding) over bytes, without `btoa`/`atob`.
 *
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Encodes bytes as padded base64.
 *
 * @param bytes The bytes.
 * @returns The base64 text.
 *
 * @example
 * ```ts
 * import { encodeBase64 } from "./_base64.ts";
 *
 * if (encodeBase64(new TextEncoder().encode("Hi!?")) !== "SGkhPw==") throw new Error();
 * ```
 */
export function encodeBase64(bytes: Uint8Array): string {
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
 *
 * @example
 * ```ts
 * import { decodeBase64 } from "./_base64.ts";
 *
 * if (new TextDecoder().decode(decodeBase64("SGkhPw==")) !== "Hi!?") throw new Error();
 * if (decodeBase64("SGk") !== undefined) throw new Error("expected undefined");
 * ```
 */
export function decodeBase64(text: string): Uint8Array | undefined {
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

/**
 * A synchronous SHA-256 where the runtime has one (Bun's `CryptoHasher`), for callers that
 * would otherwise wait on Web Crypto's `digest()` for one hash (its first call costs a few
 * milliseconds). Elsewhere (Deno, an edge worker) there is none: the caller falls back to
 * Web Crypto, whose digest of the same text is the same.
 *
 * @module
 */

interface BunHasher {
  update(text: string): BunHasher;
  digest(encoding: "hex"): string;
}

interface BunCrypto {
  CryptoHasher?: new (algorithm: "sha256") => BunHasher;
}

/**
 * The SHA-256 of a text's UTF-8 bytes as 64 hex digits, computed at once, or `undefined`
 * when this runtime has no synchronous SHA-256.
 *
 * @param text The text.
 * @returns The digest in lower-case hex, or `undefined`.
 *
 * @example
 * ```ts
 * import { sha256HexSync } from "./sha256.ts";
 *
 * const hex = sha256HexSync("abc");
 * // Under Bun the digest; elsewhere undefined (use Web Crypto then).
 * if (hex !== undefined && !hex.startsWith("ba7816bf8f01cfea")) throw new Error("unexpected");
 * ```
 */
export function sha256HexSync(text: string): string | undefined {
  const hasher = (globalThis as { Bun?: BunCrypto }).Bun?.CryptoHasher;
  if (typeof hasher !== "function") return undefined;
  return new hasher("sha256").update(text).digest("hex");
}

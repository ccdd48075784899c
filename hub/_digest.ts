/**
 * Private: the digests that name a hub's stored snapshot and search index. The same value as
 * the cache's `digest()` (the first 128 bits of a SHA-256, in hex: a snapshot one runtime
 * stored is read by the other), made synchronously where the runtime can (Bun), so a fresh
 * process's first search does not wait on Web Crypto's first digest.
 *
 * @module
 */

import { digest } from "../cache/digest.ts";
import { sha256HexSync } from "../runtime/sha256.ts";

/**
 * The digest of a text, as 32 hex digits: `digest(text)`, synchronously when it can be.
 *
 * @param text The text.
 * @returns The digest.
 */
export function nameDigest(text: string): Promise<string> {
  const hex = sha256HexSync(text);
  return hex === undefined ? digest(text) : Promise.resolve(hex.slice(0, 32));
}

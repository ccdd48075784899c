/**
 * A bounded byte buffer that keeps the most recent bytes written to it (a server's stderr
 * tail). Private to the package.
 *
 * @module
 */

/** The last bytes written, up to a capacity, from {@linkcode byteRing}. */
export interface ByteRing {
  /** Appends bytes, dropping the oldest ones past the capacity. */
  write(chunk: Uint8Array): void;
  /** The kept bytes decoded as UTF-8 (a character cut at the start is dropped). */
  text(): string;
  /** How many bytes are kept. */
  readonly size: number;
}

/**
 * Makes a ring buffer of `capacity` bytes.
 *
 * @param capacity The most bytes kept.
 * @returns The buffer.
 *
 * @example
 * ```ts
 * import { byteRing } from "./_ring.ts";
 *
 * const ring = byteRing(4);
 * ring.write(new TextEncoder().encode("abcdef"));
 * if (ring.text() !== "cdef") throw new Error(ring.text());
 * ```
 */
export function byteRing(capacity: number): ByteRing {
  const buffer = new Uint8Array(Math.max(0, capacity));
  let position = 0; // where the next byte goes
  let full = false;
  return {
    write(chunk: Uint8Array): void {
      const cap = buffer.length;
      if (cap === 0 || chunk.length === 0) return;
      if (chunk.length >= cap) {
        buffer.set(chunk.subarray(chunk.length - cap));
        position = 0;
        full = true;
        return;
      }
      const first = Math.min(chunk.length, cap - position);
      buffer.set(chunk.subarray(0, first), position);
      const rest = chunk.length - first;
      if (rest > 0) {
        buffer.set(chunk.subarray(first), 0);
        position = rest;
        full = true;
      } else {
        position += first;
        if (position === cap) {
          position = 0;
          full = true;
        }
      }
    },
    text(): string {
      let bytes: Uint8Array;
      if (!full) bytes = buffer.subarray(0, position);
      else {
        bytes = new Uint8Array(buffer.length);
        bytes.set(buffer.subarray(position));
        bytes.set(buffer.subarray(0, position), buffer.length - position);
      }
      let start = 0;
      // Skip UTF-8 continuation bytes left over from a character cut in two.
      while (start < bytes.length && start < 3 && (bytes[start] & 0xc0) === 0x80) start++;
      return new TextDecoder().decode(bytes.subarray(start));
    },
    get size(): number {
      return full ? buffer.length : position;
    },
  };
}

/**
 * Private: the pieced reader's bytes (`pieced_json.ts`): one growing buffer of its own, and
 * freeing a buffer at once where the runtime can (so a long message's bytes do not wait for
 * the collector).
 *
 * @module
 */

type Transfer = (this: ArrayBuffer, length: number) => ArrayBuffer;
const transfer = (ArrayBuffer.prototype as { transfer?: Transfer }).transfer;

/** Frees a buffer of our own at once, where the runtime can. */
export function free(buffer: ArrayBuffer): void {
  try {
    transfer?.call(buffer, 0);
  } catch {
    // Not detachable: the collector frees it.
  }
}

/** The structure's bytes, in one growing buffer of our own. */
export class Bytes {
  buffer = new Uint8Array(4096);
  length = 0;

  append(bytes: Uint8Array): void {
    const needed = this.length + bytes.length;
    if (needed > this.buffer.length) {
      const grown = new Uint8Array(Math.max(needed, 2 * this.buffer.length));
      grown.set(this.buffer.subarray(0, this.length));
      free(this.buffer.buffer as ArrayBuffer);
      this.buffer = grown;
    }
    this.buffer.set(bytes, this.length);
    this.length = needed;
  }
}

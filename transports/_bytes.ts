/**
 * Private: byte buffers the transports own, joined and decoded without keeping a second
 * copy alive. A buffer is freed as soon as its bytes have moved on (`ArrayBuffer.prototype
 * .transfer(0)` detaches it and returns its memory at once, where a dropped reference would
 * wait for a collection), so a message at the size limit costs its text and its parsed value,
 * not also its bytes. Only buffers nothing else can see go through here: never a chunk a
 * stream handed over, which the runtime may still own.
 *
 * @module
 */

type Transfer = (this: ArrayBuffer, length: number) => ArrayBuffer;
const transfer = (ArrayBuffer.prototype as { transfer?: Transfer }).transfer;

/**
 * Frees the memory of `bytes` now (where the runtime can): afterwards `bytes` is empty.
 * `bytes` must be the only view of a buffer the caller made.
 *
 * @param bytes The view of an owned buffer, covering all of it.
 */
export function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (
    transfer === undefined || !(buffer instanceof ArrayBuffer) ||
    bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength
  ) return;
  try {
    transfer.call(buffer, 0);
  } catch {
    // Not detachable (a runtime's own buffer): the collector frees it.
  }
}

const utf8 = new TextDecoder();

/**
 * Decodes owned bytes as UTF-8 (invalid bytes become U+FFFD) and frees them.
 *
 * @param bytes A view covering a whole buffer the caller made and no longer needs.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { decodeOwned } from "./_bytes.ts";
 *
 * const bytes = new TextEncoder().encode("héllo");
 * if (decodeOwned(bytes) !== "héllo") throw new Error("decoded wrong");
 * ```
 */
export function decodeOwned(bytes: Uint8Array): string {
  const text = utf8.decode(bytes);
  release(bytes);
  return text;
}

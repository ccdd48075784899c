/**
 * Private: byte buffers the transports own, held across chunks and decoded without keeping
 * a second copy alive. A buffer is freed as soon as its bytes have moved on (`ArrayBuffer.prototype
 * .transfer(0)` detaches it and returns its memory at once, where a dropped reference would
 * wait for a collection), so a message at the size limit costs its text and its parsed value,
 * not also its bytes. Only buffers nothing else can see go through here: never a chunk a
 * stream handed over, which the runtime may still own. A message past 1 MiB is not held whole
 * at all: the pieced reader (`protocol/pieced_json.ts`, loaded on first need) reads it. The
 * last buffer here is bounded instead: it keeps only the most recent bytes written to it (a
 * server's stderr tail).
 *
 * @module
 */

import type { PiecedReader } from "../protocol/pieced_json.ts";

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

/**
 * Chunks from this size on are freed at once (see {@linkcode releaseChunk}). Bun reads a
 * busy pipe in pieces of 4 KiB as often as in large ones, and a chunked `fetch` body in
 * pieces just under 64 KiB (the chunk framing taken off): a higher floor left those to the
 * collector, 0.06× to 0.12× of a message at the limit on top of its text and value.
 */
const LARGE_CHUNK = 4 * 1024;

/**
 * Frees a large chunk that a stream which is not a byte stream (Bun's pipes and `fetch`
 * bodies) handed over, once its bytes have been copied or decoded. Such a stream reads every
 * chunk into a fresh buffer and keeps no reference to it (the Streams standard hands a read
 * chunk to the reader), but the collector would free it only at its next run: the chunks of
 * one message at the limit would add up to its size again. Chunks under 4 KiB are left to the
 * collector (they are cheap, and a stream made in code may enqueue a buffer it reuses).
 *
 * @param chunk A chunk the caller read and has done with.
 */
export function releaseChunk(chunk: Uint8Array): void {
  if (chunk.byteLength >= LARGE_CHUNK) release(chunk);
}

/** The size of a buffer a byte stream is read into: a runtime's own chunks are this size. */
export const READ_BUFFER = 64 * 1024;
/** Idle read buffers kept for the next stream. */
const READ_POOL = 16;
const readBuffers: ArrayBuffer[] = [];

/**
 * A buffer to read a byte stream into (`getReader({ mode: "byob" })`): an idle one, or a new
 * one. Deno hands each chunk of a `fetch` body over as a view of a fresh 64 KiB buffer, however
 * few bytes it holds, and the collector frees it only at its next run: with 32 event streams
 * in flight, tens of megabytes wait for it. Read into a buffer of ours, a stream costs none.
 *
 * @returns A buffer of {@linkcode READ_BUFFER} bytes.
 */
export function takeReadBuffer(): ArrayBuffer {
  return readBuffers.pop() ?? new ArrayBuffer(READ_BUFFER);
}

/**
 * Gives back a buffer from {@linkcode takeReadBuffer} once its stream is done with it: it is
 * kept for the next stream, or freed at once when enough are idle. A buffer a read still holds
 * (detached: the stream has it) is left alone.
 *
 * @param buffer The buffer, as the last read handed it back.
 */
export function returnReadBuffer(buffer: ArrayBuffer): void {
  if (buffer.byteLength !== READ_BUFFER) return;
  if (readBuffers.length < READ_POOL) readBuffers.push(buffer);
  else release(new Uint8Array(buffer));
}

/** The idle read buffers (for the tests): each one whole, none a read still holds. */
export function idleReadBuffers(): readonly ArrayBuffer[] {
  return readBuffers;
}

/** The bytes of an unfinished line or event, from {@linkcode byteCarry}. */
export interface ByteCarry {
  /** How many bytes are held. */
  readonly length: number;
  /** Appends a copy of `piece` (the caller keeps the total within the carry's maximum). */
  append(piece: Uint8Array): void;
  /** The held bytes: valid until the next `append` or `clear`. */
  view(): Uint8Array;
  /** Forgets the held bytes: a long buffer is freed at once, a short one kept for reuse. */
  clear(): void;
}

/** A carry's first buffer; one up to `KEEP` bytes is kept for the next use. */
const FIRST = 16 * 1024;
const KEEP = 64 * 1024;
/** Past this, a carry stops doubling and reserves its maximum (up to `RESERVE`) at once. */
const JUMP = 1024 * 1024;
const RESERVE = 256 * 1024 * 1024;

/**
 * Holds bytes across chunks in one buffer of our own, so a long line is never parts plus a
 * joined copy of them. It doubles (each outgrown buffer freed at once) up to 1 MiB; a line
 * longer than that is likely a message near the limit, so the carry then reserves its
 * maximum in one buffer (256 MiB at most, doubling past that): a fresh buffer's pages cost no memory
 * until written, where doubling on would leave every outgrown buffer behind (a runtime that
 * frees a detached buffer only at its next collection, such as Bun, keeps them all).
 *
 * @param max The most bytes it will hold.
 * @returns The carry.
 *
 * @example
 * ```ts
 * import { byteCarry } from "./_bytes.ts";
 *
 * const carry = byteCarry(1024);
 * carry.append(new TextEncoder().encode("ab"));
 * carry.append(new TextEncoder().encode("c"));
 * if (new TextDecoder().decode(carry.view()) !== "abc") throw new Error("lost bytes");
 * carry.clear();
 * ```
 */
export function byteCarry(max: number): ByteCarry {
  return new Carry(max);
}

/** {@linkcode byteCarry}'s carry: `length` a plain field, read for every line on the hot path. */
class Carry implements ByteCarry {
  length = 0;
  #buffer: Uint8Array | undefined;
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  append(piece: Uint8Array): void {
    const held = this.length;
    const needed = held + piece.length;
    let buffer = this.#buffer;
    if (buffer === undefined || buffer.length < needed) {
      const doubled = Math.max(2 * (buffer?.length ?? 0), FIRST);
      const size = Math.max(
        needed,
        Math.min(this.#max, needed > JUMP ? Math.max(RESERVE, doubled) : doubled),
      );
      const grown = new Uint8Array(size);
      if (buffer !== undefined) {
        grown.set(buffer.subarray(0, held));
        release(buffer);
      }
      this.#buffer = buffer = grown;
    }
    buffer.set(piece, held);
    this.length = needed;
  }

  view(): Uint8Array {
    return this.#buffer === undefined ? new Uint8Array(0) : this.#buffer.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
    if (this.#buffer !== undefined && this.#buffer.length > KEEP) {
      release(this.#buffer);
      this.#buffer = undefined;
    }
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

// ---- the pieced reader of long messages, loaded on first need --------------------------------

/** Messages from this many bytes on are read in pieces (when the reader has loaded). */
export const LONG_MESSAGE = 1024 * 1024;

/** A message this long may grow long: the pieced reader starts loading. */
export const GROWING_MESSAGE = 64 * 1024;

let make: (() => PiecedReader) | undefined;
let loading: Promise<void> | undefined;

/**
 * Starts loading the pieced reader (once); resolves when it is there. A failed load is
 * forgotten (the next call tries again): until then, long messages are read whole.
 *
 * @returns When the reader can be made.
 */
export function loadLong(): Promise<void> {
  return loading ??= import("../protocol/pieced_json.ts").then((module) => {
    make = () => module.piecedReader();
  }, () => {
    loading = undefined;
  });
}

/**
 * A reader for one long message, or `undefined` while its module has not loaded (the load
 * starts then).
 *
 * @returns The reader, or `undefined`.
 */
export function longReader(): PiecedReader | undefined {
  if (make !== undefined) return make();
  void loadLong();
  return undefined;
}

// ---- the most recent bytes, up to a capacity ------------------------------------------------

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
 * import { byteRing } from "./_bytes.ts";
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

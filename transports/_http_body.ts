/**
 * Private: HTTP bodies read whole within a byte limit, as bytes or as text, and the UTF-8
 * length of a text against a limit. A large body is decoded from a buffer of our own that is
 * freed as soon as it is decoded (see `_bytes.ts`), so a body at the limit costs its text
 * and the value parsed from it, not a third copy.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { PiecedReader } from "../protocol/pieced_json.ts";
import {
  type ByteCarry,
  byteCarry,
  decodeOwned,
  GROWING_MESSAGE,
  loadLong,
  LONG_MESSAGE,
  longReader,
  releaseChunk,
} from "./_bytes.ts";

/**
 * Whether a large body of known length is read with a BYOB reader into one buffer of its
 * length (Deno's `fetch` bodies are byte streams: read whole, every chunk would be left to
 * the collector). Learned from the first large body: where bodies are not byte streams
 * (Bun), merely reaching for a body's stream takes `text()` off its native path, so later
 * bodies are read whole at once.
 */
let byobBodies: boolean | undefined;

/** Bodies from this size on are read into a buffer of our own, freed once decoded. */
export const LARGE_BODY = 64 * 1024;

export function tooLarge(limit: number): McpError {
  return new McpError(`The server's response is larger than the limit of ${limit} bytes`, {
    kind: "protocol",
    reason: "response_too_large",
    data: { limit },
  });
}

/** The body length a response declares with `Content-Length`, or `NaN`. */
export function declaredLength(response: Response): number {
  const length = response.headers.get("content-length");
  return length === null ? NaN : Number(length);
}

const utf8Encoder = new TextEncoder();
/** How much of a long text {@linkcode utf8Length} encodes at a time, in UTF-16 units. */
const STEP = 16 * 1024;
let scratch: Uint8Array | undefined;
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The UTF-8 length of `text` where it matters against `limit`: UTF-16 length ≤ UTF-8
 * length ≤ 3 × UTF-16 length, so the text is only encoded when the bounds straddle `limit`
 * (otherwise the UTF-16 length stands in, on the right side of the limit). A long text is
 * encoded a slice at a time into one small scratch buffer, never as a second copy of itself.
 */
export function utf8Length(text: string, limit: number): number {
  if (text.length > limit || text.length * 3 <= limit) return text.length;
  if (text.length <= STEP) return utf8Encoder.encode(text).byteLength;
  // All ASCII up to the first other character: one byte each. A scan allocates nothing, where
  // encoding slices leaves garbage (under Deno about a fifth of a long text's size at once).
  const first = text.search(NOT_ASCII);
  if (first === -1) return text.length;
  scratch ??= new Uint8Array(3 * STEP);
  let bytes = first;
  for (let start = first; start < text.length && bytes <= limit;) {
    let end = Math.min(start + STEP, text.length);
    // Never cut a surrogate pair: its halves would count as two replacement characters.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    bytes += utf8Encoder.encodeInto(text.slice(start, end), scratch).written;
    start = end;
  }
  return bytes;
}

/**
 * Reads a whole body up to `limit` bytes; a larger body (by `Content-Length` or as it
 * streams) is cancelled and gives `McpError` kind `protocol`, reason `response_too_large`.
 */
export async function readBounded(response: Response, limit: number): Promise<Uint8Array> {
  const { bytes, free } = await gather(response, limit);
  if (free === undefined) return bytes;
  // A view of a buffer reserved for up to the limit: the caller keeps a tight copy.
  const copy = bytes.slice();
  free();
  return copy;
}

/**
 * A body's bytes, and whether they are a buffer of our own (not a chunk of the runtime's); or,
 * for a long body of unknown length when `pieced`, the reader that read it from its bytes.
 */
export async function gather(
  response: Response,
  limit: number,
  pieced = false,
): Promise<{ bytes: Uint8Array; owned: boolean; free?: () => void; long?: PiecedReader }> {
  const declared = declaredLength(response);
  if (Number.isFinite(declared)) {
    if (declared > limit) {
      await response.body?.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    // A large body into one buffer of its declared length, where the body is a byte stream.
    if (declared >= LARGE_BODY && byobBodies !== false && response.body !== null) {
      const bytes = await readDeclared(response.body, declared, limit);
      byobBodies = bytes !== undefined;
      if (bytes !== undefined) return { bytes, owned: true };
    }
    // Declared within the limit: read it in one go (without making a body stream). HTTP
    // framing stops a body at its Content-Length; a body that lies anyway (an injected
    // fetch) is still refused.
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return { bytes, owned: true };
  }
  if (response.body === null) return { bytes: new Uint8Array(0), owned: false };
  const carry = byteCarry(limit);
  const joined: Joined = { pieced }; // a body of one chunk is used as it is
  const done = () => {
    const long = joined.long;
    if (long !== undefined) return { bytes: EMPTY, owned: false, long };
    return { bytes: carry.view(), owned: true, free: () => carry.clear() };
  };
  // Of unknown length (chunked) from a byte stream (Deno): read into one reused buffer and
  // copied into the carry, so no chunk is allocated per read and none waits for a collection.
  if (byobBodies !== false) {
    const reader = byobReader(response.body);
    if (reader !== undefined) {
      const whole = await readChunked(reader, joined, carry, limit);
      if (whole !== undefined) return { bytes: whole, owned: true };
      return done();
    }
  }
  // Otherwise (Bun) each chunk is copied into one buffer of our own as it arrives and freed
  // at once, so the chunks of a body at the limit are never alive beside their joined copy
  // (Bun frees a read chunk only at its next collection).
  const reader = response.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.byteLength > 0) await join(joined, value, carry, limit, reader, releaseChunk);
  }
  const first = joined.first;
  if (first !== undefined) return { bytes: first, owned: false };
  return done();
}

const EMPTY = new Uint8Array(0);

/** The chunks of a body of unknown length read so far, besides those joined in the carry. */
interface Joined {
  /** The first chunk, kept as it is while it is the only one (most bodies are). */
  first?: Uint8Array;
  /** Whether a body past 1 MiB goes on in a pieced reader. */
  pieced?: boolean;
  /** The pieced reader that took over the body. */
  long?: PiecedReader;
}

/**
 * Takes one non-empty chunk of a body of unknown length: refused (the read cancelled) when the
 * body would pass `limit`, kept as it is when it is the first, else joined into `carry` (with
 * the first chunk before it). `joinedChunk` is told of each chunk once it is copied.
 *
 * @returns Whether the chunk was kept as it is.
 */
async function join(
  joined: Joined,
  value: Uint8Array,
  carry: ByteCarry,
  limit: number,
  reader: { cancel(): Promise<void> },
  joinedChunk?: (chunk: Uint8Array) => void,
): Promise<boolean> {
  const long = joined.long;
  const held = long === undefined ? carry.length + (joined.first?.byteLength ?? 0) : long.length;
  if (held + value.byteLength > limit) {
    carry.clear();
    joined.long = undefined;
    await reader.cancel().catch(() => {});
    throw tooLarge(limit);
  }
  if (long !== undefined) {
    long.push(value);
    joinedChunk?.(value);
    return false;
  }
  if (joined.first === undefined && carry.length === 0) {
    joined.first = value;
    return true;
  }
  if (joined.first !== undefined) {
    carry.append(joined.first);
    joinedChunk?.(joined.first);
    joined.first = undefined;
  }
  carry.append(value);
  joinedChunk?.(value);
  if (joined.pieced && carry.length >= GROWING_MESSAGE) {
    // Past 1 MiB, the rest goes to a pieced reader (loaded while the body grew).
    if (carry.length < LONG_MESSAGE) void loadLong();
    else {
      await loadLong();
      const reader = longReader();
      if (reader !== undefined) {
        reader.push(carry.view());
        carry.clear();
        joined.long = reader;
      }
    }
  }
  return false;
}

/** A BYOB reader of `body`, or `undefined` when it is not a byte stream. */
export function byobReader(body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return body.getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
}

/** The first read of a body of unknown length: most bodies end within it. */
const FIRST_READ = 16 * 1024;

/**
 * Reads a body of unknown length through a reused buffer, within `limit`: a body that ends
 * within the first read is returned as it is; a longer one is copied into `carry`.
 */
async function readChunked(
  reader: ReadableStreamBYOBReader,
  joined: Joined,
  carry: ByteCarry,
  limit: number,
): Promise<Uint8Array | undefined> {
  let buffer = new ArrayBuffer(FIRST_READ);
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done || value === undefined) {
      const first = joined.first;
      if (first === undefined) {
        return carry.length === 0 && joined.long === undefined ? new Uint8Array(0) : undefined;
      }
      // A tight copy: the read buffer is larger than a short body.
      return first.byteLength === first.buffer.byteLength ? first : first.slice();
    }
    // A chunk kept as it is holds its buffer: the next read goes into a fresh, larger one.
    const kept = value.byteLength > 0 && await join(joined, value, carry, limit, reader);
    buffer = kept ? new ArrayBuffer(LARGE_BODY) : value.buffer as ArrayBuffer;
  }
}

const utf8 = new TextDecoder();

/**
 * {@linkcode readBounded}, decoded as UTF-8 (invalid bytes become U+FFFD); `declared` is the
 * body's `Content-Length` (`NaN` when it has none), when the caller has read it already.
 *
 * Not an `async` function: the usual answer (small, of a declared length) is the runtime's
 * own `text()` and one length check, without an async frame of ours around it (under Deno
 * each `async` layer an answer passes through allocates a few hundred bytes per call).
 */
export function readBoundedText(
  response: Response,
  limit: number,
  declared: number = declaredLength(response),
): Promise<string> {
  if (
    Number.isFinite(declared) && declared <= limit &&
    (declared < LARGE_BODY || byobBodies === false)
  ) {
    // Declared within the limit, and small (or not a byte stream): the runtime decodes it
    // in one go (and the length check encodes no copy of it).
    return response.text().then((text) => {
      if (utf8Length(text, limit) > limit) throw tooLarge(limit);
      return text;
    });
  }
  // Large, or of unknown length: from bytes (whose length is known exactly).
  return gather(response, limit).then(decodeGathered);
}

/**
 * The text of what {@linkcode gather} read, our own copy of the bytes freed as soon as it is
 * decoded (so that it is not alive beside the text and the parsed value).
 */
export function decodeGathered(
  gathered: { bytes: Uint8Array; owned: boolean; free?: () => void },
): string {
  const { bytes, owned, free } = gathered;
  if (free === undefined) return owned ? decodeOwned(bytes) : utf8.decode(bytes);
  const text = utf8.decode(bytes);
  free();
  return text;
}

/**
 * Reads a body of known length with a BYOB reader straight into one buffer of that length
 * (no chunk is allocated per read, none is left for the collector); `undefined` when the
 * body is not a byte stream. A body shorter than declared gives what came; a longer one is
 * still bounded by `limit`.
 */
async function readDeclared(
  body: ReadableStream<Uint8Array>,
  declared: number,
  limit: number,
): Promise<Uint8Array | undefined> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    return undefined;
  }
  let buffer = new ArrayBuffer(declared);
  let offset = 0;
  while (offset < declared) {
    const { done, value } = await reader.read(new Uint8Array(buffer, offset, declared - offset));
    if (value !== undefined) buffer = value.buffer as ArrayBuffer;
    if (done || value === undefined) return new Uint8Array(buffer, 0, offset).slice();
    offset += value.byteLength;
  }
  // Past its Content-Length only through an injected fetch: kept within the limit.
  const parts = [new Uint8Array(buffer)];
  let size = declared;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(LARGE_BODY));
    if (done || value === undefined) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    parts.push(value);
  }
  if (parts.length === 1) return parts[0];
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
}

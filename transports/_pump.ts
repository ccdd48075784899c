/**
 * Private: reading a byte stream to its end, chunk by chunk. Where the stream is a byte
 * stream (Deno's pipes), a consumer that copies what it keeps can have every chunk read into
 * one reused buffer instead: no chunk is allocated per read, so a long message leaves no
 * trail of dead read buffers waiting for a collection. Elsewhere (Bun's pipes) such a
 * consumer has each large chunk freed as soon as it returns, to the same end.
 *
 * @module
 */

import { releaseChunk } from "./_bytes.ts";

/** A stream being read, from {@linkcode pumpStream}. */
export interface Pump {
  /** Settles when the stream has ended, broken or been cancelled (never rejects). */
  readonly done: Promise<void>;
  /** Cancels the stream. */
  cancel(): void;
}

const CHUNK = 64 * 1024;

/**
 * Reads `stream` to its end, handing each non-empty chunk to `onChunk`. A broken or
 * cancelled stream, or an `onChunk` that throws, ends the reading like the stream's end.
 *
 * @param stream The stream.
 * @param onChunk Receives each chunk.
 * @param reuse `onChunk` copies what it keeps: the chunks may share one buffer, overwritten
 *   by the next read, or be freed once it returns.
 * @returns The reading.
 *
 * @example
 * ```ts
 * import { pumpStream } from "./_pump.ts";
 *
 * let bytes = 0;
 * await pumpStream(new Blob(["hello"]).stream(), (chunk) => bytes += chunk.length, true).done;
 * if (bytes !== 5) throw new Error(`read ${bytes}`);
 * ```
 */
export function pumpStream(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
  reuse = false,
): Pump {
  let reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader | undefined;
  let done: Promise<void>;
  try {
    if (reuse) reader = byobReader(stream);
    if (reader !== undefined) done = readInto(reader as ReadableStreamBYOBReader, onChunk);
    else {
      const chunks = stream.getReader();
      reader = chunks;
      done = readChunks(chunks, onChunk, reuse);
    }
  } catch {
    return { done: Promise.resolve(), cancel() {} };
  }
  const cancelled = reader;
  return { done, cancel: () => void cancelled.cancel().catch(() => {}) };
}

function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (Bun's pipes, a test's stream): chunks as they come.
    return undefined;
  }
}

/** Reads chunk by chunk; a consumer that copies what it keeps has each chunk freed after. */
async function readChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
  copies: boolean,
): Promise<void> {
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value && value.length > 0) {
        onChunk(value);
        if (copies) releaseChunk(value);
      }
    }
  } catch {
    // The pipe broke or was cancelled: the same as its end.
  }
}

async function readInto(
  reader: ReadableStreamBYOBReader,
  onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
  let buffer = new ArrayBuffer(CHUNK);
  try {
    for (;;) {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      if (done || value === undefined) return;
      // The read moved the buffer into `value`: read the next chunk into it again.
      buffer = value.buffer as ArrayBuffer;
      if (value.length > 0) onChunk(value);
    }
  } catch {
    // The pipe broke or was cancelled: the same as its end.
  }
}

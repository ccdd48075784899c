// Byte streams for the read-path tests: a body cut into chunks, served as a byte stream (as
// Deno's bodies and pipes are) or as a plain stream (as Bun's are), each chunk a fresh copy;
// and the events of an SSE reader, read to the end.

import type { SseEvent, SseReader } from "../../transports/_sse.ts";

/** `bytes` cut into pieces of `size` (the last one shorter). */
export function pieces(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

/** A byte stream (BYOB-readable) of `chunks`, each enqueued as its own copy. */
export function byteStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++].slice());
      else {
        controller.close();
        controller.byobRequest?.respond(0);
      }
    },
  });
}

/** A stream that is not a byte stream (as Bun's bodies are), of copies of `chunks`. */
export function plainStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull: (controller) =>
      i < chunks.length ? controller.enqueue(chunks[i++].slice()) : controller.close(),
  });
}

/** Reads every event, closing the reader as its consumers do. */
export async function collect(reader: SseReader): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  try {
    for (let event; (event = await reader.next()) !== undefined;) events.push(event);
  } finally {
    reader.close();
  }
  return events;
}

/**
 * Private: server-sent events read from a streaming HTTP body with `eventsource-parser`,
 * with a maximum event size. Comments (keep-alives) are skipped.
 *
 * @module
 */

import { createParser } from "eventsource-parser";
import { McpError } from "../protocol/errors.ts";
import { utf8Length } from "./_http.ts";

/** One dispatched event. */
export interface SseEvent {
  /** The event's `id:`, when its block carried one. */
  id?: string;
  /** The event type, when the stream named one. */
  event?: string;
  /** The event's data (`data:` lines joined with `\n`); `""` for a priming event. */
  data: string;
  /** The latest `retry:` value seen on the stream so far, in milliseconds. */
  retry?: number;
}

/** The events of one stream, with what a reconnect needs once they end. */
export interface SseStream extends AsyncIterable<SseEvent> {
  /** The last event id the stream set (also by blocks without data). */
  readonly lastEventId: string | undefined;
  /** The latest `retry:` value, in milliseconds. */
  readonly retry: number | undefined;
}

/** Options for {@linkcode readSse}. */
export interface ReadSseOptions {
  /** The largest event accepted, in bytes of data (and characters buffered while parsing). */
  maxEventBytes: number;
}

/** How long, and how many bytes, the rest of a body left early is drained before cancelling. */
const DRAIN_MS = 1_000;
const DRAIN_BYTES = 64 * 1024;

/**
 * Reads what is left of a body the caller no longer needs, so that the connection can be
 * reused (cancelling a response body mid-way makes most runtimes drop the connection). A
 * body that does not end soon, or is large, is cancelled after all.
 */
function drainRest(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  let left = DRAIN_BYTES;
  const timer = setTimeout(() => reader.cancel().catch(() => {}), DRAIN_MS);
  const step = (): Promise<void> =>
    reader.read().then(({ done, value }) => {
      if (done) return;
      left -= value?.byteLength ?? 0;
      if (left < 0) return reader.cancel();
      return step();
    });
  step().catch(() => {}).finally(() => clearTimeout(timer));
}

/**
 * Reads the events of an SSE body. Iterating consumes the body; leaving the loop early drains
 * the rest in the background (briefly, and a bounded amount) so that the connection stays
 * reusable, and an error cancels it. An event over `maxEventBytes` throws an `McpError` of kind
 * `protocol` (reason `event_too_large`) after cancelling the stream.
 *
 * @param body The response body.
 * @param options The size limit.
 * @returns The events, plus the last event id and retry delay.
 */
export function readSse(body: ReadableStream<Uint8Array>, options: ReadSseOptions): SseStream {
  const limit = options.maxEventBytes;
  let lastEventId: string | undefined;
  let retry: number | undefined;
  let overflow = false;
  const ready: SseEvent[] = [];
  const parser = createParser({
    maxBufferSize: limit,
    onId(id) {
      lastEventId = id === "" ? undefined : id;
    },
    onRetry(ms) {
      retry = ms;
    },
    onEvent(message) {
      if (utf8Length(message.data, limit) > limit) {
        overflow = true;
        return;
      }
      const event: SseEvent = { data: message.data };
      if (message.id !== undefined && message.id !== "") event.id = message.id;
      if (message.event !== undefined) event.event = message.event;
      if (retry !== undefined) event.retry = retry;
      ready.push(event);
    },
    onError(error) {
      if (error.type === "max-buffer-size-exceeded") overflow = true;
      // Invalid `retry:` values and unknown fields are ignored, as browsers do.
    },
  });

  async function* events(): AsyncGenerator<SseEvent> {
    // A plain reader and a streaming decoder: a TextDecoderStream would add a transform
    // stream (and its promises) to every response.
    const decoder = new TextDecoder();
    const reader = body.getReader();
    let finished = false;
    let failed = false;
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) {
          finished = true;
          const tail = decoder.decode();
          if (tail !== "") parser.feed(tail);
          while (ready.length > 0) yield ready.shift()!;
          return;
        }
        parser.feed(decoder.decode(value, { stream: true }));
        if (overflow) {
          failed = true;
          throw new McpError(
            `The server sent a stream event larger than the limit of ${limit} bytes`,
            { kind: "protocol", reason: "event_too_large", data: { limit } },
          );
        }
        while (ready.length > 0) yield ready.shift()!;
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // Left early by the consumer (its response came in): drain; on an error: cancel.
      if (finished) {
        // Nothing left to read.
      } else if (failed) await reader.cancel().catch(() => {});
      else drainRest(reader);
    }
  }

  return {
    get lastEventId() {
      return lastEventId;
    },
    get retry() {
      return retry;
    },
    [Symbol.asyncIterator]: events,
  };
}

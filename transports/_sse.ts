/**
 * Private: server-sent events read from a streaming HTTP body, with a maximum event size.
 * Comments (keep-alives) are skipped. The bytes and their limits are read here; the lines and
 * fields, by the grammar in `_sse_parser.ts`.
 *
 * Every POST answered with an event stream makes one reader, so a reader and its parser are
 * objects with their methods on the prototype.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import {
  type ByteCarry,
  byteCarry,
  GROWING_MESSAGE,
  LONG_MESSAGE,
  releaseChunk,
  returnReadBuffer,
  takeReadBuffer,
} from "./_bytes.ts";
import { utf8Length } from "./_http.ts";
import { byobReader } from "./_http_body.ts";
import type { LongAnswer } from "./_long_body.ts";
import type { LongEvent, makeLongEvent } from "./_sse_long.ts";
import { cancelReader, draining, watchDrain } from "./_sse_drain.ts";
import { type SseMessage, SseParser } from "./_sse_parser.ts";

/** One dispatched event. */
export interface SseEvent {
  /** The event's `id:`, when its block carried one. */
  id?: string;
  /** The event type, when the stream named one. */
  event?: string;
  /**
   * The event's data (`data:` lines joined with `\n`); `""` for a priming event. Data past
   * 1 MiB comes read as a message from its bytes (its text never held whole).
   */
  data: string | LongAnswer;
  /** The latest `retry:` value seen on the stream so far, in milliseconds. */
  retry?: number;
}

const STREAMING: TextDecodeOptions = { stream: true };
const LF = 0x0a;
const CR = 0x0d;
/** Bytes held for an unfinished line beyond the event limit (a field name, `data: `). */
const HOLD_SLACK = 64;

/** How many bytes of the rest of a body left early are drained before cancelling. */
const DRAIN_BYTES = 64 * 1024;
/** The blank line that makes the parser hand over what the event has so far. */
const HAND_OVER = "data\n\n";
/** A byte-order mark, which a stream may start with. */
const BOM = [0xef, 0xbb, 0xbf];
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a];

let makeLong: typeof makeLongEvent | undefined;
let loadingLong: Promise<void> | undefined;

/** Loads the reader of long events (once; a failed load is retried by the next long line). */
function loadLong(): Promise<void> {
  return loadingLong ??= import("./_sse_long.ts").then((module) => {
    makeLong = module.makeLongEvent;
  }, () => {
    loadingLong = undefined;
  });
}

/** Whether `bytes` from `at` start with `prefix`. */
function startsWith(bytes: Uint8Array, at: number, prefix: readonly number[]): boolean {
  if (bytes.length - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

/**
 * Reads the events of an SSE body, one {@linkcode SseReader.next} at a time. A reader must be
 * closed when its consumer stops ({@linkcode SseReader.close}, in a `finally`): a body left
 * early is drained in the background (briefly, and a bounded amount) so that its connection
 * stays reusable, and a body whose reading failed is cancelled. An event over
 * `maxEventBytes` throws an `McpError` of kind `protocol` (reason `event_too_large`).
 *
 * @example
 * ```ts ignore
 * const events = new SseReader(response.body!, 1_048_576);
 * try {
 *   for (let event; (event = await events.next()) !== undefined;) console.log(event.data);
 * } finally {
 *   events.close();
 * }
 * ```
 */
export class SseReader {
  /**
   * The last event id the stream set (also by blocks without data): `""` when an empty
   * `id:` reset it, `undefined` when the stream set none.
   */
  lastEventId: string | undefined;
  /** The latest `retry:` value, in milliseconds. */
  retry: number | undefined;
  /** An event (or a line being parsed) went over the limit. */
  overflow = false;
  private reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader;
  /** Reads go into a buffer of ours: the body is a byte stream (Deno's `fetch` bodies). */
  private readonly byob: boolean;
  /** That buffer, as the last read handed it back (see {@linkcode takeReadBuffer}). */
  private buffer: ArrayBuffer | undefined;
  // A plain reader and a streaming decoder: a TextDecoderStream would add a transform
  // stream (and its promises) to every response.
  // `ignoreBOM`: Deno's streaming decoder drops a U+FEFF at the start of every chunk, not
  // only of the stream (corrupting data split there); the parser drops the leading one.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private parser: SseParser | undefined;
  /** The bytes of a line no chunk has finished yet (made on first need). */
  private carry: ByteCarry | undefined;
  private readonly ready: SseEvent[] = [];
  private finished = false;
  private failed = false;
  /** Any text went to the parser (a byte-order mark can only lead the stream). */
  private fed = false;
  /** The event past 1 MiB being read from its bytes, field line by field line. */
  private long: LongEvent | undefined;
  /** A long data line waits for the reader of long events to load. */
  private wantLong = false;
  /** Set while the parser hands over the event so far (see {@linkcode SseReader.goLong}). */
  private handOver: { data: string; id?: string; event?: string } | undefined;

  /**
   * @param body The response body.
   * @param limit The largest event accepted, in bytes of data (and characters buffered
   *   while parsing).
   */
  constructor(body: ReadableStream<Uint8Array>, readonly limit: number) {
    // A body that is a byte stream (Deno's `fetch` bodies, not Bun's) is read into a buffer of
    // ours: its chunks would each be a fresh 64 KiB buffer left to the collector, however few
    // bytes they held.
    const bytes = byobReader(body);
    this.byob = bytes !== undefined;
    this.reader = bytes ?? body.getReader();
  }

  /** The next event; `undefined` once the body has ended. */
  async next(): Promise<SseEvent | undefined> {
    if (this.parser === undefined && !this.finished) this.parser = new SseParser(this, this.limit);
    while (this.ready.length === 0) {
      if (this.finished) return undefined;
      if (this.wantLong) {
        this.wantLong = false;
        await loadLong();
      }
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.read();
      } catch (error) {
        this.failed = true;
        throw error;
      }
      if (chunk.done) {
        this.finished = true;
        this.flush();
        this.feed(this.decoder.decode());
        this.release();
        this.giveBack();
      } else {
        this.feedBytes(chunk.value);
        // Copied or decoded: a chunk of a body that is not a byte stream is freed now.
        if (this.carry !== undefined && !this.byob) releaseChunk(chunk.value);
      }
      if (this.overflow) {
        this.failed = true;
        throw new McpError(
          `The server sent a stream event larger than the limit of ${this.limit} bytes`,
          { kind: "protocol", reason: "event_too_large", data: { limit: this.limit } },
        );
      }
    }
    return this.ready.shift();
  }

  /**
   * Done with the stream: nothing to do after its end; a failed read cancels the body; a
   * body left early is drained in the background, then cancelled if it runs on.
   */
  close(): void {
    this.release();
    if (this.finished) return this.giveBack();
    this.finished = true;
    if (this.failed) {
      cancelReader(this.reader);
      this.giveBack();
    } else void this.drain();
  }

  /** @internal Parser callback. */
  onId(id: string): void {
    if (this.handOver !== undefined) this.handOver.id = id;
    else this.lastEventId = id;
  }

  /** @internal Parser callback. */
  onRetry(ms: number): void {
    this.retry = ms;
  }

  /** @internal Parser callback. */
  onEvent(message: SseMessage): void {
    if (this.handOver !== undefined) {
      this.handOver.data = message.data;
      this.handOver.event = message.event;
      return;
    }
    if (utf8Length(message.data, this.limit) > this.limit) {
      this.overflow = true;
      return;
    }
    const event: SseEvent = { data: message.data };
    if (message.id !== undefined && message.id !== "") event.id = message.id;
    if (message.event !== undefined) event.event = message.event;
    if (this.retry !== undefined) event.retry = this.retry;
    this.ready.push(event);
  }

  /**
   * Feeds the complete lines of a chunk to the parser and holds back the bytes of a line it
   * does not finish (in a buffer of our own, freed once decoded): a large event's data is
   * then decoded once, as a whole, instead of being held as decoded fragments plus their
   * joined copy. A chunk that ends a line, the usual case, goes straight through.
   */
  private feedBytes(bytes: Uint8Array): void {
    if (this.long !== undefined) {
      const end = this.long.push(bytes);
      if (end === -1) {
        if (this.long.overflow) this.overflow = true;
        return;
      }
      this.endLong();
      if (end === bytes.length) return;
      bytes = bytes.subarray(end);
    } else if (
      this.carry !== undefined && this.carry.length + bytes.length >= GROWING_MESSAGE &&
      this.limit >= LONG_MESSAGE && this.goLong(this.carry, bytes.length)
    ) return this.feedBytes(bytes);
    const end = bytes[bytes.length - 1];
    if ((end === LF || end === CR) && !(this.carry?.length)) {
      this.feed(this.decoder.decode(bytes, STREAMING));
      return;
    }
    const cut = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) + 1;
    if (cut > 0) {
      if (this.carry?.length) {
        this.hold(bytes.subarray(0, cut));
        this.flush();
      } else this.feed(this.decoder.decode(bytes.subarray(0, cut), STREAMING));
    }
    if (cut < bytes.length) this.hold(bytes.subarray(cut));
  }

  /** Holds bytes of an unfinished line; past the limit (and some slack) they go to the parser. */
  private hold(piece: Uint8Array): void {
    const carry = this.carry ??= byteCarry(this.limit + HOLD_SLACK);
    if (carry.length + piece.length > this.limit + HOLD_SLACK) {
      this.flush();
      if (piece.length > this.limit) {
        this.feed(this.decoder.decode(piece, STREAMING));
        return;
      }
    }
    carry.append(piece);
  }

  /**
   * A data line that grows past 1 MiB goes on as a long event (see `_sse_long.ts`): the
   * parser hands over the event so far (a line `data` and a blank line make it dispatch what
   * it has, plus `\n` when it had data lines), and the held line and the rest of the event
   * are read from their bytes. Loading starts once the line passes 64 KiB.
   *
   * @param carry The held line.
   * @param coming How many bytes arrived with it.
   * @returns Whether the line is a long event now (the bytes that came go to it).
   */
  private goLong(carry: ByteCarry, coming: number): boolean {
    if (carry.length + coming < LONG_MESSAGE || makeLong === undefined) {
      if (makeLong === undefined) {
        void loadLong();
        if (carry.length + coming >= LONG_MESSAGE) this.wantLong = true;
      }
      return false;
    }
    // The line's first bytes: a carry shorter than `data:` is not a long line yet.
    const held = carry.view();
    const skip = !this.fed && startsWith(held, 0, BOM) ? BOM.length : 0;
    if (!startsWith(held, skip, DATA)) return false;
    const handOver = this.handOver = { data: "" } as NonNullable<SseReader["handOver"]>;
    this.feed(HAND_OVER);
    this.handOver = undefined;
    if (this.overflow) return false;
    const long = this.long = makeLong(this.limit, handOver.data, handOver.id, handOver.event, this);
    long.push(skip === 0 ? held : held.subarray(skip));
    carry.clear();
    return true;
  }

  /** The long event ended: it is ready, with its id (the last event id) and type. */
  private endLong(): void {
    const long = this.long!;
    this.long = undefined;
    if (long.id !== undefined) this.lastEventId = long.id;
    const event: SseEvent = { data: long.answer() };
    if (long.id !== undefined && long.id !== "") event.id = long.id;
    if (long.event !== undefined) event.event = long.event;
    if (this.retry !== undefined) event.retry = this.retry;
    this.ready.push(event);
  }

  /** The next chunk, from the reader as it is now. */
  private read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (!this.byob) return (this.reader as ReadableStreamDefaultReader<Uint8Array>).read();
    const view = new Uint8Array(this.buffer ??= takeReadBuffer());
    return (this.reader as ReadableStreamBYOBReader).read(view).then((result) => {
      if (result.value !== undefined) this.buffer = result.value.buffer as ArrayBuffer;
      return result as ReadableStreamReadResult<Uint8Array>;
    });
  }

  /** The read buffer goes back to the pool: the stream is done with it. */
  private giveBack(): void {
    const buffer = this.buffer;
    this.buffer = undefined;
    if (buffer !== undefined) returnReadBuffer(buffer);
  }

  /** Decodes the held bytes for the parser and frees them. */
  private flush(): void {
    const carry = this.carry;
    if (carry === undefined || carry.length === 0) return;
    const text = this.decoder.decode(carry.view(), STREAMING);
    carry.clear();
    this.feed(text);
  }

  private feed(text: string): void {
    if (text === "" || this.parser === undefined || this.overflow) return;
    this.fed = true;
    this.parser.feed(text);
  }

  private release(): void {
    this.carry?.clear();
    this.long = undefined;
    this.parser = undefined;
  }

  /**
   * Reads what is left of a body the consumer no longer needs, so that the connection can be
   * reused (cancelling a response body mid-way makes most runtimes drop the connection). A
   * body that does not end soon, or is large, is cancelled after all.
   */
  private async drain(): Promise<void> {
    const reader = this.reader;
    watchDrain(reader);
    let left = DRAIN_BYTES;
    try {
      while (true) {
        const { done, value } = await this.read();
        if (done) return;
        left -= value.byteLength;
        if (left < 0) return cancelReader(reader);
      }
    } catch {
      // Cancelled by the sweeper, or the connection broke: either way, done with it.
    } finally {
      draining.delete(reader);
      this.giveBack();
    }
  }
}

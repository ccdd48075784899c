/**
 * Private: server-sent events read from a streaming HTTP body with `eventsource-parser`,
 * with a maximum event size. Comments (keep-alives) are skipped.
 *
 * Every POST answered with an event stream makes one reader, so a reader is one object with
 * its methods on the prototype, and the parsers (ten closures each) are pooled: a parser is
 * reset when its stream ends and serves the next one.
 *
 * `eventsource-parser` loads with the first event stream: a client whose server answers in
 * JSON never loads it (under Deno and Bun, the first npm package a program loads also brings
 * in the runtime's package resolution, about 2 MB of resident memory).
 *
 * @module
 */

import type { EventSourceMessage, EventSourceParser, ParserConfig } from "eventsource-parser";
import { McpError } from "../protocol/errors.ts";
import { dependencyMissing } from "../protocol/dependency_error.ts";
import { utf8Length } from "./_http.ts";
import { startTimer, type Timer } from "../clock/timer.ts";

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

/** How long, and how many bytes, the rest of a body left early is drained before cancelling. */
const DRAIN_MS = 1_000;
const DRAIN_BYTES = 64 * 1024;

/** Idle parsers kept per event size limit. */
const POOL_SIZE = 16;

/** The reader whose chunk a parser is parsing (`feed` is synchronous). */
let feeding: SseReader | undefined;

const pools = new Map<number, EventSourceParser[]>();

let createParser: ((config: ParserConfig) => EventSourceParser) | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads `eventsource-parser` (once); until then {@linkcode takeParser} cannot run. A failed
 * load is kind `transport`, reason `dependency_missing` (no retry can fix it).
 */
function loadParser(): Promise<void> {
  return loading ??= import("eventsource-parser").then((module) => {
    createParser = module.createParser;
  }, (error) => {
    loading = undefined;
    throw dependencyMissing(
      'the "eventsource-parser" package',
      "read the server's event stream",
      error,
    );
  });
}

function takeParser(limit: number): EventSourceParser {
  const parser = pools.get(limit)?.pop();
  if (parser !== undefined) return parser;
  return createParser!({
    maxBufferSize: limit,
    onId: (id) => feeding!.onId(id),
    onRetry: (ms) => feeding!.onRetry(ms),
    onEvent: (message) => feeding!.onEvent(message),
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") feeding!.overflow = true;
      // Invalid `retry:` values and unknown fields are ignored, as browsers do.
    },
  });
}

function returnParser(limit: number, parser: EventSourceParser): void {
  parser.reset();
  let pool = pools.get(limit);
  if (pool === undefined) pools.set(limit, pool = []);
  if (pool.length < POOL_SIZE) pool.push(parser);
}

function cancelReader(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  try {
    reader.cancel().catch(() => {});
  } catch {
    // Refused outright (an edge runtime's body of another request): the drain's byte
    // bound still ends it.
  }
}

const STREAMING: TextDecodeOptions = { stream: true };

/**
 * The bodies being drained, each with when its drain began, behind one shared timer: a
 * timer per drain would cost more than the drain (every POST answered with an event stream
 * is drained once its response is in). The timer cancels each drain still running
 * `DRAIN_MS` after it began, and re-arms only while drains remain. It is not cleared when
 * the last drain ends (the next one, usually a moment later, reuses it) and holds no process
 * open: a drain's own pending read does that.
 */
const draining = new Map<ReadableStreamDefaultReader<Uint8Array>, number>();
let sweeper: Timer | undefined;

function sweep(): void {
  sweeper = undefined;
  const now = Date.now();
  let next = Infinity;
  for (const [reader, began] of draining) {
    if (now - began >= DRAIN_MS) {
      draining.delete(reader);
      cancelReader(reader);
    } else if (began + DRAIN_MS < next) next = began + DRAIN_MS;
  }
  if (next !== Infinity) arm(next - now);
}

function arm(ms: number): void {
  sweeper = startTimer(sweep, ms);
  // Deno, Bun and Node timers can be unreferenced; edge runtimes end with the request.
  sweeper.unref();
}

function watchDrain(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  draining.set(reader, Date.now());
  if (sweeper === undefined) arm(DRAIN_MS);
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
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  // A plain reader and a streaming decoder: a TextDecoderStream would add a transform
  // stream (and its promises) to every response.
  // `ignoreBOM`: Deno's streaming decoder drops a U+FEFF at the start of every chunk, not
  // only of the stream (corrupting data split there); the parser drops the leading one.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private parser: EventSourceParser | undefined;
  private readonly ready: SseEvent[] = [];
  private finished = false;
  private failed = false;

  /**
   * @param body The response body.
   * @param limit The largest event accepted, in bytes of data (and characters buffered
   *   while parsing).
   */
  constructor(body: ReadableStream<Uint8Array>, readonly limit: number) {
    this.reader = body.getReader();
  }

  /** The next event; `undefined` once the body has ended. */
  async next(): Promise<SseEvent | undefined> {
    if (this.parser === undefined && !this.finished) {
      if (createParser === undefined) {
        try {
          await loadParser();
        } catch (error) {
          this.failed = true;
          throw error;
        }
        if (this.finished) return undefined; // closed meanwhile
      }
      this.parser = takeParser(this.limit);
    }
    while (this.ready.length === 0) {
      if (this.finished) return undefined;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.reader.read();
      } catch (error) {
        this.failed = true;
        throw error;
      }
      if (chunk.done) {
        this.finished = true;
        this.feed(this.decoder.decode());
        this.release();
      } else {
        this.feed(this.decoder.decode(chunk.value, STREAMING));
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
    if (this.finished) return;
    this.finished = true;
    if (this.failed) cancelReader(this.reader);
    else void this.drain();
  }

  /** @internal Parser callback. */
  onId(id: string): void {
    this.lastEventId = id;
  }

  /** @internal Parser callback. */
  onRetry(ms: number): void {
    this.retry = ms;
  }

  /** @internal Parser callback. */
  onEvent(message: EventSourceMessage): void {
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

  private feed(text: string): void {
    if (text === "" || this.parser === undefined || this.overflow) return;
    feeding = this;
    try {
      this.parser.feed(text);
    } catch {
      // A parser that overflowed refuses further input.
      this.overflow = true;
    } finally {
      feeding = undefined;
    }
  }

  private release(): void {
    if (this.parser === undefined) return;
    returnParser(this.limit, this.parser);
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
        const { done, value } = await reader.read();
        if (done) return;
        left -= value.byteLength;
        if (left < 0) return cancelReader(reader);
      }
    } catch {
      // Cancelled by the sweeper, or the connection broke: either way, done with it.
    } finally {
      draining.delete(reader);
    }
  }
}

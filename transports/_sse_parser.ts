/**
 * Private: the pooled `eventsource-parser` parsers of the SSE readers (ten closures each, so
 * a parser is reset when its stream ends and serves the next one), and the package's loading
 * with the first event stream.
 *
 * @module
 */

import type { EventSourceMessage, EventSourceParser, ParserConfig } from "eventsource-parser";
import { dependencyMissing } from "../protocol/errors.ts";

/** What a parser reports to, for the chunk being fed. */
export interface ParserClient {
  onId(id: string): void;
  onRetry(ms: number): void;
  onEvent(message: EventSourceMessage): void;
  /** Set when an event (or a line being parsed) went over the parser's limit. */
  overflow: boolean;
}

/** Idle parsers kept per event size limit. */
const POOL_SIZE = 16;

/** The reader whose chunk a parser is parsing (`feed` is synchronous). */
let feeding: ParserClient | undefined;

const pools = new Map<number, EventSourceParser[]>();

let createParser: ((config: ParserConfig) => EventSourceParser) | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads `eventsource-parser` (once); until then {@linkcode takeParser} cannot run. A failed
 * load is kind `transport`, reason `dependency_missing` (no retry can fix it).
 */
export function loadParser(): Promise<void> {
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

/** A parser for events of at most `limit` characters: an idle one, or a new one. */
export function takeParser(limit: number): EventSourceParser {
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

/** Resets a parser whose stream ended and keeps it for the next stream (a few per limit). */
export function returnParser(limit: number, parser: EventSourceParser): void {
  parser.reset();
  let pool = pools.get(limit);
  if (pool === undefined) pools.set(limit, pool = []);
  if (pool.length < POOL_SIZE) pool.push(parser);
}

/** Whether `eventsource-parser` has loaded ({@linkcode takeParser} can run). */
export function parserLoaded(): boolean {
  return createParser !== undefined;
}

/** Feeds `text` to `parser` on behalf of `client` (an overflowed parser refuses input). */
export function feedParser(parser: EventSourceParser, client: ParserClient, text: string): void {
  feeding = client;
  try {
    parser.feed(text);
  } catch {
    // A parser that overflowed refuses further input.
    client.overflow = true;
  } finally {
    feeding = undefined;
  }
}

/**
 * Newline framing for byte streams (stdio): splits UTF-8 bytes into lines with a bounded
 * buffer, and reads the id at the head of a line too long to keep. Private to the package.
 *
 * @module
 */

import type { DecodeResult } from "../protocol/jsonrpc.ts";
import type { PiecedReader } from "../protocol/pieced_json.ts";
import { byteCarry, GROWING_MESSAGE, loadLong, LONG_MESSAGE, longReader } from "./_bytes.ts";

/** How many bytes of an oversized message are kept for {@linkcode leadingResponseId}. */
export const HEAD_BYTES = 1024;

/** Callbacks and limits for {@linkcode lineSplitter}. */
export interface LineSplitterOptions {
  /** The longest line kept, in bytes, without its `\n` (and `\r`). */
  maxLineBytes: number;
  /** Receives each non-blank line, decoded, without its line ending. */
  onLine(line: string): void;
  /**
   * Receives the length of each line that went over `maxLineBytes`, once the line has
   * ended, and a copy of its first bytes (at most `HEAD_BYTES`, 1 KiB). The rest of its bytes
   * were dropped as they arrived.
   */
  onOversized(bytes: number, head: Uint8Array): void;
  /**
   * Given, a line that grows past 1 MiB is read as a message from its bytes (never decoded
   * whole) and delivered here, decoded, with a copy of its first bytes (up to 1 KiB), instead
   * of to `onLine`; a blank one is skipped.
   */
  onMessage?(read: DecodeResult, head: Uint8Array): void;
}

/** A push-based line splitter from {@linkcode lineSplitter}. */
export interface LineSplitter {
  /** Feeds the next chunk of bytes. */
  push(chunk: Uint8Array): void;
  /** Ends the input: a last line without `\n` is still delivered. */
  end(): void;
  /** Bytes held for the current unfinished line (at most `maxLineBytes`). */
  readonly bufferedBytes: number;
}

const LF = 0x0a;
const EMPTY = new Uint8Array(0);
const CR = 0x0d;

/** A copy of the first `HEAD_BYTES` of `first` followed by `then`. */
function headOf(first: Uint8Array, then: Uint8Array): Uint8Array {
  const head = new Uint8Array(Math.min(HEAD_BYTES, first.length + then.length));
  head.set(first.subarray(0, head.length));
  if (first.length < head.length) {
    head.set(then.subarray(0, head.length - first.length), first.length);
  }
  return head;
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0b && c !== 0x0c) return false;
  }
  return true;
}

/**
 * Splits UTF-8 bytes into lines. `\n` ends a line; a `\r` before it is dropped; blank
 * lines are skipped; invalid UTF-8 becomes U+FFFD (the JSON decoder judges the rest).
 * A line longer than `maxLineBytes` is never held in memory: its bytes are dropped as they
 * arrive and `onOversized` reports it when it ends.
 *
 * @param options The limit and the callbacks.
 * @returns The splitter.
 *
 * @example
 * ```ts
 * import { lineSplitter } from "./_lines.ts";
 *
 * const lines: string[] = [];
 * const splitter = lineSplitter({ maxLineBytes: 8, onLine: (l) => lines.push(l), onOversized: () => {} });
 * splitter.push(new TextEncoder().encode("a\r\n\nb"));
 * splitter.push(new TextEncoder().encode("c\n"));
 * if (lines.join() !== "a,bc") throw new Error(lines.join());
 * ```
 */
export function lineSplitter(options: LineSplitterOptions): LineSplitter {
  const { maxLineBytes, onLine, onOversized, onMessage } = options;
  const decoder = new TextDecoder();
  // The unfinished line's bytes, copied (a subarray would keep the runtime's read buffer
  // alive, and the reader may reuse a chunk's buffer for the next read).
  const carry = byteCarry(maxLineBytes + 1);
  let skipping = false; // the current line went over the limit
  let skipped = 0; // its length so far
  let head: Uint8Array = EMPTY; // its first bytes
  let long: PiecedReader | undefined; // reads the current line, once it grew long

  function emit(bytes: Uint8Array, held: boolean): void {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CR) end--;
    const line = end === 0
      ? ""
      : decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end));
    // A long line's bytes go before the line is parsed.
    if (held) carry.clear();
    if (!isBlank(line)) onLine(line);
  }

  function finishLine(tail: Uint8Array): void {
    if (long !== undefined) {
      const reader = long;
      long = undefined;
      const total = reader.length + tail.length;
      const last = tail.length > 0 ? tail[tail.length - 1] : reader.lastByte;
      if ((last === CR ? total - 1 : total) > maxLineBytes) {
        onOversized(total, headOf(reader.head, tail));
        return;
      }
      reader.push(tail);
      const read = reader.end();
      if (read !== undefined) onMessage!(read, reader.head);
      return;
    }
    if (skipping) {
      const total = skipped + tail.length;
      if (head.length < HEAD_BYTES) head = headOf(head, tail);
      skipping = false;
      skipped = 0;
      const first = head;
      head = EMPTY;
      onOversized(total, first);
      return;
    }
    const held = carry.length > 0;
    let line = tail;
    if (held) {
      carry.append(tail);
      line = carry.view();
    }
    // A trailing \r does not count toward the limit.
    const length = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (length > maxLineBytes) onOversized(line.length, headOf(line, EMPTY));
    else emit(line, held);
    if (held) carry.clear();
  }

  /** Starts skipping a line: what the carry holds (`bytes`) and then `next` began it. */
  function skip(bytes: number, next: Uint8Array): void {
    skipping = true;
    skipped = bytes;
    head = headOf(long?.head ?? carry.view(), next);
    long = undefined;
    carry.clear();
  }

  /** The line's length so far. */
  function held(): number {
    return long === undefined ? carry.length : long.length;
  }

  /** A long line goes on in the pieced reader, once it has loaded. */
  function grown(): void {
    if (carry.length < LONG_MESSAGE) {
      if (carry.length >= GROWING_MESSAGE) void loadLong();
      return;
    }
    const reader = longReader();
    if (reader === undefined) return;
    reader.push(carry.view());
    carry.clear();
    long = reader;
  }

  function hold(piece: Uint8Array): void {
    if (skipping) {
      skipped += piece.length;
      if (head.length < HEAD_BYTES) head = headOf(head, piece);
      return;
    }
    // One byte of slack for a \r that may precede the \n in the next chunk.
    if (held() + piece.length > maxLineBytes + 1) skip(held() + piece.length, piece);
    else if (long !== undefined) long.push(piece);
    else {
      carry.append(piece);
      if (onMessage !== undefined && carry.length >= GROWING_MESSAGE) grown();
    }
  }

  /**
   * The common case: nothing held, and the chunk's complete lines together within the limit
   * (so each one is). They are decoded in one go and split as text: one decoder call per
   * chunk, not per line. Returns where the unfinished rest starts.
   */
  function wholeLines(chunk: Uint8Array): number {
    const last = chunk.lastIndexOf(LF);
    if (last < 0 || last > maxLineBytes) return 0;
    const text = decoder.decode(last === chunk.length - 1 ? chunk : chunk.subarray(0, last + 1));
    let start = 0;
    while (start < text.length) {
      const newline = text.indexOf("\n", start);
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === 0x0d) end--;
      // The decoder takes a byte-order mark off the start of what it decodes, as each
      // line's own decoding did.
      if (text.charCodeAt(start) === 0xfeff && start > 0) start++;
      const line = text.slice(start, end);
      if (!isBlank(line)) onLine(line);
      start = newline + 1;
    }
    return last + 1;
  }

  return {
    push(chunk: Uint8Array): void {
      let start = carry.length === 0 && !skipping && long === undefined ? wholeLines(chunk) : 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(LF, start);
        if (newline === -1) {
          hold(chunk.subarray(start));
          return;
        }
        const tail = chunk.subarray(start, newline);
        if (!skipping && held() + tail.length > maxLineBytes + 1) skip(held(), tail);
        finishLine(tail);
        start = newline + 1;
      }
    },
    end(): void {
      if (skipping || held() > 0) finishLine(new Uint8Array(0));
    },
    get bufferedBytes(): number {
      return carry.length;
    },
  };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/**
 * The id of the response that `head` begins, when its first members show it.
 *
 * @param head The first characters of the message's text.
 * @returns The id, or `undefined` when the head does not show a response's id for certain.
 *
 * @example
 * ```ts
 * import { leadingResponseId } from "./_lines.ts";
 *
 * if (leadingResponseId('{"jsonrpc":"2.0","id":7,"result":{"content":[') !== 7) {
 *   throw new Error("missed the id");
 * }
 * if (leadingResponseId('{"result":{},"id":7}') !== undefined) throw new Error("guessed");
 * ```
 */
export function leadingResponseId(head: string): string | number | undefined {
  let at = 0;
  const space = () => {
    while (at < head.length && " \t\n\r".includes(head[at])) at++;
  };
  /** A JSON string at `at` (escapes decoded), or `undefined` when it does not end here. */
  const string = (): string | undefined => {
    if (head[at] !== '"') return undefined;
    let end = at + 1;
    while (end < head.length && head[end] !== '"') end += head[end] === "\\" ? 2 : 1;
    if (end >= head.length) return undefined;
    try {
      const value = JSON.parse(head.slice(at, end + 1)) as string;
      at = end + 1;
      return value;
    } catch {
      return undefined;
    }
  };
  /** A number or literal at `at`, as its text, or `undefined`. */
  const token = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const match = pattern.exec(head);
    if (match === null) return undefined;
    at += match[0].length;
    return match[0];
  };

  space();
  if (head[at++] !== "{") return undefined;
  let id: string | number | undefined;
  for (;;) {
    space();
    const key = string();
    if (key === undefined) return undefined;
    space();
    if (head[at++] !== ":") return undefined;
    space();
    if (key === "result" || key === "error") return id;
    if (key === "method") return undefined;
    if (key === "id") {
      if (id !== undefined) return undefined; // a repeated key: unsure which counts
      const number = head[at] === '"' ? undefined : token(NUMBER);
      const value = number === undefined ? string() : Number(number);
      if (value === undefined) return undefined;
      id = value;
    } else if (string() === undefined && token(NUMBER) === undefined) {
      // Not a string or number: a literal is skipped, a nested value ends the scan.
      if (token(LITERAL) === undefined) return undefined;
    }
    space();
    // The next member must have begun within the head (a value cut at its end is unsure).
    if (head[at++] !== ",") return undefined;
  }
}

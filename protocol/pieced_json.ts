/**
 * Private: one long JSON-RPC message read from its bytes, chunk by chunk, without ever holding
 * its text whole. The structure around the strings (and every short string) is kept as bytes
 * and parsed with `JSON.parse` at the end; each long string literal is decoded piece by piece
 * as its bytes arrive (a streaming UTF-8 decoder, its escapes undone by hand) into a string
 * built of pieces, and stands in the structure as a placeholder until the parsed value gets it
 * back. So a message whose size is its long strings costs its parsed value and one chunk, where
 * decoding it whole costs its text and its value (and its bytes, until the text is made).
 *
 * The value is exactly `JSON.parse(new TextDecoder().decode(bytes))`:
 * - a placeholder is `"\u0000"` followed by a number, and every string literal whose text
 *   starts with `\u0000` (the only way a JSON string can start with U+0000) goes the long way
 *   too, so a string of the structure that starts with U+0000 is always a placeholder;
 * - strings are cut from the structure at their quotes, which are ASCII: the UTF-8 decoder
 *   ends a broken sequence at an ASCII byte the same way whether or not it decodes on from
 *   there, so the parts decode as the whole would (and the byte-order mark the whole would
 *   drop can only lead the structure);
 * - a long string followed by `:` is a key: it goes back into the structure as a literal (keys
 *   are short in practice); the whitespace after a long string is dropped, which changes
 *   nothing, since its closing quote already separates it from the next token.
 *
 * @module
 */

import type { DecodeResult } from "./jsonrpc.ts";
import { decodeMessage } from "./decode.ts";
import { Bytes, free } from "./_bytes_buffer.ts";
import { fill } from "./_placeholders.ts";

/** Reads one message from its chunks: from {@linkcode piecedReader}. */
export interface PiecedReader {
  /** Takes the next bytes; they are copied or decoded at once (the caller may reuse them). */
  push(chunk: Uint8Array): void;
  /**
   * The message, or why it was refused (as `decodeMessage` of its text would say);
   * `undefined` when it was only blanks (spaces, tabs, `\r`, `\v`, `\f`).
   */
  end(): DecodeResult | undefined;
  /** A copy of the first bytes (up to 1 KiB), to name a refused message by. */
  readonly head: Uint8Array;
  /** How many bytes it was given. */
  readonly length: number;
  /** The last byte it was given (`-1` before any). */
  readonly lastByte: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const HEAD = 1024;
/** String literals of this many bytes and more are decoded piece by piece. */
export const LONG_STRING = 16 * 1024;
/**
 * A long string's bytes are decoded this many at a time. A piece this large is made where
 * the runtime keeps large objects (V8 copies smaller ones out of its young generation, which
 * grows for them: decoding 64 KiB at a time costs Deno 1.6× the string, 1 MiB 1.02×).
 */
const PIECE = 1024 * 1024;
/** A character JSON forbids raw in a string. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f]/;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const NOT_JSON: DecodeResult = { ok: false, reason: "not_json", detail: "the text is not JSON" };
const ESCAPED: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};
const STREAM: TextDecodeOptions = { stream: true };

/** Thrown inside the reader for a string that is not JSON. */
class NotJson extends Error {}

/** Whether the bytes `from`..`end` end with an odd run of backslashes. */
function oddRun(bytes: Uint8Array, from: number, end: number): boolean {
  let at = end;
  while (at > from && bytes[at - 1] === BACKSLASH) at--;
  return ((end - at) & 1) === 1;
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0b && c !== 0x0c) return false;
  }
  return true;
}

const encoder = new TextEncoder();

/**
 * A reader of one message's bytes, pushed in chunks cut anywhere (inside a character, an
 * escape or a number).
 *
 * @param longString From how many bytes on a string literal is decoded piece by piece.
 * @param piece How many of its bytes are decoded at a time.
 * @returns The reader.
 *
 * @example
 * ```ts
 * import { piecedReader } from "./pieced_json.ts";
 *
 * const bytes = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{"text":"h\\u00e9"}}');
 * const reader = piecedReader();
 * reader.push(bytes.subarray(0, 40));
 * reader.push(bytes.subarray(40));
 * const read = reader.end();
 * if (!read?.ok || JSON.stringify(read.message) !== JSON.stringify(JSON.parse(new TextDecoder().decode(bytes)))) {
 *   throw new Error("read wrong");
 * }
 * ```
 */
export function piecedReader(
  longString: number = LONG_STRING,
  piece: number = PIECE,
): PiecedReader {
  return new Reader(longString, piece);
}

class Reader implements PiecedReader {
  head: Uint8Array = new Uint8Array(0);
  length = 0;
  lastByte = -1;
  #structure = new Bytes();
  #failed = false;
  /** Inside a string literal. */
  #inString = false;
  /** The string's bytes so far went to the structure, from its quote at `#start`. */
  #start = 0;
  /** The string is being decoded piece by piece (into `#bits`, then `#string`). */
  #long = false;
  /** A backslash ended the last chunk, inside a string. */
  #escaped = false;
  /** A long string ended; the next token (after blanks) tells whether it was a key. */
  #closed = false;
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** An escape the decoded text cut short, waiting for its next characters. */
  #tail = "";
  /** A long string's bytes not decoded yet (made on first need, reused). */
  #raw: Uint8Array | undefined;
  #rawLength = 0;
  #string = "";
  /** The long strings, by placeholder number. */
  #strings: string[] = [];
  readonly #longString: number;
  readonly #piece: number;

  constructor(longString: number, piece: number) {
    this.#longString = longString;
    this.#piece = piece;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.length < HEAD) {
      const head = new Uint8Array(Math.min(HEAD, this.length + chunk.length));
      head.set(this.head);
      head.set(chunk.subarray(0, head.length - this.length), this.length);
      this.head = head;
    }
    this.length += chunk.length;
    this.lastByte = chunk[chunk.length - 1];
    if (this.#failed) return;
    try {
      this.#scan(chunk);
    } catch (error) {
      if (!(error instanceof NotJson)) throw error;
      this.#failed = true;
      this.#strings = [];
      this.#string = "";
    }
  }

  #scan(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#closed) {
        while (at < chunk.length && isWhitespace(chunk[at])) at++;
        if (at === chunk.length) return;
        this.#place(chunk[at] === COLON);
        continue;
      }
      if (!this.#inString) {
        const quote = chunk.indexOf(QUOTE, at);
        if (quote === -1) {
          this.#structure.append(at === 0 ? chunk : chunk.subarray(at));
          return;
        }
        this.#structure.append(chunk.subarray(at, quote + 1));
        this.#inString = true;
        this.#long = false;
        this.#start = this.#structure.length - 1;
        at = quote + 1;
        continue;
      }
      const close = this.#closing(chunk, at);
      const end = close === -1 ? chunk.length : close;
      if (!this.#long) {
        const held = this.#structure.length - this.#start - 1;
        if (held + end - at < this.#longString) {
          this.#structure.append(chunk.subarray(at, end));
          if (close === -1) return;
          if (!this.#startsWithNul()) {
            this.#structure.append(chunk.subarray(close, close + 1));
            this.#inString = false;
            at = close + 1;
            continue;
          }
          // A short string starting with U+0000 is read as a long one (see the module).
          this.#goLong();
          this.#bit(new Uint8Array(0), true);
          at = close + 1;
          continue;
        }
        this.#goLong();
      }
      this.#bit(chunk.subarray(at, end), close !== -1);
      if (close === -1) return;
      at = close + 1;
    }
  }

  /** The closing quote of the current string at or after `at`, or `-1` (tracking escapes). */
  #closing(chunk: Uint8Array, at: number): number {
    if (this.#escaped) {
      this.#escaped = false;
      at++;
    }
    for (;;) {
      const quote = chunk.indexOf(QUOTE, at);
      if (quote === -1) {
        // `at` can be past the end after an escape that ended the last chunk.
        this.#escaped = at < chunk.length && oddRun(chunk, at, chunk.length);
        return -1;
      }
      if (!oddRun(chunk, at, quote)) return quote;
      at = quote + 1;
    }
  }

  #startsWithNul(): boolean {
    const s = this.#structure.buffer;
    const from = this.#start + 1;
    if (this.#structure.length - from < 6) return false;
    return s[from] === BACKSLASH && s[from + 1] === 0x75 && s[from + 2] === 0x30 &&
      s[from + 3] === 0x30 && s[from + 4] === 0x30 && s[from + 5] === 0x30;
  }

  /** Moves the current string's bytes out of the structure: it is read piece by piece now. */
  #goLong(): void {
    const held = this.#structure.buffer.subarray(this.#start + 1, this.#structure.length);
    this.#structure.length = this.#start;
    this.#long = true;
    this.#string = "";
    this.#bit(held, false);
  }

  /** Takes the next bytes of a long string; `last` when its closing quote follows them. */
  #bit(bytes: Uint8Array, last: boolean): void {
    const piece = this.#piece;
    const raw = this.#raw ??= new Uint8Array(piece);
    for (let at = 0; at < bytes.length;) {
      const take = Math.min(bytes.length - at, piece - this.#rawLength);
      raw.set(bytes.subarray(at, at + take), this.#rawLength);
      this.#rawLength += take;
      at += take;
      if (this.#rawLength === piece && (at < bytes.length || !last)) this.#decode(false);
    }
    if (!last) return;
    this.#decode(true);
    this.#inString = false;
    this.#long = false;
    this.#closed = true;
  }

  /** Decodes the bytes taken so far onto the long string (`last`: all of them). */
  #decode(last: boolean): void {
    const decoded = this.#decoder.decode(
      this.#raw!.subarray(0, this.#rawLength),
      last ? undefined : STREAM,
    );
    this.#rawLength = 0;
    if (CONTROL.test(decoded)) throw new NotJson();
    let text = this.#tail === "" ? decoded : this.#tail + decoded;
    this.#tail = "";
    if (text.includes("\\")) text = this.#unescape(text);
    if (last && this.#tail !== "") throw new NotJson();
    if (text !== "") this.#string = this.#string === "" ? text : this.#string + text;
  }

  /** Undoes the escapes of `text`; an escape it cuts short waits in `#tail`. */
  #unescape(text: string): string {
    const parts: string[] = [];
    let from = 0;
    for (let slash = text.indexOf("\\"); slash !== -1; slash = text.indexOf("\\", from)) {
      if (slash > from) parts.push(text.slice(from, slash));
      const kind = text[slash + 1];
      if (kind === undefined || (kind === "u" && slash + 6 > text.length)) {
        this.#tail = text.slice(slash);
        return parts.join("");
      }
      if (kind === "u") {
        const hex = text.slice(slash + 2, slash + 6);
        if (!HEX4.test(hex)) throw new NotJson();
        parts.push(String.fromCharCode(parseInt(hex, 16)));
        from = slash + 6;
      } else {
        const char = ESCAPED[kind];
        if (char === undefined) throw new NotJson();
        parts.push(char);
        from = slash + 2;
      }
    }
    if (from < text.length) parts.push(text.slice(from));
    return parts.join("");
  }

  /** Puts the long string that ended into the structure: as a literal key, or a placeholder. */
  #place(key: boolean): void {
    this.#closed = false;
    const string = this.#string;
    this.#string = "";
    this.#decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    if (key) {
      this.#structure.append(encoder.encode(JSON.stringify(string)));
      return;
    }
    this.#structure.append(encoder.encode(`"\\u0000${this.#strings.length}"`));
    this.#strings.push(string);
  }

  end(): DecodeResult | undefined {
    if (this.#closed) this.#place(false);
    const structure = this.#structure;
    this.#structure = new Bytes();
    if (this.#raw !== undefined) free(this.#raw.buffer as ArrayBuffer);
    this.#raw = undefined;
    if (this.#failed || this.#inString) return NOT_JSON;
    const text = new TextDecoder().decode(structure.buffer.subarray(0, structure.length));
    free(structure.buffer.buffer as ArrayBuffer);
    const strings = this.#strings;
    this.#strings = [];
    if (strings.length === 0 && isBlank(text)) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return NOT_JSON;
    }
    if (strings.length > 0) value = fill(value, strings);
    // A string would be taken for JSON text: like any value that is not an object, it is
    // refused as such (`null` stands in for it).
    return decodeMessage(typeof value === "string" ? null : value);
  }
}

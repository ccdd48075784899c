/**
 * Private: the rest of one long server-sent event (its data past 1 MiB) read from its bytes,
 * field line by field line, with its data going through the pieced reader
 * (`protocol/pieced_json.ts`): the event's text is never held whole, only its parsed value.
 * The fields follow the event stream format as the parser of short events reads them: `data:`
 * with one optional space stripped, data lines joined with `\n`, `id:` (refused with a NUL),
 * `event:`, `retry:` (digits only), comments and unknown fields ignored, and CR, LF or CRLF
 * ending a line (a CRLF may be split between chunks). Loaded with the first long event.
 *
 * @module
 */

import { piecedReader } from "../protocol/pieced_json.ts";
import { type ByteCarry, byteCarry } from "./_bytes.ts";
import { answerOf, type LongAnswer } from "./_long_body.ts";

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
/** `data:` */
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a];
/** Bytes a field line other than data may hold beyond the event limit. */
const LINE_SLACK = 64;
const NEWLINE = new Uint8Array([LF]);
const utf8 = new TextDecoder();

/** What the event being read reports as it goes. */
export interface LongEventClient {
  /** A valid `retry:` field, in milliseconds (it applies at once, as for short events). */
  onRetry(ms: number): void;
}

/** The first index of a CR or LF in `bytes` from `at`, or `-1`. */
function lineEnd(bytes: Uint8Array, at: number): number {
  const lf = bytes.indexOf(LF, at);
  const cr = bytes.indexOf(CR, at);
  return lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
}

/**
 * One event read from its bytes: fed with {@linkcode LongEvent.push} from the start of a line
 * until the blank line that ends it.
 */
export class LongEvent {
  /** The event's `id:`, when it has one. */
  id: string | undefined;
  /** The event type, when it names one. */
  event: string | undefined;
  /** Its data (or a field line) went over the limit: it is refused. */
  overflow = false;
  readonly #reader = piecedReader();
  readonly #limit: number;
  readonly #client: LongEventClient;
  /** Data lines read (the first one joins without `\n` after a prefix that has it). */
  #lines = 0;
  /** In the value of a `data:` line, which goes to the reader as it arrives. */
  #inData = false;
  /** The data value has not begun: one space leading it is still to be stripped. */
  #space = false;
  /** The last line ended with a CR at the end of a chunk: an LF next ends nothing. */
  #skipLF = false;
  /** A line not known to be data yet, or a field line other than data. */
  readonly #line: ByteCarry;

  /**
   * @param limit The most bytes of data accepted.
   * @param data The event's data before the line being read, ending with `\n` (data lines
   *   came before) or `""` (none did).
   * @param id The event's id so far.
   * @param event The event type so far.
   * @param client Told of `retry:` fields.
   */
  constructor(
    limit: number,
    data: string,
    id: string | undefined,
    event: string | undefined,
    client: LongEventClient,
  ) {
    this.#limit = limit;
    this.#client = client;
    this.id = id;
    this.event = event;
    this.#line = byteCarry(limit + LINE_SLACK);
    if (data !== "") this.#data(new TextEncoder().encode(data));
  }

  /**
   * Takes the next bytes of the event (copied at once).
   *
   * @returns The index in `bytes` just past the blank line that ended the event, or `-1`
   *   when the event goes on (or overflowed).
   */
  push(bytes: Uint8Array): number {
    let at = 0;
    while (at < bytes.length && !this.overflow) {
      if (this.#skipLF) {
        this.#skipLF = false;
        if (bytes[at] === LF) {
          at++;
          continue;
        }
      }
      const end = lineEnd(bytes, at);
      const stop = end === -1 ? bytes.length : end;
      if (this.#inData) {
        if (this.#space && at < stop) {
          this.#space = false;
          if (bytes[at] === SPACE) at++;
        }
        this.#data(bytes.subarray(at, stop));
      } else this.#take(bytes.subarray(at, stop));
      if (end === -1 || this.overflow) return -1;
      at = end + 1;
      if (bytes[end] === CR) {
        if (at === bytes.length) this.#skipLF = true;
        else if (bytes[at] === LF) at++;
      }
      if (this.#endLine()) return at;
    }
    return -1;
  }

  /** The event's data read as a message (call once, after the blank line). */
  answer(): LongAnswer {
    return answerOf(this.#reader);
  }

  #data(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.#reader.length + bytes.length > this.#limit) {
      this.overflow = true;
      return;
    }
    this.#reader.push(bytes);
  }

  /** Starts a data line's value: joined to the lines before it with `\n`. */
  #dataLine(): void {
    if (this.#lines++ > 0) this.#data(NEWLINE);
  }

  /** Bytes of a line not known to be data: held until it is known (by `data:`) or ends. */
  #take(bytes: Uint8Array): void {
    const line = this.#line;
    if (line.length + bytes.length > this.#limit + LINE_SLACK) {
      this.overflow = true;
      return;
    }
    line.append(bytes);
    if (line.length < DATA.length) return;
    const held = line.view();
    for (let i = 0; i < DATA.length; i++) if (held[i] !== DATA[i]) return;
    this.#inData = true;
    this.#dataLine();
    const value = held.subarray(DATA.length);
    if (value.length === 0) this.#space = true;
    else this.#data(value[0] === SPACE ? value.subarray(1) : value);
    line.clear();
  }

  /** A line ended: whether it was blank (the event is complete). */
  #endLine(): boolean {
    if (this.#inData) {
      this.#inData = false;
      this.#space = false;
      return false;
    }
    const line = this.#line;
    if (line.length === 0) return true;
    const text = utf8.decode(line.view());
    line.clear();
    this.#field(text);
    return false;
  }

  /** A field line other than `data:` (a comment, `data` alone, `id`, `event`, `retry`). */
  #field(text: string): void {
    if (text.charCodeAt(0) === 0x3a) return;
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1
      ? ""
      : text.slice(colon + (text.charCodeAt(colon + 1) === SPACE ? 2 : 1));
    switch (field) {
      case "data":
        this.#dataLine();
        break;
      case "event":
        this.event = value || undefined;
        break;
      case "id":
        if (!value.includes("\0")) this.id = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.#client.onRetry(parseInt(value, 10));
        break;
    }
  }
}

/**
 * A long event from the start of its long data line.
 *
 * @example
 * ```ts
 * import { makeLongEvent } from "./_sse_long.ts";
 *
 * const event = makeLongEvent(1024, "", undefined, undefined, { onRetry() {} });
 * const bytes = new TextEncoder().encode('data: {"jsonrpc":"2.0",\ndata: "method":"x"}\n\n');
 * if (event.push(bytes) !== bytes.length) throw new Error("the event did not end");
 * const answer = event.answer();
 * if (!answer.decoded.ok) throw new Error("not read");
 * ```
 */
export function makeLongEvent(
  limit: number,
  data: string,
  id: string | undefined,
  event: string | undefined,
  client: LongEventClient,
): LongEvent {
  return new LongEvent(limit, data, id, event, client);
}

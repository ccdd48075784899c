/**
 * Private: the event stream grammar (WHATWG HTML, "Parsing an event stream"): text fed in
 * pieces of any size becomes lines (ended by CRLF, LF or CR, a CRLF split between two pieces
 * included), lines become fields, and a blank line dispatches the event the fields made.
 * Bytes, limits on what is held, and long events are the reader's (`_sse.ts`).
 *
 * It is ours rather than a package's: the grammar is a few dozen lines, the package cost a
 * Bun client whose server answers with event streams about 0.7 MB of resident memory, and the
 * first package a Bun program imports by name also sets up the package resolver (2 to 3 MB).
 * The tests hold it to `eventsource-parser`, the package it replaced.
 *
 * @module
 */

/** One dispatched event, as its block of lines spelled it. */
export interface SseMessage {
  /** The block's `id:` (absent when the block set none). */
  id?: string;
  /** The block's `event:` (absent when the block set none, or an empty one). */
  event?: string;
  /** The `data:` lines, joined with `\n`. */
  data: string;
}

/** What a parser reports to. */
export interface ParserClient {
  /** A block set the last event id (at its blank line, before its event, if any). */
  onId(id: string): void;
  /** A valid `retry:` (digits only), in milliseconds. */
  onRetry(ms: number): void;
  onEvent(message: SseMessage): void;
  /** Set when an event's data and the line being read went over the parser's limit. */
  overflow: boolean;
}

const LF = 0x0a;
const SPACE = 0x20;
const COLON = 0x3a;
/** The fields that mean something; a line naming any other is skipped, never held. */
const FIELDS = ["data", "event", "id", "retry"];

/** Whether an unfinished line may still name a field that means something. */
function mayMatter(line: string): boolean {
  const colon = line.indexOf(":");
  const name = colon === -1 ? line : line.slice(0, colon);
  return FIELDS.some((field) => colon === -1 ? field.startsWith(name) : field === name);
}

/**
 * An incremental event stream parser. {@linkcode SseParser.feed} takes text in pieces of any
 * size; the events go to the client as their blank lines arrive. An event whose data and
 * unfinished line hold more than `limit` characters sets the client's `overflow`, and the
 * parser takes nothing more. One parser reads one stream: a byte-order mark is dropped at its
 * start only.
 *
 * @example
 * ```ts ignore
 * const events: SseMessage[] = [];
 * const client = { onId() {}, onRetry() {}, onEvent: (m) => events.push(m), overflow: false };
 * const parser = new SseParser(client, 1024);
 * parser.feed("event: message\ndata: {\"a\":");
 * parser.feed("1}\r");
 * parser.feed("\n\n");
 * // events: [{ event: "message", data: '{"a":1}' }]
 * ```
 */
export class SseParser {
  /** The text of a line no piece has ended yet. */
  private line = "";
  /** Skipping the rest of a line that names no field of ours (a comment, say). */
  private skipping = false;
  /** The last piece ended with a CR: an LF that starts the next one ends nothing. */
  private afterCr = false;
  /** Nothing was fed yet (a byte-order mark may lead). */
  private fresh = true;
  private data = "";
  private dataLines = 0;
  private id: string | undefined;
  private event: string | undefined;

  /**
   * @param client Where the events, ids and retries go.
   * @param limit The most characters an event's data and the line being read may hold.
   */
  constructor(private readonly client: ParserClient, private readonly limit: number) {}

  /** Parses a piece of the stream. */
  feed(text: string): void {
    if (this.client.overflow || text === "") return;
    if (this.fresh) {
      this.fresh = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let at = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) at = 1;
    }
    const length = text.length;
    // The next CR and LF from `at`, each searched again only once passed (a stream of LF
    // lines is not searched for a CR at every line).
    let cr = text.indexOf("\r", at);
    let lf = text.indexOf("\n", at);
    while (at < length) {
      if (cr !== -1 && cr < at) cr = text.indexOf("\r", at);
      if (lf !== -1 && lf < at) lf = text.indexOf("\n", at);
      const end = cr === -1 ? lf : lf === -1 || cr < lf ? cr : lf;
      if (end === -1) {
        this.hold(text, at);
        return;
      }
      if (this.skipping) this.skipping = false;
      else if (this.line !== "") {
        const line = this.line + text.slice(at, end);
        this.line = "";
        this.take(line, 0, line.length);
      } else this.take(text, at, end);
      if (this.client.overflow) return;
      at = end + 1;
      if (end === cr) {
        if (at === length) this.afterCr = true;
        else if (text.charCodeAt(at) === LF) at++;
      }
    }
  }

  /** Keeps the unfinished line at the end of `text` (from `at`) while it may matter. */
  private hold(text: string, at: number): void {
    if (this.skipping) return;
    // Six characters decide it (`retry:` is the longest name and its colon).
    const decided = this.line.length >= 6;
    this.line += text.slice(at);
    if (!decided && !mayMatter(this.line)) {
      this.line = "";
      this.skipping = true;
    } else this.check();
  }

  /** Over the limit: the client is told, and the parser stops. */
  private check(): void {
    if (this.data.length + this.line.length > this.limit) {
      this.client.overflow = true;
      this.line = this.data = "";
    }
  }

  /** One whole line, `text[start, end)`. */
  private take(text: string, start: number, end: number): void {
    if (start === end) return this.dispatch();
    // The field's name ends at the first colon, and no name of ours is longer than five: the
    // colon is looked for in the first six characters only (never past the line).
    const stop = Math.min(end, start + 6);
    let colon = start;
    while (colon < stop && text.charCodeAt(colon) !== COLON) colon++;
    if (colon === start || (colon === stop && stop !== end)) return; // a comment, or not ours
    let from = colon + 1;
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const value = from >= end ? "" : text.slice(from, end);
    switch (colon - start) {
      case 4:
        if (!text.startsWith("data", start)) return;
        this.data = this.dataLines === 0 ? value : `${this.data}\n${value}`;
        this.dataLines++;
        return this.check();
      case 5:
        if (text.startsWith("event", start)) this.event = value === "" ? undefined : value;
        else if (text.startsWith("retry", start) && /^\d+$/.test(value)) {
          this.client.onRetry(Number.parseInt(value, 10));
        }
        return;
      case 2:
        if (text.startsWith("id", start) && !value.includes("\0")) this.id = value;
        return;
    }
  }

  /** The blank line: the block's id, then its event when it had data. */
  private dispatch(): void {
    const { id, event, data, dataLines } = this;
    this.id = this.event = undefined;
    this.data = "";
    this.dataLines = 0;
    if (id !== undefined) this.client.onId(id);
    if (dataLines === 0) return;
    const message: SseMessage = { data };
    if (id !== undefined) message.id = id;
    if (event !== undefined) message.event = event;
    this.client.onEvent(message);
  }
}

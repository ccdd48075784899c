/**
 * The kept sessions' wire: newline-delimited JSON over a Unix socket, each line at most a
 * set size. Pure: a line splitter that refuses a line over its limit (without holding more
 * than the limit), and the one way to write a message.
 *
 * @module
 */

/** The most bytes of one line the session process reads (a request). */
export const REQUEST_LINE_MAX = 1024 * 1024;
/** The most bytes of one line a command reads from its session (a result). */
export const REPLY_LINE_MAX = 64 * 1024 * 1024;

/** What a line splitter hands on: a message, or a line refused. */
export type LineEvent =
  | { message: unknown }
  | { refused: "too_long" | "not_json" | "not_object"; detail: string };

/**
 * Splits bytes into lines of JSON objects, each at most `max` bytes (without its newline).
 * A longer line is refused once and skipped up to its end; a line that is not a JSON
 * object is refused.
 *
 * @param max The most bytes of a line.
 * @param onEvent Called with each message or refusal, in order.
 * @returns Where to feed the bytes.
 *
 * @example
 * ```ts
 * import { lineSplitter } from "./_keep_wire.ts";
 *
 * const seen: unknown[] = [];
 * const feed = lineSplitter(16, (event) => seen.push(event));
 * feed(new TextEncoder().encode('{"a":1}\n[1]\n{"b":"0123456789abcdef"}\n{"c":2}\n'));
 * if (seen.length !== 4 || (seen[3] as { message: { c: number } }).message.c !== 2) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function lineSplitter(
  max: number,
  onEvent: (event: LineEvent) => void,
): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  const finish = () => {
    const line = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      line.set(part, at);
      at += part.length;
    }
    parts = [];
    size = 0;
    const text = decoder.decode(line).trim();
    if (text === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return onEvent({ refused: "not_json", detail: "a line that is not JSON" });
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      return onEvent({ refused: "not_object", detail: "a line that is not a JSON object" });
    }
    onEvent({ message });
  };
  return (chunk) => {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      if (!skipping) {
        if (size + piece.length > max) {
          skipping = true;
          parts = [];
          size = 0;
          onEvent({ refused: "too_long", detail: `a line over ${max} bytes` });
        } else if (piece.length > 0) {
          parts.push(piece.slice());
          size += piece.length;
        }
      }
      if (end < 0) return;
      if (skipping) skipping = false;
      else finish();
      start = end + 1;
    }
  };
}

/** One message as a line. */
export function line(message: unknown): string {
  return JSON.stringify(message) + "\n";
}

/**
 * A small, pure parser for a complete `text/event-stream` body (the WHATWG "server-sent
 * events" format), for reading one buffered response. Streaming bodies belong to the
 * transports; this only reads text that has fully arrived.
 *
 * @module
 */

/** One dispatched event of an event stream. */
export interface StreamEvent {
  /** The event type; `"message"` when the stream did not name one. */
  event: string;
  /** The event's data: its `data:` lines joined with `\n`. */
  data: string;
}

/**
 * Parses a complete event-stream body into its events, in order. Comments (`:` lines),
 * `id:`, `retry:` and unknown fields are skipped; events without data are not dispatched.
 * Unlike a live stream, a last event that is not followed by a blank line is still
 * dispatched, since a server may close the body right after its final `data:` line.
 * Never throws.
 *
 * @param text The whole body, already decoded from UTF-8.
 * @returns The events, in order.
 *
 * @example
 * ```ts
 * import { parseEventStream } from "./_event_stream.ts";
 *
 * const events = parseEventStream(': keep-alive\nevent: message\ndata: {"a":\ndata: 1}\n\n');
 * if (events.length !== 1 || events[0].data !== '{"a":\n1}') throw new Error("unexpected");
 * ```
 */
export function parseEventStream(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let type = "";
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) {
      events.push({ event: type === "" ? "message" : type, data: data.join("\n") });
    }
    type = "";
    data = [];
  };
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === "") {
      dispatch();
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") type = value;
  }
  dispatch();
  return events;
}

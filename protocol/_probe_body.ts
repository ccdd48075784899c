/**
 * Reads the body of an HTTP `server/discover` probe response: raw bytes, text, or an
 * already decoded value, as JSON or as an event stream. Pure and total.
 *
 * @module
 */

import { isObject } from "./json.ts";

/** What a probe response body turned out to hold. */
export type ProbeBody =
  | { type: "empty" }
  | { type: "not_json" }
  | { type: "not_jsonrpc" }
  | { type: "result"; result: unknown }
  | { type: "error"; code: number; message: unknown; data: unknown };

const EMPTY: ProbeBody = { type: "empty" };
const NOT_JSON: ProbeBody = { type: "not_json" };
const NOT_JSONRPC: ProbeBody = { type: "not_jsonrpc" };

/**
 * Reads a decoded JSON value as a JSON-RPC response. Lenient about the `jsonrpc` member and
 * the error `message` (so a recognizable modern error is never missed), strict about the
 * rest: an error needs an integer `code`, and a message with a `method` is not a response.
 *
 * @param value A decoded JSON value.
 * @returns The response it holds, or `not_jsonrpc`.
 *
 * @example
 * ```ts
 * import { readResponse } from "./_probe_body.ts";
 *
 * const body = readResponse({ jsonrpc: "2.0", id: 1, error: { code: -32601 } });
 * if (body.type !== "error" || body.code !== -32601) throw new Error("expected an error");
 * if (readResponse({ jsonrpc: "2.0", method: "ping" }).type !== "not_jsonrpc") throw new Error();
 * ```
 */
export function readResponse(value: unknown): ProbeBody {
  if (!isObject(value) || value.method !== undefined) return NOT_JSONRPC;
  if (value.error !== undefined) {
    const error = value.error;
    if (!isObject(error) || !Number.isInteger(error.code) || value.result !== undefined) {
      return NOT_JSONRPC;
    }
    return { type: "error", code: error.code as number, message: error.message, data: error.data };
  }
  if (value.result !== undefined) return { type: "result", result: value.result };
  return NOT_JSONRPC;
}

/**
 * The media type of a `Content-Type` value, lower case, without parameters.
 *
 * @param contentType A `Content-Type` header value, or nothing.
 * @returns E.g. `"application/json"`, or `""`.
 *
 * @example
 * ```ts
 * import { mediaType } from "./_probe_body.ts";
 *
 * if (mediaType("Application/JSON; charset=utf-8") !== "application/json") throw new Error();
 * ```
 */
export function mediaType(contentType: unknown): string {
  if (typeof contentType !== "string") return "";
  return contentType.split(";")[0].trim().toLowerCase();
}

function fromEventStream(text: string): ProbeBody {
  const events = parseEventStream(text).filter((event) => event.event === "message");
  if (events.length === 0) return EMPTY;
  for (const event of events) {
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      continue;
    }
    const body = readResponse(value);
    if (body.type !== "not_jsonrpc") return body;
  }
  return NOT_JSONRPC;
}

/**
 * Decodes a probe response body. Bytes are read as UTF-8. Text is read as an event stream
 * for `text/event-stream` (the first JSON-RPC response among its `message` events) and as
 * JSON otherwise (and, without a `Content-Type`, as an event stream when it is not JSON).
 * Objects are taken as already decoded. Never throws.
 *
 * @param contentType The response's `Content-Type`, if any.
 * @param body Bytes, text, a decoded value, or nothing.
 * @returns What the body holds.
 *
 * @example
 * ```ts
 * import { decodeProbeBody } from "./_probe_body.ts";
 *
 * const sse = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
 * if (decodeProbeBody("text/event-stream", sse).type !== "result") throw new Error();
 * if (decodeProbeBody("application/json", "<html>").type !== "not_json") throw new Error();
 * ```
 */
export function decodeProbeBody(contentType: unknown, body: unknown): ProbeBody {
  if (body === undefined || body === null) return EMPTY;
  let text: string;
  if (body instanceof Uint8Array) text = new TextDecoder().decode(body);
  else if (body instanceof ArrayBuffer) text = new TextDecoder().decode(new Uint8Array(body));
  else if (typeof body === "string") text = body;
  else if (typeof body === "object") return readResponse(body);
  else return NOT_JSONRPC;
  if (text.trim() === "") return EMPTY;
  if (mediaType(contentType) === "text/event-stream") return fromEventStream(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (mediaType(contentType) === "") {
      const sniffed = fromEventStream(text);
      if (sniffed.type === "result" || sniffed.type === "error") return sniffed;
    }
    return NOT_JSON;
  }
  return readResponse(value);
}

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
 * import { parseEventStream } from "./_probe_body.ts";
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

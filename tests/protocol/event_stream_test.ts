import { assertEquals, test } from "../_harness.ts";
import {
  decodeProbeBody,
  mediaType,
  parseEventStream,
  readResponse,
} from "../../protocol/_probe_body.ts";

test("parseEventStream() follows the event-stream line rules", () => {
  const table: [string, string, { event: string; data: string }[]][] = [
    ["one event", "data: a\n\n", [{ event: "message", data: "a" }]],
    ["named event", "event: ping\ndata: a\n\n", [{ event: "ping", data: "a" }]],
    ["multi-line data", "data: a\ndata: b\n\n", [{ event: "message", data: "a\nb" }]],
    ["CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", [{ event: "message", data: "a" }, {
      event: "message",
      data: "b",
    }]],
    ["CR only", "data: a\r\rdata: b\r\r", [{ event: "message", data: "a" }, {
      event: "message",
      data: "b",
    }]],
    ["comments and keep-alives", ": ping\n\n:\ndata: x\n\n", [{ event: "message", data: "x" }]],
    ["only one leading space is removed", "data:  a\n\n", [{ event: "message", data: " a" }]],
    ["no space after the colon", "data:a\n\n", [{ event: "message", data: "a" }]],
    ["a field without a colon", "data\ndata: b\n\n", [{ event: "message", data: "\nb" }]],
    ["id, retry and unknown fields are skipped", "id: 1\nretry: 5\nfoo: bar\ndata: a\n\n", [
      { event: "message", data: "a" },
    ]],
    ["an event without data is not dispatched", "event: x\n\ndata: a\n\n", [
      { event: "message", data: "a" },
    ]],
    ["the event type resets after a dispatch", "event: x\ndata: 1\n\ndata: 2\n\n", [
      { event: "x", data: "1" },
      { event: "message", data: "2" },
    ]],
    ["a byte order mark", "\uFEFFdata: a\n\n", [{ event: "message", data: "a" }]],
    ["a last event without a blank line", "data: a\n\ndata: b", [
      { event: "message", data: "a" },
      { event: "message", data: "b" },
    ]],
    ["empty", "", []],
    ["colons in the value", 'data: {"a":1}\n\n', [{ event: "message", data: '{"a":1}' }]],
  ];
  for (const [label, input, expected] of table) {
    assertEquals(parseEventStream(input), expected, label);
  }
});

test("mediaType() drops parameters and case", () => {
  const table: [unknown, string][] = [
    ["application/json", "application/json"],
    ["Application/JSON; charset=UTF-8", "application/json"],
    [" text/event-stream ;charset=utf-8", "text/event-stream"],
    [null, ""],
    [undefined, ""],
    [42, ""],
  ];
  for (const [input, expected] of table) assertEquals(mediaType(input), expected, String(input));
});

test("readResponse() sorts decoded values into results, errors and the rest", () => {
  const table: [unknown, string][] = [
    [{ jsonrpc: "2.0", id: 1, result: {} }, "result"],
    [{ jsonrpc: "2.0", id: 1, result: null }, "result"],
    [{ id: 1, result: {} }, "result"],
    [{ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "x" } }, "error"],
    [{ jsonrpc: "2.0", error: { code: -32022 } }, "error"],
    [{ jsonrpc: "2.0", id: 1, error: { code: "x", message: "x" } }, "not_jsonrpc"],
    [{ jsonrpc: "2.0", id: 1, error: { code: 1.5 } }, "not_jsonrpc"],
    [{ jsonrpc: "2.0", id: 1, error: "boom" }, "not_jsonrpc"],
    [{ jsonrpc: "2.0", id: 1, error: { code: 1 }, result: {} }, "not_jsonrpc"],
    [{ jsonrpc: "2.0", id: 1, method: "ping" }, "not_jsonrpc"],
    [{ jsonrpc: "2.0", method: "notifications/progress" }, "not_jsonrpc"],
    [{}, "not_jsonrpc"],
    [[], "not_jsonrpc"],
    [null, "not_jsonrpc"],
  ];
  for (const [input, expected] of table) {
    assertEquals(readResponse(input).type, expected, JSON.stringify(input));
  }
});

test("decodeProbeBody() reads bytes, text, objects and event streams", () => {
  const message = { jsonrpc: "2.0", id: 1, result: { ok: true } };
  const json = JSON.stringify(message);
  const bytes = new TextEncoder().encode(json);
  const table: [string, unknown, unknown, string][] = [
    ["nothing", "application/json", undefined, "empty"],
    ["null", "application/json", null, "empty"],
    ["blank text", "application/json", "  ", "empty"],
    ["empty bytes", "application/json", new Uint8Array(), "empty"],
    ["JSON text", "application/json", json, "result"],
    ["JSON bytes", "application/json; charset=utf-8", bytes, "result"],
    [
      "JSON bytes with a BOM",
      "application/json",
      new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]),
      "result",
    ],
    ["an ArrayBuffer", "application/json", bytes.slice().buffer, "result"],
    ["a decoded object", undefined, message, "result"],
    ["JSON without a content type", undefined, json, "result"],
    ["SSE", "text/event-stream", `data: ${json}\n\n`, "result"],
    ["SSE without a content type", null, `data: ${json}\n\n`, "result"],
    [
      "SSE, a notification only",
      "text/event-stream",
      'data: {"jsonrpc":"2.0","method":"x"}\n\n',
      "not_jsonrpc",
    ],
    ["SSE, comments only", "text/event-stream", ": ping\n\n", "empty"],
    ["SSE labelled as JSON", "application/json", `data: ${json}\n\n`, "not_json"],
    ["HTML", "text/html", "<html></html>", "not_json"],
    ["invalid UTF-8 bytes", "application/json", new Uint8Array([0xff, 0xfe]), "not_json"],
    ["a number", "application/json", 5, "not_jsonrpc"],
    ["JSON null", "application/json", "null", "not_jsonrpc"],
  ];
  for (const [label, contentType, body, expected] of table) {
    assertEquals(decodeProbeBody(contentType, body).type, expected, label);
  }
});

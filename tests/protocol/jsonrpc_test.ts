import { assert, assertEquals, test } from "../_harness.ts";
import { isErrorResponse, isNotification, isRequest, isResult } from "../../protocol/jsonrpc.ts";
import { decodeMessage } from "../../protocol/decode.ts";

test("guards tell the four message kinds apart", () => {
  const request = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const notification = { jsonrpc: "2.0", method: "notifications/progress", params: {} };
  const result = { jsonrpc: "2.0", id: "a", result: {} };
  const error = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };
  assertEquals(
    [request, notification, result, error].map((m) => [
      isRequest(m),
      isNotification(m),
      isResult(m),
      isErrorResponse(m),
    ]),
    [
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, false],
      [false, false, false, true],
    ],
  );
});

test("decodeMessage() refuses what is not one JSON-RPC message", () => {
  const table: [unknown, string][] = [
    ["{", "not_json"],
    ["[]", "batch"],
    [[{ jsonrpc: "2.0", id: 1, method: "x" }], "batch"],
    ["42", "not_object"],
    ["null", "not_object"],
    ['"text"', "not_object"],
    [{ jsonrpc: "1.0", id: 1, method: "x" }, "bad_version"],
    [{ id: 1, method: "x" }, "bad_version"],
    [{ jsonrpc: "2.0", id: null, method: "x" }, "null_id"],
    [{ jsonrpc: "2.0", id: 1 }, "bad_shape"],
    [{ jsonrpc: "2.0", id: 1, method: "x", params: [1] }, "bad_shape"],
    [{ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "" } }, "bad_shape"],
    [{ jsonrpc: "2.0", id: {}, result: {} }, "bad_shape"],
    [{ jsonrpc: "2.0", id: 1, error: { code: "x", message: "" } }, "bad_shape"],
  ];
  for (const [input, reason] of table) {
    const decoded = decodeMessage(input);
    assert(!decoded.ok, `expected a refusal for ${JSON.stringify(input)}`);
    assertEquals(decoded.reason, reason, JSON.stringify(input));
  }
});

test("decodeMessage() keeps the id of a refused answer, and only of an answer", () => {
  const table: [unknown, string | number | undefined][] = [
    ['{"jsonrpc":"2.0","id":7,"result":"a string"}', 7],
    [{ jsonrpc: "2.0", id: "a", result: {}, error: { code: 1, message: "" } }, "a"],
    [{ jsonrpc: "2.0", id: 3 }, 3],
    [{ jsonrpc: "1.0", id: 4, result: {} }, 4],
    [{ jsonrpc: "2.0", id: 1, method: "x", params: [1] }, undefined], // a request
    [{ jsonrpc: "2.0", id: {}, result: {} }, undefined],
    [{ jsonrpc: "2.0", id: null, result: 1 }, undefined],
    ["not json", undefined],
  ];
  for (const [input, id] of table) {
    const decoded = decodeMessage(input);
    assert(!decoded.ok, `expected a refusal for ${JSON.stringify(input)}`);
    assertEquals(decoded.id, id, JSON.stringify(input));
  }
});

test("decodeMessage() accepts each kind from text and from values", () => {
  const inputs = [
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: "x", result: { ok: true } },
    '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}',
  ];
  for (const input of inputs) assert(decodeMessage(input).ok, JSON.stringify(input));
});

// The JSON-RPC decoder: a message written by a peer decodes to itself; anything else is a
// failure with a known reason, and the decoder never throws.
import fc from "fast-check";
import { assert, assertEquals } from "../_harness.ts";
import { isErrorResponse, isNotification, isRequest, isResult } from "../../protocol/jsonrpc.ts";
import { decodeMessage } from "../../protocol/decode.ts";
import { fuzz } from "./_fuzz.ts";

const REASONS = ["not_json", "batch", "not_object", "bad_version", "null_id", "bad_shape"];

const id = fc.oneof(fc.integer(), fc.string());
const params = fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), {
  nil: undefined,
});
const method = fc.oneof(
  fc.constantFrom("tools/call", "ping", "notifications/progress"),
  fc.string(),
);

/** Messages as peers write them (with `undefined` members left out, as JSON does). */
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant("2.0"), id, method, params }),
  fc.record({ jsonrpc: fc.constant("2.0"), method, params }),
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id,
    result: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
  }),
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.oneof(id, fc.constant(null)),
    error: fc.record(
      { code: fc.integer(), message: fc.string(), data: fc.jsonValue({ maxDepth: 2 }) },
      { requiredKeys: ["code", "message"] },
    ),
  }),
).map((m) => JSON.parse(JSON.stringify(m)) as Record<string, unknown>);

/** A message with one member replaced, dropped or added. */
const mutated = fc.tuple(
  message,
  fc.constantFrom("jsonrpc", "id", "method", "params", "result", "error"),
  fc.option(fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.anything({ maxDepth: 1 })), {
    nil: undefined,
  }),
).map(([m, key, value]) => {
  const copy: Record<string, unknown> = { ...m };
  if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy;
});

function checkOutcome(input: unknown): void {
  const decoded = decodeMessage(input);
  if (decoded.ok) {
    const m = decoded.message;
    const kinds = [isRequest(m), isNotification(m), isResult(m), isErrorResponse(m)];
    assertEquals(kinds.filter(Boolean).length, 1, `one kind of message: ${JSON.stringify(m)}`);
  } else {
    assert(REASONS.includes(decoded.reason), decoded.reason);
    assert(typeof decoded.detail === "string" && decoded.detail !== "");
  }
}

fuzz(
  "jsonrpc: a message a peer wrote decodes to itself, as text or as a value",
  () =>
    fc.property(message, (m) => {
      for (const input of [m, JSON.stringify(m)]) {
        const decoded = decodeMessage(input);
        assert(decoded.ok, JSON.stringify(decoded));
        assertEquals(decoded.message as unknown, m);
      }
    }),
);

fuzz(
  "jsonrpc: a mutated message decodes to one kind of message or a known failure",
  () =>
    fc.property(mutated, (m) => {
      checkOutcome(m);
      checkOutcome(JSON.stringify(m));
    }),
);

fuzz(
  "jsonrpc: any value or text is a message or a known failure, never an exception",
  () =>
    fc.property(
      fc.oneof(
        fc.anything({ maxDepth: 2 }),
        fc.string(),
        fc.string({ unit: "binary" }),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        message.map((m) => JSON.stringify(m).slice(0, -1)), // cut short
      ),
      checkOutcome,
    ),
  0.3, // generating arbitrary values costs more than checking them
);

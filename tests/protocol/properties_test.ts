// Property tests for the pure protocol layer: total functions never throw, and a
// recognized modern error is never read as legacy evidence.
import fc from "fast-check";
import { assert, assertEquals, test } from "../_harness.ts";
import { decodeMessage } from "../../protocol/decode.ts";
import { classifyProbe, type ProbeOutcome, type Verdict } from "../../protocol/negotiation.ts";
import { decodeHeaderValue, encodeHeaderValue } from "../../protocol/headers.ts";
import { mcpHeaderDeclarations } from "../../protocol/param_headers.ts";

const RUNS = { numRuns: 300 };
const encoder = new TextEncoder();

const contentType = fc.oneof(
  fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "text/event-stream",
    "text/event-stream; charset=UTF-8",
    "text/html",
    null,
    undefined,
  ),
  fc.string(),
);

const sseOf = (value: unknown) => `event: message\ndata: ${JSON.stringify(value)}\n\n`;

const body = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.string(),
  fc.anything(),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => encoder.encode(JSON.stringify(value))),
  fc.jsonValue().map(sseOf),
  fc.constant(null),
  fc.constant(undefined),
);

const status = fc.oneof(
  fc.integer({ min: 100, max: 599 }),
  fc.constantFrom(200, 400, 401, 403, 404, 405, 408, 429, 500),
  fc.integer(),
  fc.double(),
  fc.anything(),
);

const outcome = fc.oneof(
  fc.record({ kind: fc.constant("http"), status, contentType, body }),
  fc.record({ kind: fc.constant("result"), result: fc.anything() }),
  fc.record({ kind: fc.constant("error"), error: fc.anything() }),
  fc.record({
    kind: fc.constant("error"),
    error: fc.record({ code: fc.integer({ min: -32800, max: -32000 }), data: fc.anything() }),
  }),
  fc.record({
    kind: fc.constantFrom("timeout", "closed", "transport_error"),
    error: fc.anything(),
  }),
  fc.record({ kind: fc.string() }),
  fc.anything(),
);

const transport = fc.oneof(fc.constantFrom("stdio", "http"), fc.anything());
const versions = fc.option(
  fc.oneof(fc.array(fc.constantFrom("2026-07-28", "2027-01-01", "2025-11-25", "x")), fc.anything()),
  { nil: undefined },
);

function isVerdict(value: Verdict): boolean {
  return ["modern", "modern_retry", "legacy", "reconnect_legacy", "authorize", "retry", "error"]
    .includes(value.verdict);
}

test("classifyProbe never throws and always returns a verdict", () => {
  fc.assert(
    fc.property(transport, outcome, versions, (t, o, v) => {
      const verdict = classifyProbe(
        t as "stdio" | "http",
        o as ProbeOutcome,
        { versions: v as string[] | undefined },
      );
      assert(isVerdict(verdict), JSON.stringify(verdict));
    }),
    RUNS,
  );
});

test("decodeMessage never throws on arbitrary input", () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.anything(), fc.string(), fc.jsonValue().map((value) => JSON.stringify(value))),
      (input) => {
        const decoded = decodeMessage(input);
        assert(typeof decoded.ok === "boolean");
      },
    ),
    RUNS,
  );
});

const modernCode = fc.constantFrom(-32020, -32021, -32022);
const supportedData = fc.oneof(
  fc.jsonValue(),
  fc.record({ supported: fc.array(fc.constantFrom("2026-07-28", "2025-11-25", "2099-01-01")) }),
);

test("a stdio outcome carrying a modern error is never legacy", () => {
  fc.assert(
    fc.property(
      modernCode,
      supportedData,
      fc.option(fc.string()),
      versions,
      (code, data, message, v) => {
        const verdict = classifyProbe(
          "stdio",
          { kind: "error", error: { code, data, message: message ?? undefined } },
          { versions: v as string[] | undefined },
        );
        assert(verdict.verdict === "modern_retry" || verdict.verdict === "error", verdict.verdict);
        if (verdict.verdict === "error") assertEquals(verdict.error.code, code);
      },
    ),
    RUNS,
  );
});

test("an HTTP JSON body carrying a modern error is never legacy, at any status", () => {
  const encode = fc.constantFrom("object", "string", "bytes", "sse");
  fc.assert(
    fc.property(
      modernCode,
      supportedData,
      fc.integer({ min: 100, max: 599 }),
      encode,
      fc.constantFrom("application/json", "Application/Json; charset=utf-8", undefined),
      (code, data, httpStatus, how, type) => {
        const message = { jsonrpc: "2.0", id: 1, error: { code, message: "m", data } };
        const json = JSON.stringify(message);
        const [ct, payload]: [string | undefined, unknown] = how === "object"
          ? [type, message]
          : how === "string"
          ? [type, json]
          : how === "bytes"
          ? [type, encoder.encode(json)]
          : ["text/event-stream", sseOf(message)];
        const verdict = classifyProbe("http", {
          kind: "http",
          status: httpStatus,
          contentType: ct,
          body: payload as string,
        });
        assert(verdict.verdict === "modern_retry" || verdict.verdict === "error", verdict.verdict);
      },
    ),
    RUNS,
  );
});

test("encodeHeaderValue is a safe header value that decodes back to the input", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), (value) => {
      const encoded = encodeHeaderValue(value);
      assert(/^[\x20-\x7e\t]*$/.test(encoded), encoded);
      assert(!/^[ \t]|[ \t]$/.test(encoded), encoded);
      assertEquals(decodeHeaderValue(encoded), value);
    }),
    RUNS,
  );
});

test("mcpHeaderDeclarations never throws on arbitrary schemas", () => {
  fc.assert(
    fc.property(fc.oneof(fc.anything(), fc.jsonValue()), (schema) => {
      const declarations = mcpHeaderDeclarations(schema);
      assert(typeof declarations.ok === "boolean");
    }),
    RUNS,
  );
});

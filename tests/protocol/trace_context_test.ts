// W3C trace context in requests: formatting, reading, and the copy into HTTP headers.
import {
  cleanTracestate,
  copyTraceHeaders,
  formatTraceparent,
  traceIdOf,
} from "../../protocol/trace_context.ts";
import { assertEquals, test } from "../_harness.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

test("trace context: a traceparent is formatted from valid ids only", () => {
  assertEquals(formatTraceparent(TRACE, SPAN, 1), `00-${TRACE}-${SPAN}-01`);
  assertEquals(formatTraceparent(TRACE, SPAN, 0), `00-${TRACE}-${SPAN}-00`);
  assertEquals(formatTraceparent("0".repeat(32), SPAN, 1), undefined, "an invalid trace id");
  assertEquals(formatTraceparent(TRACE, "0".repeat(16), 1), undefined, "an invalid span id");
  assertEquals(formatTraceparent(TRACE.toUpperCase(), SPAN, 1), undefined, "not lowercase");
  assertEquals(formatTraceparent(TRACE.slice(1), SPAN, 1), undefined, "too short");
});

test("trace context: the trace id of a traceparent, and a tracestate fit to pass on", () => {
  assertEquals(traceIdOf(`00-${TRACE}-${SPAN}-01`), TRACE);
  assertEquals(traceIdOf(`00-${"0".repeat(32)}-${SPAN}-01`), undefined);
  assertEquals(traceIdOf("garbage"), undefined);
  assertEquals(traceIdOf(42), undefined);
  assertEquals(cleanTracestate("rojo=00f067aa0ba902b7"), "rojo=00f067aa0ba902b7");
  assertEquals(cleanTracestate("a=\n"), undefined, "a control character");
  assertEquals(cleanTracestate("x".repeat(600)), undefined, "too long");
  assertEquals(cleanTracestate(""), undefined);
});

test("trace context: a request's _meta trace keys become the W3C headers", () => {
  const headers: Record<string, string> = {};
  const traceparent = `00-${TRACE}-${SPAN}-01`;
  copyTraceHeaders({ params: { _meta: { traceparent, tracestate: "k=v" } } }, headers);
  assertEquals(headers, { traceparent, tracestate: "k=v" });
  const none: Record<string, string> = {};
  copyTraceHeaders(
    { params: { _meta: { traceparent: "forged\r\nx: y", tracestate: "k=v" } } },
    none,
  );
  copyTraceHeaders({ params: {} }, none);
  copyTraceHeaders({}, none);
  assertEquals(none, {}, "nothing from an invalid traceparent or none");
});

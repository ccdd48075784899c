import { assertEquals, assertThrows, test } from "../_harness.ts";
import {
  buildMeta,
  isLogLevel,
  LOG_LEVELS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROGRESS_TOKEN,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  type MetaInput,
  withMeta,
} from "../../protocol/meta.ts";

const BASE: MetaInput = { protocolVersion: "2026-07-28", clientCapabilities: {} };

test("the _meta keys are the reserved spec names", () => {
  assertEquals(
    [
      META_PROTOCOL_VERSION,
      META_CLIENT_CAPABILITIES,
      META_CLIENT_INFO,
      META_LOG_LEVEL,
      META_SERVER_INFO,
      META_SUBSCRIPTION_ID,
      META_PROGRESS_TOKEN,
    ],
    [
      "io.modelcontextprotocol/protocolVersion",
      "io.modelcontextprotocol/clientCapabilities",
      "io.modelcontextprotocol/clientInfo",
      "io.modelcontextprotocol/logLevel",
      "io.modelcontextprotocol/serverInfo",
      "io.modelcontextprotocol/subscriptionId",
      "progressToken",
    ],
  );
});

test("LOG_LEVELS and isLogLevel() follow RFC 5424, lowest first", () => {
  assertEquals([...LOG_LEVELS], [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
  ]);
  for (const level of LOG_LEVELS) assertEquals(isLogLevel(level), true, level);
  for (const value of ["warn", "DEBUG", "", null, 0, undefined]) {
    assertEquals(isLogLevel(value), false, String(value));
  }
});

test("buildMeta() includes required keys and only the optional ones given", () => {
  const table: [string, MetaInput, Record<string, unknown>][] = [
    ["required only", BASE, {
      [META_PROTOCOL_VERSION]: "2026-07-28",
      [META_CLIENT_CAPABILITIES]: {},
    }],
    [
      "everything",
      {
        protocolVersion: "2026-07-28",
        clientCapabilities: { elicitation: { form: {}, url: {} } },
        clientInfo: { name: "conduit", version: "0.1.0" },
        logLevel: "info",
        progressToken: "p-42",
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
        tracestate: "vendor=1",
        baggage: "user=alice",
      },
      {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {}, url: {} } },
        "io.modelcontextprotocol/clientInfo": { name: "conduit", version: "0.1.0" },
        "io.modelcontextprotocol/logLevel": "info",
        progressToken: "p-42",
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
        tracestate: "vendor=1",
        baggage: "user=alice",
      },
    ],
    ["a zero progress token", { ...BASE, progressToken: 0 }, {
      [META_PROTOCOL_VERSION]: "2026-07-28",
      [META_CLIENT_CAPABILITIES]: {},
      progressToken: 0,
    }],
    ["an empty tracestate is kept", { ...BASE, tracestate: "" }, {
      [META_PROTOCOL_VERSION]: "2026-07-28",
      [META_CLIENT_CAPABILITIES]: {},
      tracestate: "",
    }],
  ];
  for (const [label, input, expected] of table) {
    const meta = buildMeta(input);
    assertEquals(meta, expected, label);
    assertEquals(Object.keys(meta).sort(), Object.keys(expected).sort(), label);
  }
});

test("buildMeta() rejects bad inputs with a TypeError", () => {
  const bad: unknown[] = [
    undefined,
    {},
    { ...BASE, protocolVersion: "" },
    { ...BASE, protocolVersion: 20260728 },
    { ...BASE, clientCapabilities: null },
    { ...BASE, clientCapabilities: [] },
    { ...BASE, logLevel: "warn" },
    { ...BASE, progressToken: NaN },
    { ...BASE, progressToken: {} },
  ];
  for (const input of bad) assertThrows(() => buildMeta(input as MetaInput), TypeError);
});

test("withMeta() merges without dropping caller keys or mutating inputs", () => {
  const params = {
    name: "echo",
    arguments: { a: 1 },
    _meta: { "com.example/x": 1, progressToken: "old" },
  };
  const meta = buildMeta({ ...BASE, progressToken: "new" });
  const merged = withMeta(params, meta);
  assertEquals(merged, {
    name: "echo",
    arguments: { a: 1 },
    _meta: {
      "com.example/x": 1,
      progressToken: "new",
      [META_PROTOCOL_VERSION]: "2026-07-28",
      [META_CLIENT_CAPABILITIES]: {},
    },
  });
  assertEquals(params._meta, { "com.example/x": 1, progressToken: "old" });
  assertEquals(withMeta(undefined, { a: 1 }), { _meta: { a: 1 } });
  assertEquals(withMeta({ _meta: "junk" } as Record<string, unknown>, { a: 1 }), {
    _meta: { a: 1 },
  });
  assertEquals(withMeta({ cursor: "c" }, {}), { cursor: "c", _meta: {} });
});

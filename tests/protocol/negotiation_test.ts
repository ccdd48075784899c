import { assert, assertEquals, assertInstanceOf, assertStringIncludes, test } from "../_harness.ts";
import { McpError } from "../../protocol/errors.ts";
import {
  classifyProbe,
  clientCapabilities,
  clientVersions,
  era,
  isModernError,
  pickVersion,
  type ProbeOutcome,
  type Verdict,
} from "../../protocol/negotiation.ts";
import * as versions from "../../protocol/versions.ts";
import * as capabilities from "../../protocol/capabilities.ts";

// A verdict reduced to what the tables compare: the discover result and the error object
// are checked separately.
type Summary =
  | { verdict: "modern"; version: string }
  | { verdict: "modern_retry"; version: string }
  | { verdict: "legacy" }
  | { verdict: "reconnect_legacy" }
  | { verdict: "authorize"; status: number }
  | { verdict: "retry"; reason: unknown }
  | { verdict: "error"; kind: string; reason: string | undefined };

function summarize(verdict: Verdict): Summary {
  switch (verdict.verdict) {
    case "modern":
      return { verdict: "modern", version: verdict.version };
    case "error":
      assertInstanceOf(verdict.error, McpError);
      return { verdict: "error", kind: verdict.error.kind, reason: verdict.error.reason };
    default:
      return verdict;
  }
}

const MODERN = { verdict: "modern", version: "2026-07-28" } as const;
const LEGACY = { verdict: "legacy" } as const;
const errorOf = (kind: string, reason: string): Summary => ({ verdict: "error", kind, reason });
const INVALID_DISCOVER = errorOf("protocol", "invalid_discover_result");
const NO_COMMON = errorOf("protocol", "no_common_version");

const DISCOVER = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  ttlMs: 60_000,
  cacheScope: "public",
};
const rpcResult = (result: unknown) => ({ jsonrpc: "2.0", id: 1, result });
const rpcError = (code: number, data?: unknown) => ({
  jsonrpc: "2.0",
  id: 1,
  error: { code, message: "failed", ...(data === undefined ? {} : { data }) },
});

// [label, result, expected, versions?]: the "both" rows for a JSON-RPC result.
const RESULT_ROWS: [string, unknown, Summary, string[]?][] = [
  ["valid DiscoverResult", DISCOVER, MODERN],
  ["valid without resultType", { supportedVersions: ["2026-07-28"], capabilities: {} }, MODERN],
  [
    "valid, server lists legacy and newer versions",
    { ...DISCOVER, supportedVersions: ["2025-11-25", "2026-07-28", "2027-03-01"] },
    MODERN,
  ],
  [
    "client prefers a newer modern version",
    { ...DISCOVER, supportedVersions: ["2025-11-25", "2026-07-28", "2027-03-01"] },
    { verdict: "modern", version: "2027-03-01" },
    ["2027-03-01", "2026-07-28", "2025-11-25"],
  ],
  [
    "supportedVersions not an array",
    { ...DISCOVER, supportedVersions: "2026-07-28" },
    INVALID_DISCOVER,
  ],
  ["supportedVersions empty", { ...DISCOVER, supportedVersions: [] }, INVALID_DISCOVER],
  [
    "supportedVersions not strings",
    { ...DISCOVER, supportedVersions: [20260728] },
    INVALID_DISCOVER,
  ],
  [
    "capabilities missing",
    { resultType: "complete", supportedVersions: ["2026-07-28"] },
    INVALID_DISCOVER,
  ],
  ["capabilities an array", { ...DISCOVER, capabilities: [] }, INVALID_DISCOVER],
  ["resultType input_required", { ...DISCOVER, resultType: "input_required" }, INVALID_DISCOVER],
  ["resultType null", { ...DISCOVER, resultType: null }, INVALID_DISCOVER],
  ["only resultType", { resultType: "complete" }, INVALID_DISCOVER],
  ["ttlMs negative", { ...DISCOVER, ttlMs: -1 }, INVALID_DISCOVER],
  ["ttlMs a string", { ...DISCOVER, ttlMs: "60" }, INVALID_DISCOVER],
  ["ttlMs infinite", { ...DISCOVER, ttlMs: Infinity }, INVALID_DISCOVER],
  ["cacheScope unknown", { ...DISCOVER, cacheScope: "shared" }, INVALID_DISCOVER],
  ["instructions not a string", { ...DISCOVER, instructions: 5 }, INVALID_DISCOVER],
  [
    "no mutual version (legacy only)",
    { ...DISCOVER, supportedVersions: ["2025-11-25"] },
    NO_COMMON,
  ],
  [
    "no mutual version (future only)",
    { ...DISCOVER, supportedVersions: ["2099-01-01"] },
    NO_COMMON,
  ],
  [
    "client lists no modern version",
    DISCOVER,
    NO_COMMON,
    ["2025-11-25", "2025-06-18"],
  ],
  ["empty object", {}, LEGACY],
  [
    "an InitializeResult-like object",
    { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "1" } },
    LEGACY,
  ],
  ["null", null, LEGACY],
  ["a string", "ok", LEGACY],
  ["an array", [], LEGACY],
];

// [label, code, data, expected, versions?]: the "both" rows for a modern error.
const MODERN_ERROR_ROWS: [string, number, unknown, Summary, string[]?][] = [
  [
    "-32022 with a mutual modern version",
    -32022,
    { supported: ["2026-07-28", "2025-11-25"], requested: "1900-01-01" },
    { verdict: "modern_retry", version: "2026-07-28" },
  ],
  [
    "-32022 picks the client's preferred modern version",
    -32022,
    { supported: ["2026-07-28", "2027-03-01"] },
    { verdict: "modern_retry", version: "2027-03-01" },
    ["2027-03-01", "2026-07-28"],
  ],
  ["-32022 listing only legacy versions", -32022, { supported: ["2025-11-25"] }, NO_COMMON],
  ["-32022 without data", -32022, undefined, NO_COMMON],
  ["-32022 with data.supported not an array", -32022, { supported: "2026-07-28" }, NO_COMMON],
  [
    "-32022 when the client lists no modern version",
    -32022,
    { supported: ["2026-07-28"] },
    NO_COMMON,
    ["2025-11-25"],
  ],
  [
    "-32021",
    -32021,
    { requiredCapabilities: { elicitation: {} } },
    errorOf("protocol", "missing_required_client_capability"),
  ],
  ["-32020", -32020, undefined, errorOf("protocol", "header_mismatch")],
];

const LEGACY_CODES = [-32601, -32602, -32600, -32603, -32700, -32000, -32001, -32002, -32042, 0, 1];

function stdio(outcome: unknown, versions?: string[]): Summary {
  return summarize(classifyProbe("stdio", outcome as ProbeOutcome, versions ? { versions } : {}));
}

function http(
  status: number,
  contentType: string | null | undefined,
  body: unknown,
  versions?: string[],
): Verdict {
  const outcome = { kind: "http", status, contentType, body } as ProbeOutcome;
  return classifyProbe("http", outcome, versions ? { versions } : {});
}

const encoder = new TextEncoder();
const sse = (message: unknown) =>
  `: keep-alive\n\nevent: message\ndata: ${
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } })
  }\n\ndata: ${JSON.stringify(message)}\n\n`;

// Every way an HTTP probe body may carry one JSON-RPC message.
function encodings(message: unknown): [string, string | null | undefined, unknown][] {
  const json = JSON.stringify(message);
  return [
    ["decoded object", undefined, message],
    ["decoded object, JSON content type", "application/json", message],
    ["JSON string", "application/json", json],
    ["JSON bytes", "application/json", encoder.encode(json)],
    ["JSON bytes, charset", "application/json; charset=utf-8", encoder.encode(json)],
    ["JSON bytes, odd case", "Application/JSON;Charset=UTF-8", encoder.encode(json)],
    ["JSON bytes, no content type", null, encoder.encode(json)],
    ["SSE string", "text/event-stream", sse(message)],
    ["SSE bytes, charset", "text/event-stream; charset=utf-8", encoder.encode(sse(message))],
    [
      "SSE CRLF, split data",
      "TEXT/EVENT-STREAM",
      `data: ${json.slice(0, 1)}\r\ndata: ${json.slice(1)}\r\n\r\n`,
    ],
    ["SSE without a content type", undefined, sse(message)],
  ];
}

test("the negotiation module re-exports the version functions and clientCapabilities", () => {
  assertEquals(clientVersions, versions.clientVersions);
  assertEquals(era, versions.era);
  assertEquals(pickVersion, versions.pickVersion);
  assertEquals(clientCapabilities, capabilities.clientCapabilities);
  assertEquals(clientVersions(), ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
});

test("seed examples: era and pickVersion", () => {
  assertEquals(era("2025-11-25"), "legacy");
  assertEquals(era("2026-07-28"), "modern");
  assertEquals(era("nope"), "unknown");
  assertEquals(pickVersion(["2025-06-18", "2025-11-25"]), "2025-11-25");
  assertEquals(pickVersion(["2024-11-05"]), undefined);
  assertEquals(pickVersion(["2026-07-28", "2025-06-18"]), "2026-07-28");
});

test("isModernError() recognizes exactly -32020, -32021 and -32022", () => {
  const table: [unknown, boolean][] = [
    [-32020, true],
    [-32021, true],
    [-32022, true],
    [-32019, false],
    [-32023, false],
    [-32601, false],
    [-32001, false],
    ["-32022", false],
    [-32022.5, false],
    [null, false],
    [undefined, false],
  ];
  for (const [code, expected] of table) assertEquals(isModernError(code), expected, String(code));
});

test("both transports: a JSON-RPC result follows the DiscoverResult rows", () => {
  for (const [label, result, expected, versions] of RESULT_ROWS) {
    assertEquals(stdio({ kind: "result", result }, versions), expected, `stdio: ${label}`);
    for (const [how, contentType, body] of encodings(rpcResult(result))) {
      assertEquals(
        summarize(http(200, contentType, body, versions)),
        expected,
        `http 200 ${how}: ${label}`,
      );
    }
  }
});

test("a modern verdict carries the validated, normalised DiscoverResult", () => {
  const result = { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, extra: 1 };
  for (
    const verdict of [
      stdioRaw({ kind: "result", result }),
      http(200, "application/json", rpcResult(result)),
    ]
  ) {
    assert(verdict.verdict === "modern", verdict.verdict);
    assertEquals(
      verdict.result,
      {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "private",
        extra: 1,
      } as unknown as typeof verdict.result,
    );
  }
  const full = stdioRaw({ kind: "result", result: { ...DISCOVER, instructions: "Be nice" } });
  assert(full.verdict === "modern");
  assertEquals(full.result.ttlMs, 60_000);
  assertEquals(full.result.cacheScope, "public");
  assertEquals(full.result.instructions, "Be nice");
});

function stdioRaw(outcome: unknown): Verdict {
  return classifyProbe("stdio", outcome as ProbeOutcome);
}

test("both transports: modern errors are never a fallback", () => {
  for (const [label, code, data, expected, versions] of MODERN_ERROR_ROWS) {
    assertEquals(
      stdio({ kind: "error", error: { code, message: "x", data } }, versions),
      expected,
      label,
    );
    for (const status of [200, 400, 401, 403, 404, 405, 409, 429, 500, 503]) {
      for (const [how, contentType, body] of encodings(rpcError(code, data))) {
        assertEquals(
          summarize(http(status, contentType, body, versions)),
          expected,
          `http ${status} ${how}: ${label}`,
        );
      }
    }
  }
});

test("modern error verdicts keep the server's code and data", () => {
  const data = { supported: ["2025-11-25"], requested: "2026-07-28" };
  const verdict = stdioRaw({ kind: "error", error: { code: -32022, message: "no", data } });
  assert(verdict.verdict === "error");
  assertEquals(verdict.error.code, -32022);
  assertEquals(verdict.error.data, data);
  const mismatch = http(400, "application/json", JSON.stringify(rpcError(-32020)));
  assert(mismatch.verdict === "error");
  assertEquals(mismatch.error.code, -32020);
});

test("stdio: any other JSON-RPC error, a timeout or an exit means legacy", () => {
  for (const code of LEGACY_CODES) {
    assertEquals(stdio({ kind: "error", error: { code, message: "x" } }), LEGACY, String(code));
  }
  assertEquals(stdio({ kind: "error", error: { code: "weird" } }), LEGACY);
  assertEquals(stdio({ kind: "error", error: null }), LEGACY);
  assertEquals(stdio({ kind: "timeout" }), LEGACY);
  assertEquals(stdio({ kind: "closed" }), { verdict: "reconnect_legacy" });
  assertEquals(stdio({ kind: "closed", reason: new Error("exit 1") }), {
    verdict: "reconnect_legacy",
  });
});

test("stdio: outcomes that are not stdio outcomes are errors", () => {
  assertEquals(
    stdio({ kind: "transport_error", error: new Error("EPIPE") }),
    errorOf("transport", "probe_failed"),
  );
  const invalid = errorOf("protocol", "invalid_probe_outcome");
  assertEquals(stdio({ kind: "http", status: 200, body: rpcResult(DISCOVER) }), invalid);
  assertEquals(stdio({ kind: "nope" }), invalid);
  assertEquals(stdio(null), invalid);
  assertEquals(stdio("timeout"), invalid);
  assertEquals(
    summarize(classifyProbe("websocket" as "http", { kind: "timeout" })),
    invalid,
  );
});

test("http: 401 and 403 ask for authorization", () => {
  for (const status of [401, 403] as const) {
    for (const body of [null, "", "Unauthorized", rpcError(-32600), rpcError(-32601)]) {
      assertEquals(summarize(http(status, "application/json", body)), {
        verdict: "authorize",
        status,
      });
    }
  }
});

test("http: 408, 429, 5xx, network errors and timeouts retry, never downgrade", () => {
  for (const status of [408, 429, 500, 501, 502, 503, 504, 599]) {
    for (const body of [null, "Busy", rpcError(-32601), rpcError(-32603), rpcResult(DISCOVER)]) {
      assertEquals(summarize(http(status, "application/json", body)), {
        verdict: "retry",
        reason: { status },
      }, `${status}`);
    }
  }
  const cause = new TypeError("fetch failed");
  assertEquals(classifyProbe("http", { kind: "transport_error", error: cause }), {
    verdict: "retry",
    reason: cause,
  });
  assertEquals(classifyProbe("http", { kind: "timeout" }), { verdict: "retry", reason: "timeout" });
  assertEquals(classifyProbe("http", { kind: "closed" }), { verdict: "retry", reason: "closed" });
});

test("http: 400, 404 and 405 with a non-modern body mean legacy", () => {
  const bodies: [string, string | null | undefined, unknown][] = [
    ["no body", undefined, undefined],
    ["null body", "application/json", null],
    ["empty string", "application/json", ""],
    ["empty bytes", "application/json", new Uint8Array()],
    ["whitespace", "text/plain", " \n"],
    ["plain text", "text/plain", "Not Found"],
    ["HTML bytes", "text/html; charset=utf-8", encoder.encode("<h1>Not Found</h1>")],
    ["broken JSON", "application/json", '{"jsonrpc":'],
    ["JSON, not JSON-RPC", "application/json", '{"error":"not found"}'],
    ["JSON array", "application/json", "[]"],
    ["JSON number", "application/json", "404"],
    ["decoded non-JSON-RPC object", undefined, { detail: "Method Not Allowed" }],
    ["SSE without message events", "text/event-stream", ": ping\n\nevent: other\ndata: x\n\n"],
    ["SSE with non-JSON data", "text/event-stream", "data: hello\n\n"],
    ...LEGACY_CODES.flatMap((code) =>
      encodings(rpcError(code)).map(([how, ct, body]) =>
        [`${code} ${how}`, ct, body] as [string, string | null | undefined, unknown]
      )
    ),
    ["a JSON-RPC result", "application/json", JSON.stringify(rpcResult(DISCOVER))],
  ];
  for (const status of [400, 404, 405]) {
    for (const [label, contentType, body] of bodies) {
      assertEquals(summarize(http(status, contentType, body)), LEGACY, `${status} ${label}`);
    }
  }
});

test("http: -32601 means legacy at any status but auth and retry statuses", () => {
  for (const status of [200, 201, 202, 400, 404, 405, 406, 409, 410, 415, 418, 422, 302]) {
    for (const [how, contentType, body] of encodings(rpcError(-32601))) {
      assertEquals(summarize(http(status, contentType, body)), LEGACY, `${status} ${how}`);
    }
  }
});

test("http: any other status or body is an error naming the status", () => {
  const rows: [number, string | null, unknown, Summary][] = [
    [200, "application/json", "", errorOf("protocol", "unexpected_probe_response")],
    [200, "text/html", "<html></html>", errorOf("protocol", "unexpected_probe_response")],
    [200, "application/json", '{"ok":true}', errorOf("protocol", "unexpected_probe_response")],
    [200, "application/json", rpcError(-32602), errorOf("protocol", "unexpected_probe_response")],
    [200, "application/json", rpcError(-32000), errorOf("protocol", "unexpected_probe_response")],
    [202, null, null, errorOf("protocol", "unexpected_probe_response")],
    [
      200,
      "text/event-stream",
      `data: ${
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: {} })
      }\n\n`,
      errorOf("protocol", "unexpected_probe_response"),
    ],
    [302, null, null, errorOf("transport", "unexpected_status")],
    [304, null, "", errorOf("transport", "unexpected_status")],
    [406, "application/json", rpcError(-32600), errorOf("transport", "unexpected_status")],
    [409, "text/plain", "Conflict", errorOf("transport", "unexpected_status")],
    [410, null, null, errorOf("transport", "unexpected_status")],
    [415, "application/json", rpcResult(DISCOVER), errorOf("transport", "unexpected_status")],
    [100, null, null, errorOf("transport", "unexpected_status")],
  ];
  for (const [status, contentType, body, expected] of rows) {
    const verdict = http(status, contentType, body);
    assertEquals(summarize(verdict), expected, `${status} ${String(body)}`);
    assert(verdict.verdict === "error");
    assertStringIncludes(verdict.error.message, String(status));
  }
  const withCode = http(200, "application/json", rpcError(-32602, { why: 1 }));
  assert(withCode.verdict === "error");
  assertEquals(withCode.error.code, -32602);
  assertEquals(withCode.error.data, { why: 1 });
});

test("http: a status that is not an HTTP status is an invalid outcome", () => {
  for (const status of [99, 600, 200.5, NaN, "200", undefined]) {
    assertEquals(
      summarize(http(status as number, "application/json", rpcResult(DISCOVER))),
      errorOf("protocol", "invalid_probe_outcome"),
      String(status),
    );
  }
  assertEquals(
    summarize(classifyProbe("http", { kind: "what" } as unknown as ProbeOutcome)),
    errorOf("protocol", "invalid_probe_outcome"),
  );
});

test("http: stdio-style result and error outcomes read as a 200 carrying them", () => {
  assertEquals(summarize(classifyProbe("http", { kind: "result", result: DISCOVER })), MODERN);
  assertEquals(summarize(classifyProbe("http", { kind: "result", result: {} })), LEGACY);
  assertEquals(
    summarize(classifyProbe("http", { kind: "error", error: { code: -32601, message: "x" } })),
    LEGACY,
  );
  assertEquals(
    summarize(
      classifyProbe("http", {
        kind: "error",
        error: { code: -32022, message: "x", data: { supported: ["2026-07-28"] } },
      }),
    ),
    { verdict: "modern_retry", version: "2026-07-28" },
  );
});

test("http: the SSE body's response is found after notifications and comments", () => {
  const body = [
    ": comment",
    "",
    "event: message",
    `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: {} })}`,
    "",
    "id: 7",
    "retry: 100",
    `data: ${JSON.stringify(rpcResult(DISCOVER))}`,
  ].join("\n"); // the last event has no blank line after it
  assertEquals(summarize(http(200, "text/event-stream", body)), MODERN);
  const bom = "\uFEFF" + `data: ${JSON.stringify(rpcError(-32601))}\n\n`;
  assertEquals(summarize(http(404, "text/event-stream", encoder.encode(bom))), LEGACY);
});

test("classifyProbe reads the default versions when opts is missing or odd", () => {
  const outcome: ProbeOutcome = { kind: "result", result: DISCOVER };
  assertEquals(summarize(classifyProbe("stdio", outcome)), MODERN);
  assertEquals(summarize(classifyProbe("stdio", outcome, undefined)), MODERN);
  assertEquals(
    summarize(classifyProbe("stdio", outcome, { versions: "x" as unknown as string[] })),
    MODERN,
  );
});

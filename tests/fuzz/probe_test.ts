// classifyProbe: for any outcome, a valid verdict of the documented shape (a modern version
// the client offers and the server listed, an McpError with a kind and a reason), the same
// verdict every time, and no exception.
import fc from "fast-check";
import { assert, assertEquals } from "../_harness.ts";
import { MCP_ERROR_KINDS } from "../../protocol/errors.ts";
import { classifyProbe, type ProbeOutcome, type Verdict } from "../../protocol/negotiation.ts";
import { era } from "../../protocol/versions.ts";
import { fuzz } from "./_fuzz.ts";

const encoder = new TextEncoder();
const VERSIONS = ["2026-07-28", "2027-01-01", "2025-11-25", "2025-06-18", "x", ""];

const discover = fc.record({
  resultType: fc.option(fc.constantFrom("complete", "input_required", "x"), { nil: undefined }),
  supportedVersions: fc.oneof(fc.array(fc.constantFrom(...VERSIONS)), fc.anything({ maxDepth: 1 })),
  capabilities: fc.oneof(fc.constant({}), fc.anything({ maxDepth: 1 })),
  ttlMs: fc.option(fc.oneof(fc.nat(), fc.double()), { nil: undefined }),
  cacheScope: fc.option(fc.constantFrom("public", "private", "x"), { nil: undefined }),
}, { requiredKeys: [] });

const rpcError = fc.record({
  code: fc.oneof(fc.constantFrom(-32020, -32021, -32022, -32601, -32602, -32600), fc.integer()),
  message: fc.string(),
  data: fc.oneof(
    fc.record({ supported: fc.array(fc.constantFrom(...VERSIONS)), requested: fc.string() }),
    fc.anything({ maxDepth: 1 }),
  ),
}, { requiredKeys: ["code"] });

const json = fc.oneof(
  discover.map((result) => ({ jsonrpc: "2.0", id: 1, result })),
  rpcError.map((error) => ({ jsonrpc: "2.0", id: 1, error })),
  fc.jsonValue({ maxDepth: 2 }),
);
const body = fc.oneof(
  json,
  json.map((v) => JSON.stringify(v)),
  json.map((v) => encoder.encode(JSON.stringify(v))),
  json.map((v) => `event: message\ndata: ${JSON.stringify(v)}\n\n`),
  fc.string(),
  fc.uint8Array({ maxLength: 32 }),
  fc.constantFrom(null, undefined),
);

const outcome = fc.oneof(
  fc.record({
    kind: fc.constant("http"),
    status: fc.oneof(
      fc.constantFrom(200, 202, 400, 401, 403, 404, 405, 429, 500, 503),
      fc.integer(),
    ),
    contentType: fc.oneof(
      fc.constantFrom("application/json", "text/event-stream", "text/html", null, undefined),
      fc.string(),
    ),
    body,
  }),
  fc.record({
    kind: fc.constant("result"),
    result: fc.oneof(discover, fc.anything({ maxDepth: 1 })),
  }),
  fc.record({
    kind: fc.constant("error"),
    error: fc.oneof(rpcError, fc.anything({ maxDepth: 1 })),
  }),
  fc.record({
    kind: fc.constantFrom("timeout", "closed", "transport_error", "x"),
    error: fc.string(),
  }),
  fc.anything({ maxDepth: 1 }),
);

const offered = fc.option(
  fc.oneof(fc.array(fc.constantFrom(...VERSIONS)), fc.anything({ maxDepth: 1 })),
  {
    nil: undefined,
  },
);

function checkVerdict(verdict: Verdict, versions: unknown): void {
  const mine = Array.isArray(versions) ? versions : undefined;
  switch (verdict.verdict) {
    case "modern":
      assertEquals(era(verdict.version), "modern");
      assert(verdict.result.supportedVersions.includes(verdict.version), "listed by the server");
      if (mine) assert(mine.includes(verdict.version), "offered by the client");
      return;
    case "modern_retry":
      assertEquals(era(verdict.version), "modern");
      if (mine) assert(mine.includes(verdict.version), "offered by the client");
      return;
    case "authorize":
      assert(verdict.status === 401 || verdict.status === 403, String(verdict.status));
      return;
    case "error":
      assert(MCP_ERROR_KINDS.includes(verdict.error.kind), verdict.error.kind);
      assert(/^[a-z]+(_[a-z]+)*$/.test(verdict.error.reason ?? ""), String(verdict.error.reason));
      return;
    case "legacy":
    case "reconnect_legacy":
    case "retry":
      return;
    default:
      throw new Error(`not a verdict: ${JSON.stringify(verdict)}`);
  }
}

fuzz(
  "classifyProbe: always a valid verdict of the documented shape, and the same one again",
  () =>
    fc.property(
      fc.oneof(fc.constantFrom("stdio", "http"), fc.anything({ maxDepth: 0 })),
      outcome,
      offered,
      (transport, probe, versions) => {
        const run = () =>
          classifyProbe(transport as "stdio" | "http", probe as ProbeOutcome, {
            versions: versions as string[] | undefined,
          });
        const verdict = run();
        checkVerdict(verdict, versions);
        assertEquals(run().verdict, verdict.verdict);
      },
    ),
);

fuzz(
  "classifyProbe: an unauthenticated HTTP answer asks for authorization unless modern",
  () =>
    fc.property(fc.constantFrom(401, 403), body, (status, payload) => {
      const verdict = classifyProbe("http", { kind: "http", status, body: payload as string });
      assert(["authorize", "modern_retry", "error"].includes(verdict.verdict), verdict.verdict);
    }),
);

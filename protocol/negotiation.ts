/**
 * Pure protocol-negotiation decisions: which era a server speaks (from the outcome of a
 * `server/discover` probe), which version to use, and which capabilities to advertise.
 *
 * @module
 */

import { isObject } from "./json.ts";
import { decodeProbeBody, type ProbeBody } from "./_probe_body.ts";
import { isDiscoverShaped, parseDiscoverResult } from "./discover.ts";
import { McpError } from "./errors.ts";
import type { ClassifyProbeOptions, ProbeOutcome, Verdict } from "./probe_types.ts";
import { clientVersions, era, pickVersion } from "./versions.ts";

export { clientVersions, era, pickVersion } from "./versions.ts";
export { clientCapabilities } from "./capabilities.ts";
export type { DiscoverResult } from "./discover.ts";
export type { ClassifyProbeOptions, ProbeOutcome, Verdict } from "./probe_types.ts";

const legacy = (): Verdict => ({ verdict: "legacy" });

/**
 * Whether `code` is one of the modern-era JSON-RPC errors (`-32020` HeaderMismatch,
 * `-32021` MissingRequiredClientCapability, `-32022` UnsupportedProtocolVersion) that prove
 * the server speaks 2026-07-28.
 *
 * @param code Anything.
 * @returns `true` for -32020, -32021 and -32022.
 *
 * @example
 * ```ts
 * import { isModernError } from "./negotiation.ts";
 *
 * if (!isModernError(-32022) || isModernError(-32601) || isModernError("-32022")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function isModernError(code: unknown): boolean {
  return code === -32020 || code === -32021 || code === -32022;
}

function fail(message: string, init: ConstructorParameters<typeof McpError>[1]): Verdict {
  return { verdict: "error", error: new McpError(message, init) };
}

function invalidOutcome(what: string, cause?: unknown): Verdict {
  return fail(`Cannot classify the server/discover probe: ${what}`, {
    kind: "protocol",
    reason: "invalid_probe_outcome",
    cause,
  });
}

function modernVersions(opts: unknown): string[] {
  const given = isObject(opts) && Array.isArray(opts.versions) ? opts.versions : clientVersions();
  return given.filter((version): version is string => era(version) === "modern");
}

function fromResult(result: unknown, versions: string[]): Verdict {
  if (!isDiscoverShaped(result)) return legacy();
  const parsed = parseDiscoverResult(result);
  if (!parsed.ok) {
    return fail(`The server returned an invalid DiscoverResult: ${parsed.reason}`, {
      kind: "protocol",
      reason: "invalid_discover_result",
      data: result,
    });
  }
  const version = pickVersion(parsed.result.supportedVersions, versions);
  if (version === undefined) {
    return fail(
      `The server supports ${parsed.result.supportedVersions.join(", ")}; ` +
        `no modern version in common with ${versions.join(", ") || "(none)"}`,
      { kind: "protocol", reason: "no_common_version", data: parsed.result },
    );
  }
  return { verdict: "modern", version, result: parsed.result };
}

function fromModernError(code: number, data: unknown, versions: string[]): Verdict {
  if (code === -32022) {
    const supported = isObject(data) && Array.isArray(data.supported) ? data.supported : [];
    const version = pickVersion(supported, versions);
    if (version !== undefined) return { verdict: "modern_retry", version };
    return fail("The server supports no modern protocol version this client speaks", {
      kind: "protocol",
      reason: "no_common_version",
      code,
      data,
    });
  }
  const [reason, what] = code === -32021
    ? ["missing_required_client_capability", "requires a client capability (-32021)"]
    : ["header_mismatch", "rejected the request headers (-32020)"];
  return fail(`The modern server ${what}`, { kind: "protocol", reason, code, data });
}

function classifyStdio(outcome: Record<string, unknown>, versions: string[]): Verdict {
  switch (outcome.kind) {
    case "result":
      return fromResult(outcome.result, versions);
    case "error": {
      const error = outcome.error;
      const code = isObject(error) ? error.code : undefined;
      return isModernError(code)
        ? fromModernError(code as number, (error as Record<string, unknown>).data, versions)
        : legacy();
    }
    case "timeout":
      return legacy();
    case "closed":
      return { verdict: "reconnect_legacy" };
    case "transport_error":
      return fail("The stdio transport failed during the server/discover probe", {
        kind: "transport",
        reason: "probe_failed",
        cause: outcome.error,
      });
    default:
      return invalidOutcome(`"${String(outcome.kind)}" is not a stdio outcome`);
  }
}

function isRetryStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

function fromHttp(status: number, body: ProbeBody, versions: string[]): Verdict {
  if (body.type === "error" && isModernError(body.code)) {
    return fromModernError(body.code, body.data, versions);
  }
  if (status === 401 || status === 403) return { verdict: "authorize", status };
  if (isRetryStatus(status)) return { verdict: "retry", reason: { status } };
  if (body.type === "error" && body.code === -32601) return legacy();
  const success = status >= 200 && status <= 299;
  if (success && body.type === "result") return fromResult(body.result, versions);
  if (status === 400 || status === 404 || status === 405) return legacy();
  const code = body.type === "error" ? body.code : undefined;
  const data = body.type === "error" ? body.data : undefined;
  if (success) {
    return fail(
      code === undefined
        ? `HTTP ${status}: the server/discover response is not a JSON-RPC response`
        : `HTTP ${status}: server/discover failed with JSON-RPC error ${code}`,
      { kind: "protocol", reason: "unexpected_probe_response", code, data },
    );
  }
  return fail(`HTTP ${status} from the server/discover probe`, {
    kind: "transport",
    reason: "unexpected_status",
    code,
    data: data ?? { status },
  });
}

function classifyHttp(outcome: Record<string, unknown>, versions: string[]): Verdict {
  switch (outcome.kind) {
    case "http": {
      const status = outcome.status;
      if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) {
        return invalidOutcome(`${String(status)} is not an HTTP status`);
      }
      return fromHttp(status, decodeProbeBody(outcome.contentType, outcome.body), versions);
    }
    case "timeout":
      return { verdict: "retry", reason: "timeout" };
    case "transport_error":
      return { verdict: "retry", reason: outcome.error };
    case "closed":
      return { verdict: "retry", reason: "closed" };
    case "result":
      return fromHttp(200, { type: "result", result: outcome.result }, versions);
    case "error":
      return fromHttp(200, decodeProbeBody(null, { error: outcome.error }), versions);
    default:
      return invalidOutcome(`"${String(outcome.kind)}" is not an HTTP outcome`);
  }
}

/**
 * Classifies the outcome of a `server/discover` probe. Never throws.
 *
 * | Transport | Outcome | Verdict |
 * | --- | --- | --- |
 * | both | valid `DiscoverResult` with a mutual modern version | `modern` |
 * | both | `DiscoverResult`-shaped but invalid, or no mutual modern version | `error` (`protocol`) |
 * | both | a result without `resultType` and `supportedVersions` | `legacy` |
 * | both | `-32022` with a mutual modern version in `data.supported` | `modern_retry` |
 * | both | `-32022` without one | `error` (`no_common_version`) |
 * | both | `-32021` / `-32020` | `error` (`protocol`), never a fallback |
 * | stdio | any other JSON-RPC error, or a timeout | `legacy` |
 * | stdio | the process exited during the probe (`closed`) | `reconnect_legacy` |
 * | http | 401 / 403 | `authorize` |
 * | http | 408 / 429 / 5xx, network error, timeout | `retry`, never a downgrade |
 * | http | 400 / 404 / 405 with a non-modern body | `legacy` |
 * | http | JSON-RPC `-32601` at any other status | `legacy` |
 * | http | any other status or body | `error` (`protocol` for 2xx, else `transport`) |
 *
 * Precedence over HTTP: a modern error code in the body wins at any status; then 401/403;
 * then 408/429/5xx (so `-32601` there is still a `retry`). A 2xx with a JSON-RPC result
 * follows the "both" rows. On HTTP, `closed` reads as a network error and the stdio
 * `result`/`error` outcomes as a 200 carrying them. A recognized modern error is never
 * legacy evidence, and the fallback is never keyed to one error code. Only the modern
 * entries of `opts.versions` count.
 *
 * @param transport `"stdio"` or `"http"`.
 * @param outcome What the probe came back with.
 * @param opts The client's versions.
 * @returns The verdict.
 *
 * @example
 * ```ts
 * import { classifyProbe } from "./negotiation.ts";
 *
 * const verdict = classifyProbe("stdio", {
 *   kind: "result",
 *   result: { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {} },
 * });
 * if (verdict.verdict !== "modern" || verdict.version !== "2026-07-28") throw new Error();
 * const legacy = classifyProbe("http", { kind: "http", status: 404, body: "Not Found" });
 * if (legacy.verdict !== "legacy") throw new Error("expected legacy");
 * ```
 */
export function classifyProbe(
  transport: "stdio" | "http",
  outcome: ProbeOutcome,
  opts: ClassifyProbeOptions = {},
): Verdict {
  try {
    if (!isObject(outcome)) return invalidOutcome("the outcome is not an object");
    const versions = modernVersions(opts);
    if (transport === "stdio") return classifyStdio(outcome, versions);
    if (transport === "http") return classifyHttp(outcome, versions);
    return invalidOutcome(`"${String(transport)}" is not a transport`);
  } catch (cause) {
    return invalidOutcome("the outcome could not be read", cause);
  }
}

/**
 * Private: the client's metrics, through the `meter` option: `mcp.client.operation.duration`
 * (a histogram in seconds, as the OpenTelemetry MCP conventions name it, with `error.type`
 * on failures) and `conduit.mcp.client.errors` (failed requests by `error.type` and the
 * client's error kind).
 *
 * @module
 */

import type { MeterLike, TraceAttributes } from "./types.ts";

/** The bucket boundaries the conventions advise for `mcp.client.operation.duration`. */
const BOUNDARIES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The attributes of a request's span that its metrics keep (low cardinality only). */
const KEPT = [
  "mcp.method.name",
  "gen_ai.tool.name",
  "gen_ai.prompt.name",
  "gen_ai.operation.name",
  "mcp.protocol.version",
  "network.transport",
  "network.protocol.name",
  "server.address",
  "server.port",
  "error.type",
  "rpc.response.status_code",
];

/** Records one request's outcome. */
export type RecordRequest = (
  seconds: number,
  attributes: TraceAttributes,
  errorKind: string | undefined,
) => void;

/**
 * The recorder of a meter's request metrics.
 *
 * @param meter The meter.
 * @returns Records one finished request.
 */
export function requestMetrics(meter: MeterLike): RecordRequest {
  const duration = meter.createHistogram("mcp.client.operation.duration", {
    description: "The duration of an MCP request as the client sees it",
    unit: "s",
    advice: { explicitBucketBoundaries: BOUNDARIES },
  });
  const errors = meter.createCounter("conduit.mcp.client.errors", {
    description: "MCP requests that failed, by error type and kind",
    unit: "{request}",
  });
  return (seconds, attributes, errorKind) => {
    const kept: TraceAttributes = {};
    for (const key of KEPT) if (attributes[key] !== undefined) kept[key] = attributes[key];
    duration.record(seconds, kept);
    if (kept["error.type"] === undefined) return;
    errors.add(1, {
      "mcp.method.name": kept["mcp.method.name"],
      "error.type": kept["error.type"],
      "conduit.error.kind": errorKind ?? "other",
    });
  };
}

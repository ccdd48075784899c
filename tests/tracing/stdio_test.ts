// A real stdio server that reads _meta.traceparent (tests/fixtures/trace_server.ts) joins
// the client's trace, in both eras; and the request metrics through a real meter.
import { createClient } from "../../client/client.ts";
import { stdio } from "../../transports/stdio.ts";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { assert, assertEquals, scriptCommand, test } from "../_harness.ts";
import { memoryTracer, spanNamed } from "./_otel.ts";

const fixture = scriptCommand(new URL("../fixtures/trace_server.ts", import.meta.url));

function traceClient(protocol: "modern" | "legacy", options: Record<string, unknown>) {
  return createClient({
    transport: stdio({ ...fixture, closeGracePeriod: 1_000, terminateGracePeriod: 1_000 }),
    protocol,
    reconnect: false,
    ...options,
  });
}

for (const era of ["modern", "legacy"] as const) {
  test(`tracing (stdio, ${era}): a server reading _meta.traceparent sees the client's trace`, async () => {
    const otel = memoryTracer();
    const seen = await otel.within("agent step", async (step) => {
      await using client = traceClient(era, { tracer: otel.tracer });
      const result = await client.callTool("trace", {});
      assertEquals(client.era(), era);
      return { step: step.spanContext().traceId, ...JSON.parse(String(result.content[0].text)) };
    });
    const call = spanNamed(otel.spans(), "tools/call trace");
    assertEquals(seen.traceId, seen.step, "the server is in the caller's trace");
    assertEquals(seen.traceId, call.spanContext().traceId);
    assertEquals(seen.parentId, call.spanContext().spanId, "its parent is the client span");
    assertEquals(call.attributes["network.transport"], "pipe");
    await otel.shutdown();
  });
}

test("tracing (stdio): no traceparent reaches the server without a tracer", async () => {
  await using client = traceClient("modern", {});
  const result = await client.callTool("trace", {});
  assertEquals(JSON.parse(String(result.content[0].text)).traceId, null);
});

test("tracing: the meter records request durations and errors by kind", async () => {
  const otel = memoryTracer();
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  try {
    await using client = traceClient("modern", {
      tracer: otel.tracer,
      meter: provider.getMeter("conduit-test"),
    });
    await client.listTools();
    await client.callTool("echo", { message: "hi" });
    await client.callTool("no_such_tool", {}).catch(() => {});
    const { resourceMetrics } = await reader.collect();
    const metrics = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    const duration = metrics.find((m) => m.descriptor.name === "mcp.client.operation.duration");
    assert(duration !== undefined, "the duration histogram exists");
    assertEquals(duration.descriptor.unit, "s");
    const methods = duration.dataPoints.map((p) => p.attributes["mcp.method.name"]).sort();
    assertEquals(methods, ["tools/call", "tools/call", "tools/list"]);
    const failed = duration.dataPoints.find((p) => p.attributes["error.type"] !== undefined);
    assertEquals(failed?.attributes["gen_ai.tool.name"], "no_such_tool");
    const errors = metrics.find((m) => m.descriptor.name === "conduit.mcp.client.errors");
    assert(errors !== undefined, "the error counter exists");
    assertEquals(errors.dataPoints.length, 1);
    assertEquals(errors.dataPoints[0].attributes["conduit.error.kind"], "server");
    assertEquals(errors.dataPoints[0].value, 1);
  } finally {
    await provider.shutdown();
    await otel.shutdown();
  }
});

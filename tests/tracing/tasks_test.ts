// A task's polls are spans of their own: each carries its tasks/get request (its id, its
// trace context) and the status the poll saw.
import { createClient } from "../../client/client.ts";
import { inProcess } from "../../transports/in_process.ts";
import { createTasksServer } from "../fixtures/tasks_server.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { FAST } from "../client/_helpers.ts";
import { memoryTracer, parentOf } from "./_otel.ts";

test("tracing: each poll of an awaited task is a span with its request and the status seen", async () => {
  const otel = memoryTracer();
  const server = createTasksServer();
  await otel.within("app", async () => {
    await using client = createClient({
      transport: inProcess(server),
      reconnect: FAST,
      tracer: otel.tracer,
    });
    await client.callTool("slow", {}, { task: "await" });
  });
  const spans = otel.spans();
  const polls = spans.filter((span) => span.name === "mcp.client.task_poll");
  assert(polls.length >= 1, `polls: ${spans.map((s) => s.name).join(", ")}`);
  for (const poll of polls) {
    assert(
      poll.attributes["jsonrpc.request.id"] !== undefined,
      "the poll records its request's id",
    );
  }
  // Outside a poll, no tasks/get goes out: every tasks/get the server saw carried a poll's
  // trace context.
  const polled = server.received.filter((m) => "method" in m && m.method === "tasks/get");
  assertEquals(polled.length, polls.length);
  const app = spans.find((span) => span.name === "app")!;
  for (const poll of polls) assert(parentOf(poll) !== undefined, "a poll has a parent span");
  assertEquals(polls[0].spanContext().traceId, app.spanContext().traceId);
  assert(typeof polls[0].attributes["conduit.task.id"] === "string", "the poll names its task");
  assertEquals(polls.at(-1)!.attributes["conduit.task.status"], "completed");
});

// Issue 24, items 29 and 30: the waits of awaited tasks hold against the server's answers. The
// first `tasks/get` of a modern await keeps to the `pollIntervalMs` of the create answer, and a
// legacy task whose create answer comes after the caller's timeout is cancelled, not left
// running.
import { createClient } from "../../client/client.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { inProcess, type InProcessServer } from "../../transports/in_process.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { FAST, mcpError, waitFor } from "../client/_helpers.ts";
import { createLegacyTasksServer } from "../fixtures/legacy_tasks_server.ts";
import { createTasksServer } from "../fixtures/tasks_server.ts";

test("item 29: the first tasks/get of a modern await waits the create answer's pollIntervalMs", async () => {
  const server = createTasksServer();
  server.pollIntervalMs = 100;
  const client = createClient({ transport: inProcess(server), reconnect: FAST });
  await using _ = client;
  await client.callTool("slow", {}, { task: "await" });
  const [task] = [...server.tasks.values()];
  assertEquals(task.gets.length, 2);
  const first = task.gets[0] - Date.parse(task.createdAt);
  assert(first >= 95, `the first poll came ${first} ms after the create answer`);
  assert(task.gets[1] - task.gets[0] >= 95, `gap ${task.gets[1] - task.gets[0]}`);
});

/** A fixture, its `tools/call` handled only after `delay` ms. */
function lateCreates<S extends InProcessServer>(delay: number, inner: S) {
  const server: InProcessServer = {
    connect(peer) {
      const connection = inner.connect(peer);
      return {
        receive(message) {
          if ("method" in message && message.method === "tools/call" && "id" in message) {
            setTimeout(() => connection.receive(message), delay);
            return;
          }
          connection.receive(message);
        },
        close: () => connection.close?.(),
      };
    },
  };
  return { inner, server };
}

test("item 30: a legacy task whose create answer comes after the timeout is cancelled", async () => {
  const { inner, server } = lateCreates(150, createLegacyTasksServer());
  const client = createClient({
    transport: inProcess(server),
    reconnect: FAST,
    protocol: "legacy",
  });
  await using _ = client;
  await client.ready();
  const error = await mcpError(client.callTool("req", {}, { task: "await", timeout: 50 }));
  assertEquals(error.kind, "timeout");
  await waitFor(() => inner.count("tools/call") === 1, "the late create", 2_000);
  await waitFor(() => inner.count("tasks/cancel") === 1, "tasks/cancel of the late task", 2_000);
  const cancel = inner.received.find((m) => "method" in m && m.method === "tasks/cancel");
  assertEquals((cancel as { params: JsonObject }).params.taskId, "legacy-1");
  // The call itself was cancelled as any timed-out request is.
  assertEquals(inner.count("notifications/cancelled"), 1);
});

test("item 30: a legacy task whose create answer comes after the caller aborted is cancelled", async () => {
  const { inner, server } = lateCreates(100, createLegacyTasksServer());
  const client = createClient({
    transport: inProcess(server),
    reconnect: FAST,
    protocol: "legacy",
  });
  await using _ = client;
  await client.ready();
  const controller = new AbortController();
  const calling = mcpError(
    client.callTool("opt", {}, { task: "await", signal: controller.signal }),
  );
  setTimeout(() => controller.abort(), 20);
  assertEquals((await calling).kind, "cancelled");
  await waitFor(() => inner.count("tasks/cancel") === 1, "tasks/cancel of the late task", 2_000);
  assertEquals(inner.count("tasks/get") + inner.count("tasks/result"), 0, "nothing awaits it");
});

test("item 30: a modern task whose create answer comes after the timeout is cancelled too", async () => {
  const { inner, server } = lateCreates(150, createTasksServer());
  const client = createClient({ transport: inProcess(server), reconnect: FAST });
  await using _ = client;
  await client.ready();
  const error = await mcpError(client.callTool("forever", {}, { task: "await", timeout: 50 }));
  assertEquals(error.kind, "timeout");
  await waitFor(() => inner.tasks.size === 1, "the late create", 2_000);
  const [task] = [...inner.tasks.values()];
  await waitFor(() => task.cancelRequested, "tasks/cancel of the late task", 2_000);
  assertEquals(task.status, "cancelled");
});

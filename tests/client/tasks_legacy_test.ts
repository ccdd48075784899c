// Legacy (2025-11-25) core tasks: every taskSupport rule, the legacy field names, the tool
// definition read from the listing (listed once), isError results of failed tasks, pushed
// status notifications, and cancelling a task that already ended.
import { createClient } from "../../client/client.ts";
import type { McpClient, ToolResult } from "../../client/types.ts";
import { isTask, type Task } from "../../protocol/tasks.ts";
import { inProcess } from "../../transports/in_process.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import {
  createLegacyTasksServer,
  type LegacyTasksOptions,
  type LegacyTasksServer,
} from "../fixtures/legacy_tasks_server.ts";
import { FAST, mcpError } from "./_helpers.ts";

function setup(options: LegacyTasksOptions = {}): { server: LegacyTasksServer; client: McpClient } {
  const server = createLegacyTasksServer(options);
  const client = createClient({
    transport: inProcess(server),
    reconnect: FAST,
    protocol: "legacy",
  });
  return { server, client };
}

const text = (result: ToolResult | Task) =>
  isTask(result) ? `task ${result.status}` : String(result.content[0]?.text);

test("legacy tasks: each taskSupport rule, with and without the task option", async () => {
  const { server, client } = setup();
  await using _ = client;
  await client.ready();
  const table: [string, "return" | "await" | undefined, string, boolean][] = [
    // tool, task option, outcome, sent as a task
    ["req", undefined, "req task done", true],
    ["req", "return", "task working", true],
    ["req", "await", "req task done", true],
    ["opt", undefined, "opt direct", false],
    ["opt", "return", "task working", true],
    ["opt", "await", "opt task done", true],
    ["forb", undefined, "forb direct", false],
    ["forb", "return", "forb direct", false],
    ["forb", "await", "forb direct", false],
    ["plain", "return", "plain direct", false],
  ];
  for (const [tool, task, outcome, asTask] of table) {
    const before = server.calls().length;
    const result = await client.callTool(tool, {}, task === undefined ? {} : { task });
    assertEquals(text(result), outcome, `${tool} with task ${task}`);
    const sent = server.calls().slice(before);
    assertEquals(sent.length, 1);
    assertEquals(sent[0].task !== undefined, asTask, `${tool} with task ${task}: task param`);
  }
  // The definitions came from one listing.
  assertEquals(server.count("tools/list"), 1);
});

test("legacy tasks: without tasks.requests.tools.call no call is a task and nothing is listed", async () => {
  const { server, client } = setup({ declareTasks: false });
  await using _ = client;
  await client.ready();
  const error = await mcpError(client.callTool("req", {}));
  assertEquals([error.kind, error.code], ["server", -32601]);
  assertEquals(text(await client.callTool("opt", {}, { task: "await" })), "opt direct");
  assertEquals(server.calls().every((params) => params.task === undefined), true);
  assertEquals(server.count("tools/list"), 0);
});

test("legacy tasks: a cached listing is used; taskTtl and the legacy field names", async () => {
  const { server, client } = setup();
  await using _ = client;
  await client.listAllTools();
  const task = await client.callTool("opt", {}, { task: "return", taskTtl: 1234 });
  assert(isTask(task));
  assertEquals([task.ttlMs, task.pollIntervalMs], [1234, 15]);
  assertEquals((task as unknown as Record<string, unknown>).pollInterval, undefined);
  assertEquals(server.calls()[0].task, { ttl: 1234 });
  assertEquals(server.count("tools/list"), 1);
});

test("legacy tasks: a task call before the handshake waits for it", async () => {
  const { server, client } = setup();
  await using _ = client;
  const task = await client.callTool("req", {}, { task: "return" });
  assert(isTask(task));
  assertEquals(server.calls()[0].task, {});
});

test("legacy tasks: a failed task with an isError result is a result; tasks/result is held open", async () => {
  const { server, client } = setup();
  await using _ = client;
  const result = await client.callTool("opt", { fail: true }, { task: "await" });
  assertEquals([result.isError, text(result)], [true, "opt task done"]);
  assertEquals(server.count("tasks/result"), 1);
});

test("legacy tasks: notifications/tasks/status reaches onStatus without a poll", async () => {
  const { client } = setup();
  await using _ = client;
  const seen: string[] = [];
  await client.callTool("opt", { push: true }, {
    task: "await",
    onStatus: (t) => seen.push(`${t.status}:${t.statusMessage ?? ""}`),
  });
  assert(seen.includes("working:pushed"), `seen ${seen}`);
  assertEquals(seen.at(-1), "completed:");
});

test("legacy tasks: cancel, and cancelling a task that already ended gives its end", async () => {
  const { client } = setup();
  await using _ = client;
  const task = await client.callTool("opt", {}, { task: "return" }) as Task;
  const awaiting = mcpError(client.awaitTask(task));
  const cancelled = await client.cancelTask(task);
  assertEquals(cancelled.status, "cancelled");
  const error = await awaiting;
  assertEquals([error.kind, error.reason], ["cancelled", "task_cancelled"]);
  assertEquals((await client.cancelTask(task.taskId)).status, "cancelled");
  const done = await client.callTool("opt", {}, { task: "return" }) as Task;
  await client.awaitTask(done);
  assertEquals((await client.cancelTask(done)).status, "completed");
});

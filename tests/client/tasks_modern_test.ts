// Modern tasks (the io.modelcontextprotocol/tasks extension) against the fixture that speaks
// its wire: return and await, input asked mid-task, cancel on timeout and on abort, a changed
// pollIntervalMs, a task that completes after cancel, an expired task, a failed one, -32021.
import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient, ToolResult } from "../../client/types.ts";
import { isTask, type Task } from "../../protocol/tasks.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { inProcess } from "../../transports/in_process.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { createTasksServer, type TasksServer } from "../fixtures/tasks_server.ts";
import { FAST, mcpError, waitFor } from "./_helpers.ts";

const CAPS = "io.modelcontextprotocol/clientCapabilities";

function setup(options: Partial<ClientOptions> = {}): { server: TasksServer; client: McpClient } {
  const server = createTasksServer();
  const client = createClient({ transport: inProcess(server), reconnect: FAST, ...options });
  return { server, client };
}

function declared(message: JsonRpcMessage): boolean {
  const params = (message as { params?: JsonObject }).params;
  const caps = (params?._meta as JsonObject | undefined)?.[CAPS] as JsonObject | undefined;
  return typeof (caps?.extensions as JsonObject | undefined)?.["io.modelcontextprotocol/tasks"] ===
    "object";
}

function sent(server: TasksServer, method: string): JsonRpcMessage[] {
  return server.received.filter((m) => "method" in m && m.method === method);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}

const text = (result: ToolResult) => String(result.content[0]?.text);

test("modern tasks: return gives the task, awaitTask its result, onStatus each status", async () => {
  const { server, client } = setup();
  await using _ = client;
  const task = await client.callTool("slow", {}, { task: "return" });
  assert(isTask(task));
  assertEquals([task.status, task.statusMessage, task.ttlMs], ["working", "started", 60_000]);
  assert(declared(sent(server, "tools/call")[0]), "the call declared the tasks extension");
  const seen: string[] = [];
  const result = await client.awaitTask(task, {
    onStatus: (t) => seen.push(`${t.status} ${t.statusMessage ?? ""}`),
  });
  assertEquals(text(result), "slow done {}");
  // The status the task was returned with is not reported again; each change is.
  assertEquals(seen, ["working step 1", "completed "]);
  assert(sent(server, "tasks/get").every(declared), "every tasks/get declared the extension");
});

test("modern tasks: without task the extension is not declared and the server answers directly", async () => {
  const { server, client } = setup();
  await using _ = client;
  const result = await client.callTool("slow", {});
  assertEquals(text(result), "slow done directly");
  assertEquals(declared(sent(server, "tools/call")[0]), false);
});

test("modern tasks: a tool the server runs only as a task is -32021, reason task_required", async () => {
  const { client } = setup();
  await using _ = client;
  const error = await mcpError(client.callTool("only_task", {}));
  assertEquals([error.reason, error.code], ["task_required", -32021]);
  assertStringIncludes(error.message, 'only as a task: call it with { task: "await" }');
  const result = await client.callTool("only_task", {}, { task: "await" });
  assertEquals(text(result), "only_task done {}");
});

test("modern tasks: input asked mid-task is answered by the handler once, with assigns", async () => {
  const asked: unknown[] = [];
  const { server, client } = setup({
    handler: {
      elicitation(params, ctx) {
        asked.push([params.message, ctx.assigns]);
        return { action: "accept", content: { colour: "teal" } };
      },
    },
  });
  await using _ = client;
  const result = await client.callTool("ask", {}, { task: "await", assigns: { user: "ada" } });
  assertStringIncludes(text(result), '"colour":"teal"');
  // The poll after the answer still listed the question: it was not asked again.
  assertEquals(asked, [["Which colour?", { user: "ada" }]]);
  const updates = sent(server, "tasks/update");
  assertEquals(updates.length, 1);
  const params = (updates[0] as { params: JsonObject }).params;
  assertEquals((params.inputResponses as JsonObject).q1, {
    action: "accept",
    content: { colour: "teal" },
  });
});

test("modern tasks: the timeout bounds the whole wait, then the task is cancelled", async () => {
  const { server, client } = setup();
  await using _ = client;
  const error = await mcpError(client.callTool("forever", {}, { task: "await", timeout: 150 }));
  assertEquals([error.kind, error.reason], ["timeout", "task_timeout"]);
  const [task] = [...server.tasks.values()];
  assertEquals(task.cancelRequested, true);
  assertEquals(sent(server, "tasks/cancel").length, 1);
});

test("modern tasks: the caller's abort cancels the task", async () => {
  const { server, client } = setup();
  await using _ = client;
  const controller = new AbortController();
  const waiting = client.callTool("forever", {}, {
    task: "await",
    signal: controller.signal,
    onStatus: (t) => {
      if (t.statusMessage === "started") setTimeout(() => controller.abort(), 0);
    },
  });
  const error = await mcpError(waiting);
  assertEquals(error.kind, "cancelled");
  assertEquals([...server.tasks.values()][0].cancelRequested, true);
});

test("modern tasks: polls keep to the task's pollIntervalMs, as it changes", async () => {
  const { server, client } = setup();
  await using _ = client;
  server.pollIntervalMs = 40;
  await client.callTool("slow", {}, { task: "await" });
  const slow = [...server.tasks.values()][0];
  assert(gaps(slow.gets).every((gap) => gap >= 39), `gaps ${gaps(slow.gets)}`);
  const changed = await client.callTool("interval", {}, { task: "return" }) as Task;
  await client.awaitTask(changed);
  const polls = server.tasks.get(changed.taskId)!.gets;
  assertEquals(polls.length, 4);
  const [first, second, third] = gaps(polls);
  assert(first >= 9, `first gap ${first}`);
  assert(second >= 149 && third >= 149, `gaps after the change ${second}, ${third}`);
});

test("modern tasks: a task that completes after cancel is reported as completed", async () => {
  const { client } = setup();
  await using _ = client;
  const task = await client.callTool("stubborn", {}, { task: "return" }) as Task;
  const awaiting = client.awaitTask(task);
  const after = await client.cancelTask(task);
  assertEquals(after.status, "completed");
  assertEquals(text(await awaiting), "stubborn done {}");
});

test("modern tasks: an expired task is kind not_found, reason task_expired", async () => {
  const { client } = setup();
  await using _ = client;
  const task = await client.callTool("brief", {}, { task: "return" }) as Task;
  await new Promise((resolve) => setTimeout(resolve, 5));
  // Known expired from createdAt + ttlMs, without asking…
  const local = await mcpError(client.awaitTask(task));
  assertEquals([local.kind, local.reason], ["not_found", "task_expired"]);
  // …and from the server's -32602 when only the id is known.
  const remote = await mcpError(client.getTask(task.taskId));
  assertEquals([remote.kind, remote.reason], ["not_found", "task_expired"]);
  const awaited = await mcpError(client.awaitTask(task.taskId));
  assertEquals(awaited.reason, "task_expired");
});

test("modern tasks: a failed task is the server's error; a bad option a TypeError", async () => {
  const { client } = setup();
  await using _ = client;
  const error = await mcpError(client.callTool("broken", {}, { task: "await" }));
  assertEquals([error.kind, error.code], ["server", -32603]);
  assertStringIncludes(error.message, "the tool broke");
  let thrown: unknown;
  await client.callTool("slow", {}, { task: "later" as never }).catch((e) => thrown = e);
  assert(thrown instanceof TypeError);
  thrown = undefined;
  await client.awaitTask("", {}).catch((e) => thrown = e);
  assert(thrown instanceof TypeError);
});

test("modern tasks: pushed notifications/tasks on a listen stand in for the next poll", async () => {
  const { server, client } = setup();
  await using _ = client;
  server.pollIntervalMs = 60_000; // without the push the await would poll only once a minute
  const task = await client.callTool("forever", {}, { task: "return" }) as Task;
  const awaiting = client.awaitTask(task, { timeout: 30_000 });
  const listen = () =>
    sent(server, "subscriptions/listen").find((m) => {
      const params = (m as { params: JsonObject }).params;
      return ((params.notifications as JsonObject).taskIds as string[] | undefined)?.includes(
        task.taskId,
      );
    });
  // The task given is working: the first poll too waits its interval, so the push comes first.
  await waitFor(() => listen() !== undefined, "the listen");
  assert(declared(listen()!), "the listen declared the tasks extension");
  const kept = server.tasks.get(task.taskId)!;
  kept.status = "completed";
  assertEquals(server.push(task.taskId), 1);
  assertEquals(text(await awaiting), "forever done {}");
  assertEquals(sent(server, "tasks/get").length, 0);
});

test("modern tasks: an input_required round before the task keeps the extension declared", async () => {
  const { server, client } = setup({
    handler: { elicitation: () => ({ action: "accept", content: { colour: "blue" } }) },
  });
  await using _ = client;
  const result = await client.callTool("confirm", {}, { task: "await" });
  assertEquals(text(result), "confirm done {}");
  const calls = sent(server, "tools/call");
  assertEquals(calls.length, 2);
  assert(calls.every(declared), "both rounds declared the tasks extension");
});

test("modern tasks: a task another client cancels ends the wait as task_cancelled", async () => {
  const { server, client } = setup();
  await using _ = client;
  const task = await client.callTool("forever", {}, { task: "return" }) as Task;
  await using other = createClient({ transport: inProcess(server), reconnect: FAST });
  const awaiting = mcpError(client.awaitTask(task));
  assertEquals((await other.cancelTask(task.taskId)).status, "cancelled");
  const error = await awaiting;
  assertEquals([error.kind, error.reason], ["cancelled", "task_cancelled"]);
});

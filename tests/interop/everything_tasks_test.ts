// Interop of server tasks with the real @modelcontextprotocol/server-everything (SDK v1,
// legacy 2025-11-25 core tasks): its `simulate-research-query` tool has
// `execution.taskSupport: "required"` and, with `ambiguous: true`, asks for input by
// elicitation while the task is `input_required`. Over stdio and over Streamable HTTP:
// return, await, a plain call awaited as a task and the elicitation answered by the handler
// (those four at once, as the server takes seconds over each), then cancel.
import { connect, isTask, type McpClient, type Task, type ToolResult } from "../../mod.ts";
import type { ClientHandler } from "../../protocol/capabilities.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { startEverythingHttp } from "./_everything_http.ts";

const everything = new URL(
  "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;

const TOOL = "simulate-research-query";

function text(result: ToolResult): string {
  return result.content.map((block) => String(block.text ?? "")).join("\n");
}

function host() {
  const asked: Record<string, unknown>[] = [];
  const relatedTasks: unknown[] = [];
  const assigns: unknown[] = [];
  const handler: ClientHandler = {
    elicitation(params, ctx) {
      asked.push(params);
      assigns.push(ctx.assigns);
      relatedTasks.push(
        (params._meta as Record<string, unknown> | undefined)?.[
          "io.modelcontextprotocol/related-task"
        ],
      );
      return { action: "accept", content: { interpretation: "historical" } };
    },
  };
  return { handler, asked, relatedTasks, assigns };
}

/** `task: "return"`: the task at once, in the client's field names, awaited afterwards. */
async function returnThenAwait(client: McpClient): Promise<void> {
  const returned = await client.callTool(TOOL, { topic: "tides" }, { task: "return" });
  assert(isTask(returned), "a task");
  const task = returned as Task;
  assertEquals(task.status, "working");
  assertEquals(task.pollIntervalMs, 1000);
  assertEquals(task.ttlMs, 300000);
  assertEquals((task as unknown as Record<string, unknown>).ttl, undefined);
  const read = await client.getTask(task);
  assertEquals(read.taskId, task.taskId);
  // ...and awaited afterwards, with each status seen.
  const seen: string[] = [];
  const awaited = await client.awaitTask(task, {
    timeout: 30_000,
    onStatus: (t) => seen.push(`${t.status}:${t.statusMessage ?? ""}`),
  });
  assertStringIncludes(text(awaited), "Research Report: tides");
  assert(seen.length > 0, "onStatus saw the task");
}

async function exercise(client: McpClient, h: ReturnType<typeof host>): Promise<void> {
  assertEquals(client.era(), "legacy");

  // Four tasks at once (each takes the server seconds): return then await, await, a plain
  // call, and one that asks for input.
  const [, result, plain, clarified] = await Promise.all([
    returnThenAwait(client),
    // await: polled to the end.
    client.callTool(TOOL, { topic: "moons" }, { task: "await", timeout: 30_000 }),
    // A plain call to the required tool is awaited as a task.
    client.callTool(TOOL, { topic: "comets" }, { timeout: 30_000 }),
    // The elicitation the task sends (tagged with its related-task _meta) goes to the handler.
    client.callTool(TOOL, { topic: "rivers", ambiguous: true }, {
      task: "await",
      timeout: 30_000,
      assigns: { user: "ada" },
    }),
  ]);
  assert(!isTask(result));
  assertStringIncludes(text(result), "Research Report: moons");
  assertStringIncludes(text(plain), "Research Report: comets");
  assertEquals(h.asked.length, 1);
  // The request carried the task's related-task _meta: the caller's assigns came with it.
  assertEquals(h.assigns, [{ user: "ada" }]);
  assertStringIncludes(String(h.asked[0].message), "rivers");
  assertEquals(
    (h.relatedTasks[0] as Record<string, unknown> | undefined)?.taskId !== undefined,
    true,
  );
  assertStringIncludes(text(clarified), "Research Report: rivers (historical)");

  // cancel: acknowledged, the task ends cancelled.
  const doomed = await client.callTool(TOOL, { topic: "lakes" }, { task: "return" }) as Task;
  const cancelled = await client.cancelTask(doomed);
  assertEquals(cancelled.taskId, doomed.taskId);
  assertEquals(cancelled.status, "cancelled");
  assertEquals((await client.getTask(doomed.taskId)).status, "cancelled");
  // Cancelling a task that already ended resolves with that end.
  assertEquals((await client.cancelTask(doomed.taskId)).status, "cancelled");
}

test("server-everything over stdio: tasks returned, awaited, answered and cancelled", async () => {
  const h = host();
  await using client = await connect({
    command: "node",
    args: [everything, "stdio"],
    closeGracePeriod: 1_000,
    terminateGracePeriod: 1_000,
  }, { handler: h.handler, requestTimeout: 30_000, reconnect: false });
  await exercise(client, h);
}, { timeout: 90_000 });

test("server-everything over HTTP: tasks returned, awaited, answered and cancelled", async () => {
  await using server = await startEverythingHttp();
  const h = host();
  await using client = await connect(server.url, {
    handler: h.handler,
    requestTimeout: 30_000,
    reconnect: false,
  });
  await exercise(client, h);
}, { timeout: 90_000 });

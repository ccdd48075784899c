// Issue 24, the hub's items: task owners, routing names, URI templates, restart backoff.
import { hub } from "../../hub/hub.ts";
import { mockServer } from "../../testing/mod.ts";
import { isTask } from "../../protocol/tasks.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";

const worker = (server: string) =>
  mockServer({
    serverInfo: { name: server, version: "1.0.0" },
    tools: [{ name: "long", task: "required", handler: () => `${server}:done` }],
    tasks: { pollIntervalMs: 5 },
  });

test("item 17: two servers reusing a task id each answer for their own task", async () => {
  const a = worker("a");
  const b = worker("b");
  await using servers = hub({ servers: { a: a.transport(), b: b.transport() } });
  const first = await servers.callTool("a__long", {}, { task: "return" });
  const second = await servers.callTool("b__long", {}, { task: "return" });
  assert(isTask(first) && isTask(second), "tasks");
  assertEquals(first.taskId, second.taskId);
  assertEquals((first as { server?: string }).server, "a");
  assertEquals((second as { server?: string }).server, "b");
  const result = await servers.awaitTask(first, { timeout: 10_000 });
  assertEquals(result.content[0].text, "a:done");
  assertEquals((await servers.awaitTask(second, { timeout: 10_000 })).content[0].text, "b:done");
  const ambiguous = await mcpError(servers.getTask(first.taskId));
  assertEquals(ambiguous.reason, "ambiguous_task");
});

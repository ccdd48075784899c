// Modern tasks over Streamable HTTP against the tasks fixture, whose server refuses any
// tasks/* request without a matching `Mcp-Name: <taskId>`: return, input, cancel, and a task
// resumed by a second process (a real child process with a new client).
import { spawn } from "node:child_process";
import process from "node:process";
import { connect } from "../../client/connect.ts";
import { isTask, type Task } from "../../protocol/tasks.ts";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";
import { createTasksServer } from "../fixtures/tasks_server.ts";
import { serveTasksHttp } from "../fixtures/tasks_http_server.ts";

const resumer = scriptCommand(new URL("../fixtures/task_resume_client.ts", import.meta.url));

function runChild(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(resumer.command, [...resumer.args, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => out += chunk);
    child.once("error", reject);
    child.once("exit", () => resolve(out.trim()));
  });
}

test("modern tasks over HTTP: Mcp-Name carries the task id; input and cancel", async () => {
  const server = createTasksServer();
  await using http = await serveTasksHttp(server);
  await using client = await connect(new URL("/mcp", http.url).href, {
    reconnect: false,
    handler: { elicitation: () => ({ action: "accept", content: { colour: "red" } }) },
  });
  assertEquals(client.era(), "modern");
  const task = await client.callTool("ask", {}, { task: "return" });
  assert(isTask(task));
  assertEquals((await client.getTask(task)).status, "input_required");
  const result = await client.awaitTask(task);
  assertStringIncludes(String(result.content[0].text), '"colour":"red"');
  const doomed = await client.callTool("forever", {}, { task: "return" }) as Task;
  assertEquals((await client.cancelTask(doomed)).status, "cancelled");
  // Every tasks/* request passed the server's header check.
  const methods = server.received.map((m) => "method" in m ? m.method : "");
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    assert(methods.includes(method), `${method} was sent and accepted`);
  }
});

test("modern tasks over HTTP: a second process resumes the task by its id", async () => {
  const server = createTasksServer();
  await using http = await serveTasksHttp(server);
  const url = new URL("/mcp", http.url).href;
  let task: Task;
  {
    await using first = await connect(url, { reconnect: false });
    task = await first.callTool("slow", {}, { task: "return" }) as Task;
  }
  // The Task is plain JSON: a restarted worker gets it back from storage.
  const stored = JSON.parse(JSON.stringify(task)) as Task;
  const line = await runChild([url, stored.taskId]);
  const { pid, result } = JSON.parse(line);
  assert(pid !== process.pid, "another process");
  assertEquals(result.content[0].text, "slow done {}");
  // A task the server no longer has is not_found / task_expired there too.
  const gone = JSON.parse(await runChild([url, "no-such-task"]));
  assertEquals(gone.error, { kind: "not_found", reason: "task_expired" });
}, { timeout: 60_000 });

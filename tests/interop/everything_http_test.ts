// Interop over Streamable HTTP with the real @modelcontextprotocol/server-everything
// (SDK v1, legacy era only) in streamableHttp mode, bound to 127.0.0.1 and stopped by each
// test. The client comes from the edge entry (http.ts) and negotiates with `auto`.
import { connect, type McpClient, type Progress, type ToolResult } from "../../http.ts";
import {
  assert,
  assertArrayIncludes,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  test,
} from "../_harness.ts";
import { type EverythingHttp, startEverythingHttp } from "./_everything_http.ts";

function text(result: ToolResult): string {
  return result.content.map((block) => String(block.text ?? "")).join("");
}

async function connectTo(server: EverythingHttp): Promise<McpClient> {
  return await connect(server.url, { requestTimeout: 15_000, reconnect: false });
}

test("server-everything over HTTP: auto negotiates legacy; tools list and call", async () => {
  await using server = await startEverythingHttp();
  await using client = await connectTo(server);
  assertEquals(client.era(), "legacy");
  const info = client.serverInfo();
  assertEquals(info.serverInfo?.name, "mcp-servers/everything");
  assertEquals(info.version, "2025-11-25");
  assert(typeof info.capabilities.tools === "object", "tools capability");

  const tools = await client.listAllTools();
  assertArrayIncludes(tools.map((t) => t.name), [
    "echo",
    "get-sum",
    "get-structured-content",
    "trigger-long-running-operation",
  ]);
  assertEquals(
    text(await client.callTool("echo", { message: "héllo over HTTP" })),
    "Echo: héllo over HTTP",
  );
  assertStringIncludes(text(await client.callTool("get-sum", { a: 2, b: 40 })), "42");
  const structured = await client.callTool("get-structured-content", { location: "Chicago" });
  assertEquals(structured.isError, false);
  assert(
    typeof structured.structuredContent === "object" && structured.structuredContent !== null,
    "structured content comes through",
  );
  // A tool that fails validation is a normal result with isError, not a thrown error.
  const bad = await client.callTool("get-sum", { a: "two" });
  assertEquals(bad.isError, true);
}, { timeout: 60_000 });

test("server-everything over HTTP: prompts, resources, templates, completion", async () => {
  await using server = await startEverythingHttp();
  await using client = await connectTo(server);

  const prompts = await client.listAllPrompts();
  assertArrayIncludes(prompts.map((p) => p.name), ["simple-prompt", "args-prompt"]);
  const simple = await client.getPrompt("simple-prompt");
  assert(simple.messages.length > 0, "simple-prompt has messages");
  const prompt = await client.getPrompt("args-prompt", { city: "Paris", state: undefined });
  assertStringIncludes(JSON.stringify(prompt.messages), "Paris");

  const resources = await client.listAllResources();
  assert(resources.length > 0, "the server lists resources");
  const first = resources.find((r) => !r.uri.includes("gzip")) ?? resources[0];
  const read = await client.readResource(first.uri);
  assertEquals(read.contents[0].uri, first.uri);

  const templates = await client.listAllResourceTemplates();
  assert(
    templates.some((t) => t.uriTemplate.startsWith("demo://resource/dynamic/text/")),
    JSON.stringify(templates.map((t) => t.uriTemplate)),
  );
  const dynamic = await client.readResource("demo://resource/dynamic/text/7");
  assertEquals(dynamic.contents[0].uri, "demo://resource/dynamic/text/7");
  assert(typeof dynamic.contents[0].text === "string", "a text resource from the template");

  const departments = await client.complete({ prompt: "completable-prompt" }, ["department", "E"]);
  assertEquals(departments.completion.values, ["Engineering"]);
  const names = await client.complete({ prompt: "completable-prompt" }, ["name", ""], {
    context: { arguments: { department: "Sales" } },
  });
  assertEquals(names.completion.values, ["David", "Eve", "Frank"]);
}, { timeout: 60_000 });

test("server-everything over HTTP: progress from trigger-long-running-operation", async () => {
  await using server = await startEverythingHttp();
  await using client = await connectTo(server);
  const progress: Progress[] = [];
  const result = await client.callTool(
    "trigger-long-running-operation",
    { duration: 0.6, steps: 3 },
    { onProgress: (p) => progress.push(p), timeout: 10_000 },
  );
  assertStringIncludes(text(result), "Long running operation completed");
  assertEquals(progress.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]]);
}, { timeout: 60_000 });

test("server-everything over HTTP: close() DELETEs the session", async () => {
  await using server = await startEverythingHttp();
  const client = await connectTo(server);
  await client.ping();
  const initialized = await server.waitForLog(/^Session initialized with ID: /);
  const sessionId = initialized.slice("Session initialized with ID: ".length).trim();
  assertMatch(sessionId, /^[0-9a-f-]{36}$/);

  await client.close();
  assertEquals(client.status().state, "closed");
  await server.waitForLog(
    new RegExp(`^Received session termination request for session ${sessionId}`),
  );
  // The session is gone on the server: a request with its id is refused.
  const response = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await response.body?.cancel();
  assertEquals(response.status, 400);
}, { timeout: 60_000 });

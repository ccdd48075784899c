// The sessions the cassette tests record and replay: what a host does against a server, and
// what it saw (plain JSON, so a replay can be compared with the recording and across runtimes).
import type { McpClient, ToolResult } from "../../client/types.ts";
import type { ClientHandler } from "../../protocol/capabilities.ts";

/** The client options of the recorded sessions. */
export const SCENARIO_OPTIONS = { clientInfo: { name: "cassette-host", version: "1.0.0" } };

function content(result: ToolResult): unknown {
  return {
    content: result.content,
    isError: result.isError ?? false,
    structured: result.structuredContent ?? null,
  };
}

/** A legacy session with server-everything: tools, a long operation with progress, a prompt, a resource. */
export async function everythingSession(client: McpClient): Promise<unknown> {
  const tools = (await client.listAllTools()).map((tool) => tool.name).sort();
  const progress: number[] = [];
  const long = await client.callTool(
    "trigger-long-running-operation",
    { duration: 0.2, steps: 2 },
    {
      onProgress: (p) => progress.push(p.progress),
    },
  );
  return {
    era: client.era(),
    version: client.serverInfo().version,
    server: client.serverInfo().serverInfo?.name,
    tools,
    echo: content(await client.callTool("echo", { message: "recorded" })),
    sum: content(await client.callTool("get-sum", { a: 2, b: 3 })),
    long: content(long),
    progress,
    prompt: (await client.getPrompt("simple-prompt")).messages,
    resource: (await client.readResource("demo://resource/static/document/architecture.md"))
      .contents
      .map((c) => String(c.text ?? "").length),
  };
}

/** The handler of the fixture session (answers the fixture's MRTR round). */
export const FIXTURE_HANDLER: ClientHandler = {
  elicitation: () => ({ action: "accept", content: { name: "Ada" } }),
};

/** A modern session with the test fixture over HTTP: lists, calls, progress, MRTR, a prompt, completion. */
export async function fixtureSession(client: McpClient): Promise<unknown> {
  const progress: number[] = [];
  const slow = await client.callTool("slow", { ms: 20, steps: 2 }, {
    onProgress: (p) => progress.push(p.progress),
  });
  const ask = {
    method: "elicitation/create",
    params: {
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    },
  };
  return {
    era: client.era(),
    version: client.serverInfo().version,
    tools: (await client.listAllTools()).map((tool) => tool.name),
    echo: content(await client.callTool("echo", { message: "recorded" })),
    structured: content(await client.callTool("structured", {})),
    fail: content(await client.callTool("fail", {})),
    slow: content(slow),
    progress,
    mrtr: content(await client.callTool("mrtr", { plan: [{ who: ask }] })),
    prompt: (await client.getPrompt("greeting", { name: "Ada" })).messages,
    resource: (await client.readResource("test://resource1")).contents,
    completion:
      (await client.complete({ prompt: "greeting" }, { name: "name", value: "G" })).completion,
  };
}

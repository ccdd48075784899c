// Governance against real servers: the modern fixture (@modelcontextprotocol/server 2.x)
// and server-everything (SDK v1, legacy era), both over stdio. What reaches each server is
// counted on its side: the fixture's wire log, and a tap in front of server-everything.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "../../mod.ts";
import type { ApprovalRequest, ConnectOptions, McpClient, ToolResult } from "../../mod.ts";
import { assertEquals, scriptCommand, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";

const EVERYTHING = new URL(
  "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;
const TAP = new URL("../fixtures/stdio_tap.mjs", import.meta.url).pathname;

/** A governed client over a stdio server, and how many `tools/call` reached the server. */
async function governed(
  server: "modern" | "everything",
  options: ConnectOptions,
): Promise<{ client: McpClient; toolCalls(): number; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "conduit-governance-"));
  const log = join(dir, "received.jsonl");
  const target: { command: string; args: string[]; env: Record<string, string> } =
    server === "modern"
      ? {
        ...scriptCommand(new URL("../fixtures/modern_sdk_server.ts", import.meta.url)),
        env: { MODERN_SDK_WIRE_LOG: log },
      }
      : { command: "node", args: [TAP, "node", EVERYTHING, "stdio"], env: { TAP_LOG: log } };
  const client = await connect(
    { ...target, closeGracePeriod: 1_000, terminateGracePeriod: 1_000 },
    {
      requestTimeout: 20_000,
      readyTimeout: 30_000,
      reconnect: false,
      ...options,
    },
  );
  const toolCalls = () => {
    let text = "";
    try {
      text = readFileSync(log, "utf8");
    } catch {
      return 0;
    }
    return text.split("\n").filter(Boolean).map((line) => JSON.parse(line))
      .map((entry) => entry.message ?? entry)
      .filter((message) => message.method === "tools/call").length;
  };
  return {
    client,
    toolCalls,
    async [Symbol.asyncDispose]() {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function text(result: unknown): string {
  return (result as ToolResult).content.map((block) => String(block.text ?? "")).join("");
}

test("governance interop, modern fixture: filter, validation and an asking policy", async () => {
  const asked: ApprovalRequest[] = [];
  let answer: "allow" | "deny" = "deny";
  await using server = await governed("modern", {
    tools: { deny: ["whoami", "weather"] },
    validate: true,
    policy: {
      rules: [
        { name: "reads", annotations: { readOnlyHint: true }, decision: "allow" },
        { name: "destroys", annotations: { destructiveHint: true }, decision: "ask" },
      ],
      approver: (request) => (asked.push(request), answer),
    },
  });
  const { client, toolCalls } = server;
  const names = (await client.listAllTools()).map((t) => t.name).sort();
  assertEquals(names, ["add", "count", "echo", "erase", "peek"]);
  assertEquals(client.cachedTools().some((t) => t.name === "whoami"), false);
  const hidden = await mcpError(client.callTool("whoami", {}));
  assertEquals([hidden.kind, hidden.reason], ["not_found", "hidden_tool"]);
  const invalid = await mcpError(client.callTool("add", { a: "2", b: 40 }));
  assertEquals([invalid.kind, invalid.reason], ["validation", "invalid_arguments"]);
  assertEquals((invalid.data as { path: string }[])[0].path, "/a");
  assertEquals(toolCalls(), 0, "neither reached the server");
  assertEquals(text(await client.callTool("peek", { note: "n1" })), "the note n1");
  assertEquals([asked.length, toolCalls()], [0, 1], "a read-only tool is allowed unasked");
  const refused = await mcpError(client.callTool("erase", { note: "n1" }));
  assertEquals([refused.kind, refused.reason], ["denied", "approver_denied"]);
  assertEquals(refused.data, { decision: "ask", rule: 1, ruleName: "destroys" });
  assertEquals(toolCalls(), 1, "a denied call is not sent");
  answer = "allow";
  assertEquals(text(await client.callTool("erase", { note: "n1" })), "erased n1");
  assertEquals(toolCalls(), 2);
  assertEquals(asked.map((r) => [r.name, r.arguments, r.tool.annotations?.destructiveHint]), [
    ["erase", { note: "n1" }, true],
    ["erase", { note: "n1" }, true],
  ]);
}, { timeout: 60_000 });

test("governance interop, server-everything: filter, validation and policy", async () => {
  const asked: string[] = [];
  await using server = await governed("everything", {
    tools: { deny: ["get-env", "trigger-*"] },
    validate: true,
    policy: {
      rules: [
        { annotations: { readOnlyHint: true }, decision: "allow" },
        { annotations: { readOnlyHint: false }, decision: "ask" },
      ],
      approver: (request) => (asked.push(request.name), "deny"),
    },
  });
  const { client, toolCalls } = server;
  assertEquals(client.era(), "legacy");
  const names = (await client.listAllTools()).map((t) => t.name);
  assertEquals(names.includes("echo") && names.includes("get-sum"), true);
  assertEquals(names.filter((n) => n === "get-env" || n.startsWith("trigger-")), []);
  const hidden = await mcpError(client.callTool("get-env", {}));
  assertEquals([hidden.kind, hidden.reason], ["not_found", "hidden_tool"]);
  const invalid = await mcpError(client.callTool("get-sum", { a: "1", b: 2 }));
  assertEquals([invalid.kind, invalid.reason], ["validation", "invalid_arguments"]);
  assertEquals(toolCalls(), 0, "neither reached the server");
  assertEquals(text(await client.callTool("get-sum", { a: 1, b: 2 })).includes("3"), true);
  assertEquals(text(await client.callTool("echo", { message: "hi" })).includes("hi"), true);
  assertEquals([asked, toolCalls()], [[], 2], "read-only tools are allowed unasked");
  const refused = await mcpError(client.callTool("toggle-simulated-logging", {}));
  assertEquals([refused.kind, refused.reason], ["denied", "approver_denied"]);
  assertEquals([asked, toolCalls()], [["toggle-simulated-logging"], 2]);
}, { timeout: 60_000 });

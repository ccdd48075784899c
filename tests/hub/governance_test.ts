// Governance for the whole hub (one pipeline over hub names, ctx.server the owning server)
// and per server (a server entry's client options, on the server's own names).
import { hub } from "../../hub/hub.ts";
import { CALL_TOOL, SEARCH_TOOLS } from "../../hub/lazy.ts";
import type { ApprovalRequest } from "../../governance/options.ts";
import type { GovernanceContext } from "../../governance/types.ts";
import { mockServer } from "../../testing/mod.ts";
import { assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { toolServer } from "./_helpers.ts";

const calls = (server: ReturnType<typeof mockServer>) =>
  server.requests.filter((r) => r.method === "tools/call").length;

test("hub governance: a filter over hub names hides a server's tools from listing and calling", async () => {
  const docs = toolServer("docs", ["search", "fetch"]);
  const mail = toolServer("mail", ["send"]);
  await using servers = hub({
    servers: { docs: docs.transport(), mail: mail.transport() },
    governance: { tools: { deny: ["mail__*", "docs__fetch"] } },
  });
  assertEquals((await servers.listAllTools()).map((t) => t.name), ["docs__search"]);
  const hidden = await mcpError(servers.callTool("mail__send"));
  assertEquals([hidden.kind, hidden.reason], ["not_found", "hidden_tool"]);
  assertEquals(calls(mail), 0);
  assertEquals((await servers.callTool("docs__search")).content[0].text, "docs:search");
});

test("hub governance: policy rules match servers; the approver sees the server, the hub name and validated arguments", async () => {
  const schema = {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  };
  const files = mockServer({
    tools: [
      { name: "delete", inputSchema: schema, handler: () => "deleted" },
      {
        name: "read",
        inputSchema: schema,
        annotations: { readOnlyHint: true },
        handler: () => "r",
      },
    ],
  });
  const asked: [ApprovalRequest, GovernanceContext][] = [];
  await using servers = hub({
    servers: { files: files.transport(), docs: toolServer("docs", ["search"]).transport() },
    governance: {
      validate: true,
      policy: {
        rules: [
          { name: "reads", annotations: { readOnlyHint: true }, decision: "allow" },
          { name: "files ask", servers: "files", decision: "ask" },
        ],
        approver: (request, ctx) => {
          asked.push([request, ctx]);
          return request.arguments.path === "/tmp/x" ? "allow" : "deny";
        },
      },
    },
  });
  await servers.listAllTools();
  assertEquals((await servers.callTool("files__read", { path: "/a" })).content[0].text, "r");
  assertEquals((await servers.callTool("docs__search")).content[0].text, "docs:search");
  assertEquals(asked.length, 0);
  const ok = await servers.callTool("files__delete", { path: "/tmp/x" }, { principal: "ada" });
  assertEquals(ok.content[0].text, "deleted");
  const [request, ctx] = asked[0];
  assertEquals([request.name, request.server, request.principal], [
    "files__delete",
    "files",
    "ada",
  ]);
  assertEquals(request.arguments, { path: "/tmp/x" });
  assertEquals([ctx.server, ctx.principal, ctx.tool?.name], ["files", "ada", "files__delete"]);
  const denied = await mcpError(servers.callTool("files__delete", { path: "/etc" }));
  assertEquals([denied.kind, denied.reason], ["denied", "approver_denied"]);
  // Validation refuses bad arguments before the approver or the server hears of them.
  const before = calls(files);
  const invalid = await mcpError(servers.callTool("files__delete", { path: 1 }));
  assertEquals([invalid.kind, invalid.reason], ["validation", "invalid_arguments"]);
  assertEquals([calls(files), asked.length], [before, 2]);
});

test("hub governance: a server's own options govern it on its own names, ctx.server its hub name", async () => {
  const seen: string[] = [];
  const secret = toolServer("vault", ["read", "secret"]);
  await using servers = hub({
    servers: {
      vault: {
        transport: secret.transport(),
        tools: (tool, ctx) => {
          seen.push(`${ctx.server}:${tool.name}`);
          return tool.name !== "secret";
        },
      },
      docs: toolServer("docs", ["secret"]).transport(),
    },
  });
  const names = (await servers.listAllTools()).map((t) => t.name);
  assertEquals(names, ["vault__read", "docs__secret"]);
  assertEquals(seen.includes("vault:secret"), true);
  const hidden = await mcpError(servers.callTool("vault__secret"));
  assertEquals([hidden.kind, hidden.reason], ["not_found", "hidden_tool"]);
  assertEquals(calls(secret), 0);
});

test("hub governance: the lazy catalogue searches and calls only what governance shows", async () => {
  const a = toolServer("a", ["send_email", "delete_email"]);
  await using servers = hub({
    servers: { a: a.transport() },
    lazy: true,
    governance: {
      tools: (tool, ctx) => ctx.principal === "admin" || !tool.name.includes("delete"),
    },
  });
  const search = async (principal?: string) => {
    const found = await servers.callTool(SEARCH_TOOLS, { query: "email" }, { principal });
    return (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
  };
  assertEquals(await search(), ["a__send_email"]);
  assertEquals(await search("admin"), ["a__send_email", "a__delete_email"]);
  const hidden = await mcpError(servers.callTool(CALL_TOOL, { name: "a__delete_email" }));
  assertEquals(hidden.reason, "hidden_tool");
  const ran = await servers.callTool(CALL_TOOL, { name: "a__delete_email" }, {
    principal: "admin",
  });
  assertEquals(ran.content[0].text, "a:delete_email");
});

// The lazy catalogue: two meta-tools instead of every tool, the ranking of search_tools
// (table-first), call_tool's routing, and the errors a model's bad arguments get.
import { hub } from "../../hub/hub.ts";
import { CALL_TOOL, META_TOOLS, SEARCH_TOOLS } from "../../hub/lazy.ts";
import type { Tool } from "../../client/types.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { toolServer } from "./_helpers.ts";

test("lazy: the hub lists two meta-tools whose schemas a model can follow", async () => {
  await using servers = hub({
    servers: { a: toolServer("a", ["x"]).transport() },
    lazy: true,
  });
  const tools = await servers.listAllTools();
  assertEquals(tools.map((t) => t.name), [SEARCH_TOOLS, CALL_TOOL]);
  assertEquals(tools, [...META_TOOLS]);
  for (const meta of tools) {
    assertEquals(meta.inputSchema.type, "object");
    assertEquals(meta.inputSchema.additionalProperties, false);
    assert(typeof meta.description === "string" && meta.description.length > 20);
  }
  assertEquals(tools[0].inputSchema.required, ["query"]);
  assertEquals(tools[1].inputSchema.required, ["name"]);
  // Copies: changing one changes no later listing.
  tools[0].name = "changed";
  assertEquals((await servers.listAllTools())[0].name, SEARCH_TOOLS);
});

test("lazy: search_tools finds tools of every server; call_tool (and the hub name) runs them", async () => {
  const mail = toolServer("mail", ["send_email", "list_inbox"]);
  const docs = toolServer("docs", ["search_docs"]);
  await using servers = hub({
    servers: { mail: mail.transport(), docs: docs.transport() },
    lazy: true,
  });
  const found = await servers.callTool(SEARCH_TOOLS, { query: "send email", limit: 2 });
  assertEquals(found.isError, false);
  const matches = (found.structuredContent as { tools: Tool[] }).tools;
  assertEquals(matches[0], {
    name: "mail__send_email",
    description: "The send_email tool of mail",
    inputSchema: { type: "object" },
  });
  assertEquals(matches.length, 1);
  assertEquals(JSON.parse(String(found.content[0].text)), { tools: matches });
  const ran = await servers.callTool(CALL_TOOL, {
    name: "mail__send_email",
    arguments: { to: "ada" },
  });
  assertEquals(ran.content[0].text, "mail:send_email");
  const call = mail.requests.find((r) => r.method === "tools/call");
  assertEquals(call?.params.arguments, { to: "ada" });
  assertEquals((await servers.callTool("docs__search_docs")).content[0].text, "docs:search_docs");
  const none = await servers.callTool(SEARCH_TOOLS, { query: "weather" });
  assertEquals(none.structuredContent, { tools: [] });
});

test("lazy: bad meta-tool arguments are validation errors naming the member", async () => {
  await using servers = hub({ servers: { a: toolServer("a", ["x"]).transport() }, lazy: true });
  const table: [string, unknown, string][] = [
    [SEARCH_TOOLS, {}, "/query"],
    [SEARCH_TOOLS, { query: "  " }, "/query"],
    [SEARCH_TOOLS, { query: "x", limit: 0 }, "/limit"],
    [SEARCH_TOOLS, { query: "x", limit: 51 }, "/limit"],
    [SEARCH_TOOLS, { query: "x", top: 3 }, "/top"],
    [SEARCH_TOOLS, [], "/"],
    [CALL_TOOL, { arguments: {} }, "/name"],
    [CALL_TOOL, { name: CALL_TOOL }, "/name"],
    [CALL_TOOL, { name: "a__x", arguments: [1] }, "/arguments"],
    [CALL_TOOL, { name: "a__x", args: {} }, "/args"],
  ];
  for (const [name, args, path] of table) {
    const error = await mcpError(servers.callTool(name, args as Record<string, unknown>));
    assertEquals([error.kind, error.reason], ["validation", "invalid_arguments"], path);
    assertEquals((error.data as { path: string }[])[0].path, path);
  }
  const missing = await mcpError(servers.callTool(CALL_TOOL, { name: "zz__x" }));
  assertEquals([missing.kind, missing.reason], ["not_found", "unknown_tool"]);
});

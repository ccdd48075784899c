// Governance's edges: hooks and approvers that answer oddly, and the engine alone over a
// plain tool list, as a hub runs it.
import type { ToolResult } from "../../client/types.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { governed, server } from "./_helpers.ts";

test("governance: a throwing onToolsListed fails the listing; odd answers are refused", async () => {
  const mock = server();
  const broken = new Error("list hook broke");
  await using client = governed(mock, {
    hooks: {
      onToolsListed: () => {
        throw broken;
      },
    },
  });
  const listing = await mcpError(client.listAllTools());
  assertEquals([listing.kind, listing.reason, listing.cause], ["hook", "hook_failed", broken]);
  const warnings: string[] = [];
  await using odd = governed(mock, {
    onWarning: (message) => warnings.push(message),
    hooks: { afterCall: () => "not a result" as unknown as ToolResult },
    policy: { default: "ask", approver: () => "maybe" as "allow" },
  });
  const refused = await mcpError(odd.callTool("echo", { message: "x" }));
  assertEquals([refused.kind, refused.reason], ["denied", "approver_denied"]);
  assertEquals(warnings.length, 1);
  assert(warnings[0].includes('answered "maybe"'), warnings[0]);
  await using after = governed(mock, {
    hooks: { afterCall: () => "not a result" as unknown as ToolResult },
  });
  const bad = await mcpError(after.callTool("echo", { message: "x" }));
  assertEquals([bad.kind, bad.reason], ["hook", "hook_failed"]);
});

test("governance: createGovernance over a plain tool list, as a hub would run it", async () => {
  const { createGovernance } = await import("../../governance/mod.ts");
  const catalogue = [
    { name: "docs.search", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
    { name: "db.drop", inputSchema: { type: "object" } },
  ];
  const sent: string[] = [];
  const governance = createGovernance({
    tools: { deny: ["db.*"] },
    policy: { rules: [{ servers: ["hub"], principals: ["bob"], decision: "deny" }] },
  });
  const scope = { server: "hub", principal: "ann" };
  assertEquals((await governance.listTools(catalogue, scope)).map((t) => t.name), ["docs.search"]);
  const call = (name: string, principal: string) =>
    governance.callTool({
      name,
      arguments: {},
      scope: { server: "hub", principal },
      lookup: (n) => Promise.resolve(catalogue.find((t) => t.name === n)),
      send: (n) => (sent.push(n), Promise.resolve({ content: [], isError: false })),
    });
  assertEquals((await call("docs.search", "ann")).isError, false);
  assertEquals((await mcpError(call("db.drop", "ann"))).reason, "hidden_tool");
  assertEquals((await mcpError(call("docs.search", "bob"))).reason, "policy_denied");
  assertEquals(sent, ["docs.search"]);
});

test("grants: a store that fails means no grant and a warning, never a failed call", async () => {
  const mock = server();
  const warnings: string[] = [];
  let asked = 0;
  const failing = {
    get: () => Promise.reject(new Error("store down")),
    set: () => Promise.reject(new Error("store down")),
    delete: () => Promise.resolve(),
    deletePrefix: () => Promise.resolve(),
  };
  await using client = governed(mock, {
    cache: failing,
    onWarning: (message) => warnings.push(message),
    policy: { default: "ask", approver: () => (asked++, "always") },
  });
  await client.callTool("echo", { message: "a" });
  await client.callTool("echo", { message: "b" });
  assertEquals(asked, 2, "no grant could be kept: asked each time");
  assert(warnings.some((w) => w.includes('reading an "always" grant failed: store down')));
  assert(warnings.some((w) => w.includes('keeping an "always" grant failed: store down')));
});

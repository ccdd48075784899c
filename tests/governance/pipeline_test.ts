// The pipeline's stages on a real client over a mock server: selection, pre-hooks,
// validation, policy and approval, the call, post-hooks; their order, and that nothing is
// sent when a stage refuses.
import type { ToolResult } from "../../client/types.ts";
import type { ApprovalRequest } from "../../governance/options.ts";
import type { GovernanceContext } from "../../governance/types.ts";
import { assert, assertEquals, assertRejects, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { calls, governed, server } from "./_helpers.ts";

test("governance: the stages run in order, each seeing the context", async () => {
  const mock = server();
  const seen: string[] = [];
  const contexts: GovernanceContext[] = [];
  await using client = governed(mock, {
    name: "files", // the server as the client names it
    tools: (tool, ctx) => {
      seen.push(`filter:${tool.name}`);
      contexts.push(ctx);
      return true;
    },
    validate: true,
    hooks: {
      beforeCall: (request, ctx) => {
        seen.push(`before:${JSON.stringify(request.arguments)}`);
        contexts.push(ctx);
        return { arguments: { ...request.arguments, b: 2 } };
      },
      afterCall: (result, _request, ctx) => {
        seen.push(`after:${calls(mock)}`);
        contexts.push(ctx);
        return { ...result, content: [{ type: "text", text: "rewritten" }] };
      },
    },
    policy: {
      rules: [{ tools: ["add"], decision: "ask" }],
      approver: (request, ctx) => {
        seen.push(`approver:${JSON.stringify(request.arguments)}:${calls(mock)}`);
        contexts.push(ctx);
        return "allow";
      },
    },
  });
  await client.listAllTools();
  seen.length = 0;
  contexts.length = 0;
  const result = await client.callTool("add", { a: 1 }, { principal: "alice", assigns: { n: 1 } });
  assertEquals(seen, [
    "filter:add",
    'before:{"a":1}',
    'approver:{"a":1,"b":2}:0',
    "after:1",
  ]);
  assertEquals((result as ToolResult).content, [{ type: "text", text: "rewritten" }]);
  for (const ctx of contexts) {
    assertEquals([ctx.principal, ctx.assigns, ctx.server, ctx.tool?.name], [
      "alice",
      { n: 1 },
      "files",
      "add",
    ]);
  }
  const sent = mock.requests.filter((r) => r.method === "tools/call").at(-1)!;
  assertEquals(sent.params.arguments, { a: 1, b: 2 }, "the rewritten arguments were sent");
});

test("governance: a plain client sends as given; the name option names the server", async () => {
  const mock = server();
  await using plain = governed(mock, {});
  // A plain client ignores principal and assigns in listings and calls.
  await plain.listAllTools({ principal: "p", assigns: {} });
  assertEquals(plain.cachedTools({ principal: "p" }).length, 4);
  const result = await plain.callTool("add", { a: "x" }, { principal: "p" });
  assertEquals(result.isError, false, "no validation on a plain client");
  let serverName = "";
  await using named = governed(mock, {
    name: "workspace",
    hooks: { beforeCall: (_r, ctx) => void (serverName = ctx.server) },
  });
  await named.callTool("echo", { message: "hi" });
  assertEquals(serverName, "workspace");
});

test("governance: a hidden tool vanishes from every listing and is refused unsent", async () => {
  const mock = server();
  await using client = governed(mock, { tools: { deny: ["rm", "admin_*"] } });
  const page = await client.listTools();
  assertEquals(page.tools.map((t) => t.name), ["echo", "add"]);
  assertEquals((await client.listAllTools()).map((t) => t.name), ["echo", "add"]);
  assertEquals(client.cachedTools().map((t) => t.name), ["echo", "add"]);
  assertEquals(client.tool("echo").name, "echo");
  const missing = await mcpError(Promise.resolve().then(() => client.tool("rm")));
  assertEquals([missing.kind, missing.reason], ["not_found", "unknown_tool"]);
  const before = calls(mock);
  const error = await mcpError(client.callTool("rm", { path: "/" }));
  assertEquals([error.kind, error.reason], ["not_found", "hidden_tool"]);
  const unknown = await mcpError(client.callTool("nope", {}));
  assertEquals([unknown.kind, unknown.reason], ["not_found", "unknown_tool"]);
  assertEquals(calls(mock), before, "no tools/call was sent");
});

test("governance: a function filter sees principal and assigns in every listing method", async () => {
  const mock = server();
  await using client = governed(mock, {
    tools: (tool, ctx) =>
      ctx.tool === tool &&
      (tool.name !== "admin_reset" || ctx.principal === "root" || ctx.assigns.admin === true),
  });
  const names = (tools: { name: string }[]) => tools.map((t) => t.name).includes("admin_reset");
  assertEquals(names(await client.listAllTools()), false);
  assertEquals(names(await client.listAllTools({ principal: "root" })), true);
  assertEquals(names((await client.listTools({ assigns: { admin: true } })).tools), true);
  assertEquals(names(client.cachedTools()), false);
  assertEquals(names(client.cachedTools({ principal: "root" })), true);
  assertEquals(client.tool("admin_reset", { assigns: { admin: true } }).name, "admin_reset");
  const error = await mcpError(client.callTool("admin_reset", {}, { principal: "alice" }));
  assertEquals(error.reason, "hidden_tool");
  const result = await client.callTool("admin_reset", {}, { principal: "root" });
  assertEquals((result as ToolResult).content[0].text, "reset");
});

test("governance: onToolsListed hides and rewrites; what it hides cannot be called", async () => {
  const mock = server();
  await using client = governed(mock, {
    hooks: {
      onToolsListed: (tools) =>
        tools.filter((t) => t.name !== "rm").map((t) => ({ ...t, description: "[checked]" })),
    },
  });
  const listed = await client.listAllTools();
  assertEquals(listed.map((t) => [t.name, t.description]), [
    ["echo", "[checked]"],
    ["add", "[checked]"],
    ["admin_reset", "[checked]"],
  ]);
  const error = await mcpError(client.callTool("rm", { path: "/" }));
  assertEquals([error.kind, error.reason], ["not_found", "hidden_tool"]);
  assertEquals(calls(mock), 0);
});

test("governance: beforeCall may deny; a hook that throws fails with kind hook", async () => {
  const mock = server();
  const boom = new Error("hook broke");
  await using client = governed(mock, {
    hooks: [
      { beforeCall: (request) => request.name === "rm" ? { deny: "no removing" } : undefined },
      {
        beforeCall: (request) => {
          if (request.name === "admin_reset") throw boom;
        },
      },
    ],
  });
  const denied = await mcpError(client.callTool("rm", { path: "/" }));
  assertEquals([denied.kind, denied.reason], ["denied", "hook_denied"]);
  assertEquals(denied.data, { hook: "beforeCall", message: "no removing" });
  const failed = await mcpError(client.callTool("admin_reset", {}));
  assertEquals([failed.kind, failed.reason, failed.cause], ["hook", "hook_failed", boom]);
  assertEquals(calls(mock), 0, "nothing was sent");
  const afterBoom = new Error("after broke");
  await using after = governed(mock, {
    hooks: {
      afterCall: () => {
        throw afterBoom;
      },
    },
  });
  const post = await mcpError(after.callTool("echo", { message: "x" }));
  assertEquals([post.kind, post.reason, post.cause], ["hook", "hook_failed", afterBoom]);
  assertEquals(calls(mock), 1, "a post-hook runs after the call");
});

test("governance: policy deny, ask without an approver, approver deny and failure", async () => {
  const mock = server();
  const asked: ApprovalRequest[] = [];
  const broken = new Error("approver down");
  await using client = governed(mock, {
    name: "files", // the server as the client names it
    policy: {
      rules: [
        { name: "no admin", tools: ["admin_*"], decision: "deny" },
        { name: "reads", annotations: { readOnlyHint: true }, decision: "allow" },
        { name: "careful", annotations: { destructiveHint: true }, decision: "ask" },
      ],
      approver: (request) => {
        asked.push(request);
        if (request.arguments.path === "/boom") throw broken;
        return request.arguments.path === "/tmp/x" ? "allow" : "deny";
      },
    },
  });
  const denied = await mcpError(client.callTool("admin_reset", {}));
  assertEquals([denied.kind, denied.reason], ["denied", "policy_denied"]);
  assertEquals(denied.data, { decision: "deny", rule: 0, ruleName: "no admin" });
  const refused = await mcpError(client.callTool("rm", { path: "/" }));
  assertEquals([refused.kind, refused.reason], ["denied", "approver_denied"]);
  assertEquals(refused.data, { decision: "ask", rule: 2, ruleName: "careful" });
  const failed = await mcpError(client.callTool("rm", { path: "/boom" }));
  assertEquals([failed.kind, failed.reason, failed.cause], ["hook", "approver_failed", broken]);
  assertEquals(calls(mock), 0);
  const allowed = await client.callTool("rm", { path: "/tmp/x" });
  assertEquals((allowed as ToolResult).content[0].text, "removed /tmp/x");
  await client.callTool("echo", { message: "read-only: no approver" });
  assertEquals(asked.map((r) => [r.kind, r.name, r.rule]), [
    ["tool", "rm", { index: 2, name: "careful" }],
    ["tool", "rm", { index: 2, name: "careful" }],
    ["tool", "rm", { index: 2, name: "careful" }],
  ]);
  assertEquals(asked[0].server, "files");
  assertEquals(asked[0].tool.annotations, { destructiveHint: true });
  await using strict = governed(mock, { policy: { default: "ask" } });
  const required = await mcpError(strict.callTool("echo", { message: "x" }));
  assertEquals([required.kind, required.reason], ["denied", "approval_required"]);
  assertEquals(required.data, { decision: "ask" });
});

test("governance: malformed options are TypeErrors naming the key", async () => {
  const mock = server();
  const table: [Record<string, unknown>, string][] = [
    [{ tools: 3 }, 'option "tools"'],
    [{ validate: "yes" }, 'option "validate"'],
    [{ policy: { rules: {} } }, 'option "policy.rules"'],
    [{ policy: { rule: [] } }, 'unknown key "rule"'],
    [{ policy: { approver: "me" } }, 'option "policy.approver"'],
    [{ policy: { scope: ["tools"] } }, 'option "policy.scope"'],
    [{ hooks: { beforeCal: () => {} } }, 'unknown hook "beforeCal"'],
    [{ hooks: [{ afterCall: 1 }] }, 'option "hooks[0].afterCall"'],
    [{ pin: "yes" }, 'option "pin"'],
    [{ name: "" }, 'option "name"'],
    [{ polcy: {} }, 'Unknown option "polcy"'],
  ];
  for (const [options, message] of table) {
    let thrown: unknown;
    try {
      governed(mock, options);
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof TypeError, `${JSON.stringify(options)} is a TypeError`);
    assert(
      (thrown as Error).message.includes(message),
      `${(thrown as Error).message} names ${message}`,
    );
  }
  await using client = governed(mock, { validate: true });
  await assertRejects(() => client.callTool("echo", [] as never), TypeError, "args");
  await assertRejects(
    () => client.callTool("echo", {}, { principal: 1 as never }),
    TypeError,
    "principal",
  );
  assertEquals(calls(mock), 0);
});

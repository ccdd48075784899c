// The policy's scope over prompts and resources (ask denies: reads have no approver), their
// hooks, and "always" grants per principal, in memory and across a restart (Deno KV file).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { memoryStore } from "../../cache/memory.ts";
import type { GovernanceContext } from "../../governance/types.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import { assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { calls, governed, server } from "./_helpers.ts";

const reads = (mock: ReturnType<typeof server>, method: string) =>
  mock.requests.filter((r) => r.method === method).length;

test("scope: resource and prompt rules run before the read; ask there denies", async () => {
  const mock = server();
  await using client = governed(mock, {
    policy: {
      rules: [
        { name: "etc", resources: ["file:///etc/*"], decision: "ask" },
        { prompts: ["greet"], principals: ["guest"], decision: "deny" },
        { tools: ["*"], decision: "allow" },
      ],
      scope: ["resources", "prompts"],
      approver: () => "allow",
    },
  });
  const etc = await mcpError(client.readResource("file:///etc/passwd"));
  assertEquals([etc.kind, etc.reason, etc.data], ["denied", "policy_denied", {
    decision: "ask",
    rule: 0,
    ruleName: "etc",
  }]);
  const notes = await client.readResource("file:///home/notes");
  assertEquals(notes.contents[0].text, "notes");
  const guest = await mcpError(client.getPrompt("greet", { who: "x" }, { principal: "guest" }));
  assertEquals([guest.kind, guest.reason, guest.data], ["denied", "policy_denied", {
    decision: "deny",
    rule: 1,
  }]);
  const hello = await client.getPrompt("greet", { who: "Ada" }, { principal: "ann" });
  assertEquals(hello.messages[0].content.text, "Hello Ada");
  assertEquals([reads(mock, "resources/read"), reads(mock, "prompts/get")], [1, 1]);
});

test("scope: without it, resource and prompt rules do not run", async () => {
  const mock = server();
  await using client = governed(mock, {
    policy: {
      rules: [{ resources: ["*"], decision: "deny" }, { prompts: ["*"], decision: "deny" }],
    },
  });
  assertEquals((await client.readResource("file:///etc/passwd")).contents[0].text, "root:x");
  assertEquals((await client.getPrompt("greet", { who: "A" })).messages.length, 1);
});

test("hooks: onPromptGet rewrites or denies; onResourceRead denies or fails", async () => {
  const mock = server();
  const contexts: GovernanceContext[] = [];
  const broken = new Error("read hook broke");
  await using client = governed(mock, {
    name: "files", // the server as the client names it
    hooks: {
      onPromptGet: (request, ctx) => {
        contexts.push(ctx);
        if (request.arguments.who === "Mallory") return { deny: "not that one" };
        return { arguments: { who: String(request.arguments.who).toUpperCase() } };
      },
      onResourceRead: (request, ctx) => {
        contexts.push(ctx);
        if (request.uri.includes("boom")) throw broken;
        return request.uri.startsWith("file:///etc") ? { deny: "system files" } : undefined;
      },
    },
  });
  const hello = await client.getPrompt("greet", { who: "ada" }, {
    principal: "p",
    assigns: { a: 1 },
  });
  assertEquals(hello.messages[0].content.text, "Hello ADA");
  const denied = await mcpError(client.getPrompt("greet", { who: "Mallory" }));
  assertEquals([denied.kind, denied.reason], ["denied", "hook_denied"]);
  const system = await mcpError(client.readResource("file:///etc/passwd"));
  assertEquals([system.kind, system.reason], ["denied", "hook_denied"]);
  const failed = await mcpError(client.readResource("file:///boom"));
  assertEquals([failed.kind, failed.reason, failed.cause], ["hook", "hook_failed", broken]);
  assertEquals([reads(mock, "resources/read"), reads(mock, "prompts/get")], [0, 1]);
  assertEquals([contexts[0].principal, contexts[0].assigns, contexts[0].server], [
    "p",
    { a: 1 },
    "files",
  ]);
});

test("grants: always is remembered per principal and tool", async () => {
  const mock = server();
  const asked: (string | undefined)[] = [];
  const store = memoryStore();
  const options = {
    cache: store,
    policy: {
      rules: [{ annotations: { destructiveHint: true }, decision: "ask" as const }],
      approver: (
        request: { principal?: string },
      ) => (asked.push(request.principal), "always" as const),
    },
  };
  await using client = governed(mock, options);
  await client.callTool("rm", { path: "a" }, { principal: "alice" });
  await client.callTool("rm", { path: "b" }, { principal: "alice" });
  assertEquals(asked, ["alice"], "granted once for alice");
  await client.callTool("rm", { path: "c" }, { principal: "bob" });
  await client.callTool("admin_reset", {}, { principal: "alice" });
  assertEquals(asked, ["alice", "bob", "alice"], "per principal and per tool");
  await using again = governed(mock, options);
  await again.callTool("rm", { path: "d" }, { principal: "bob" });
  assertEquals(asked.length, 3, "a client over the same store keeps the grants");
  assertEquals(calls(mock), 5);
});

const SCRIPT = fileURLToPath(new URL("../fixtures/grant_client.ts", import.meta.url));
const DENO = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));

async function grantProcess(env: Record<string, string>) {
  const child = spawnProcess({
    command: DENO,
    args: ["run", "--unstable-kv", "-A", SCRIPT],
    env,
  });
  await child.stdin.close();
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  assertEquals((await child.exited).code, 0, `the client process failed: ${err}`);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
}

test("grants: an always grant in a Deno KV file survives a restart", async () => {
  const dir = mkdtempSync(join(tmpdir(), "grants-"));
  try {
    const env = { GRANT_KV: join(dir, "grants.db"), PRINCIPAL: "alice" };
    const first = await grantProcess({ ...env, ANSWER: "always" });
    assertEquals(first, {
      mine: ["called", "called"],
      askedForMine: 1,
      other: "called",
      asked: 2,
    });
    // The restarted process's approver denies everything: only a kept grant lets alice in.
    const second = await grantProcess({ ...env, ANSWER: "deny" });
    assertEquals(second, {
      mine: ["called", "called"],
      askedForMine: 0,
      other: "called",
      asked: 0,
    });
    const stranger = await grantProcess({ ...env, PRINCIPAL: "carol", ANSWER: "deny" });
    assertEquals(stranger.mine, ["approver_denied", "approver_denied"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

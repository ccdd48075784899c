// The policy knows: status() (client and hub) says how each server is contained, and rules
// with `sandboxed` match it (allow read-only tools of sandboxed servers, ask before any
// call to an unsandboxed one), over real server processes.
import { hub } from "../../hub/hub.ts";
import { connect } from "../../mod.ts";
import { evaluatePolicy } from "../../governance/policy.ts";
import type { ApprovalRequest, PolicyOptions } from "../../governance/options.ts";
import { assertEquals, assertThrows, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { DENO, probe, world } from "./_probe.ts";

test("policy: a sandboxed rule matches by containment; anything else is not sandboxed", () => {
  const policy = {
    rules: [
      { sandboxed: true, annotations: { readOnlyHint: true }, decision: "allow" as const },
      { sandboxed: false, decision: "ask" as const },
    ],
    default: "deny" as const,
  };
  const request = { kind: "tool" as const, name: "read", server: "s" };
  const readOnly = { ...request, annotations: { readOnlyHint: true } };
  assertEquals(evaluatePolicy(policy, { ...readOnly, sandboxed: true }).decision, "allow");
  assertEquals(evaluatePolicy(policy, { ...request, sandboxed: true }).decision, "deny");
  assertEquals(evaluatePolicy(policy, { ...readOnly, sandboxed: false }).decision, "ask");
  assertEquals(evaluatePolicy(policy, readOnly).decision, "ask"); // unknown: not sandboxed
  assertThrows(
    () => evaluatePolicy({ rules: [{ sandboxed: "yes" as never, decision: "allow" }] }, request),
    TypeError,
    'option "policy.rules[0].sandboxed" must be true or false',
  );
});

function policyOf(asked: ApprovalRequest[]): PolicyOptions {
  return {
    rules: [
      { sandboxed: true, annotations: { readOnlyHint: true }, decision: "allow" },
      { name: "unsandboxed", sandboxed: false, decision: "ask" },
    ],
    default: "deny",
    approver: (request) => {
      asked.push(request);
      return "deny";
    },
  };
}

test(
  "policy: a client's sandboxed server runs its read-only tools; an unsandboxed one asks first",
  async () => {
    const w = await world();
    try {
      const asked: ApprovalRequest[] = [];
      const options = { policy: policyOf(asked), readyTimeout: 15_000, reconnect: false as const };
      await using boxed = await connect({
        command: DENO,
        args: ["run", w.server],
        sandbox: { read: [w.project] },
      }, { ...options, name: "boxed" });
      await using open = await connect({ command: "node", args: [w.server] }, {
        ...options,
        name: "open",
      });
      assertEquals(boxed.status().containment, "deno-permissions");
      assertEquals(open.status().containment, "none");
      // Sandboxed and read-only: allowed (the sandbox still refuses the secret).
      assertEquals(await probe(boxed, "read_file", { path: w.secret }), "refused: NotCapable");
      // Sandboxed, not read-only: no rule allows it.
      const denied = await mcpError(boxed.callTool("write_file", { path: "/x", text: "" }));
      assertEquals(denied.reason, "policy_denied");
      assertEquals(asked, []);
      // Unsandboxed: the approver is asked, even for a read-only tool.
      const refused = await mcpError(open.callTool("read_file", { path: w.secret }));
      assertEquals(refused.reason, "approver_denied");
      assertEquals(asked.map((a) => [a.server, a.name, a.rule?.name]), [
        ["open", "read_file", "unsandboxed"],
      ]);
    } finally {
      await w.close();
    }
  },
  { timeout: 30_000 },
);

test(
  "policy: a hub's status says how each server is contained, and its rules match it",
  async () => {
    const w = await world();
    try {
      const asked: ApprovalRequest[] = [];
      await using servers = hub({
        servers: {
          boxed: { command: DENO, args: ["run", w.server], sandbox: { read: [w.project] } },
          open: { command: "node", args: [w.server] },
        },
        governance: { policy: policyOf(asked) },
      });
      await servers.ready(15_000);
      const status = servers.status().servers;
      assertEquals(status.boxed.containment, "deno-permissions");
      assertEquals(status.open.containment, "none");
      const allowed = await servers.callTool("boxed__env", { name: "HOME" });
      assertEquals(allowed.content[0].text, "refused: NotCapable");
      const refused = await mcpError(servers.callTool("open__env", { name: "HOME" }));
      assertEquals(refused.reason, "approver_denied");
      assertEquals(asked.map((a) => [a.server, a.name]), [["open", "open__env"]]);
    } finally {
      await w.close();
    }
  },
  { timeout: 30_000 },
);

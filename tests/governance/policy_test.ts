import { assertEquals, assertThrows, test } from "../_harness.ts";
import {
  compileRule,
  decide,
  evaluatePolicy,
  hintOf,
  type PolicyRequest,
  type PolicyRule,
  type PolicyVerdict,
  ruleWarnings,
} from "../../governance/policy.ts";

const tool = (name: string, annotations?: Record<string, unknown>, extra = {}): PolicyRequest => ({
  kind: "tool",
  name,
  server: "files",
  annotations,
  ...extra,
});

const RULES: PolicyRule[] = [
  { name: "root may admin", tools: ["admin_*"], principals: ["root"], decision: "allow" },
  { name: "no admin", tools: "admin_*", decision: "deny" },
  { name: "reads", annotations: { readOnlyHint: true }, decision: "allow" },
  { name: "careful", annotations: { destructiveHint: true }, decision: "ask" },
  { tools: ["*"], servers: ["prod-*"], decision: "deny" },
  { prompts: ["secret_*"], decision: "deny" },
  { resources: ["file:///etc/*"], decision: "ask" },
];

test("decide(): the first matching rule wins, else the default (table)", () => {
  const rules = RULES.map((rule, i) => compileRule(rule, `rules[${i}]`));
  const table: [string, PolicyRequest, PolicyVerdict][] = [
    ["principal-specific allow before the deny", tool("admin_reset", {}, { principal: "root" }), {
      decision: "allow",
      rule: 0,
      ruleName: "root may admin",
    }],
    ["another principal falls to the deny", tool("admin_reset", {}, { principal: "alice" }), {
      decision: "deny",
      rule: 1,
      ruleName: "no admin",
    }],
    ["no principal never matches a principals rule", tool("admin_reset"), {
      decision: "deny",
      rule: 1,
      ruleName: "no admin",
    }],
    ["a read-only tool", tool("read", { readOnlyHint: true }), {
      decision: "allow",
      rule: 2,
      ruleName: "reads",
    }],
    ["a destructive tool", tool("rm", { destructiveHint: true }), {
      decision: "ask",
      rule: 3,
      ruleName: "careful",
    }],
    ["no hints: destructive by the MCP default", tool("mystery"), {
      decision: "ask",
      rule: 3,
      ruleName: "careful",
    }],
    ["destructiveHint false, not read-only: to the server rule", {
      ...tool("write", { destructiveHint: false }),
      server: "prod-eu",
    }, { decision: "deny", rule: 4 }],
    ["destructiveHint false elsewhere: the default", tool("write", { destructiveHint: false }), {
      decision: "allow",
    }],
    ["a prompt rule", { kind: "prompt", name: "secret_plan", server: "files" }, {
      decision: "deny",
      rule: 5,
    }],
    ["tool rules skip prompts", { kind: "prompt", name: "admin_x", server: "prod-1" }, {
      decision: "allow",
    }],
    ["a resource rule", { kind: "resource", name: "file:///etc/passwd", server: "files" }, {
      decision: "ask",
      rule: 6,
    }],
    ["annotation rules skip resources", { kind: "resource", name: "file:///home", server: "x" }, {
      decision: "allow",
    }],
  ];
  for (const [what, request, expected] of table) {
    assertEquals(decide(rules, "allow", request), expected, what);
  }
});

test("decide(): a rule naming no kind applies to every kind; the default decides the rest", () => {
  const rules = [compileRule({ principals: ["guest"], decision: "deny" }, "r")];
  const table: [PolicyRequest, PolicyVerdict][] = [
    [{ kind: "tool", name: "a", server: "s", principal: "guest" }, { decision: "deny", rule: 0 }],
    [{ kind: "prompt", name: "p", server: "s", principal: "guest" }, { decision: "deny", rule: 0 }],
    [{ kind: "resource", name: "u:", server: "s", principal: "guest" }, {
      decision: "deny",
      rule: 0,
    }],
    [{ kind: "tool", name: "a", server: "s", principal: "ann" }, { decision: "ask" }],
  ];
  for (const [request, expected] of table) assertEquals(decide(rules, "ask", request), expected);
});

test("hintOf(): the MCP defaults of tool hints (table)", () => {
  const table: [Record<string, unknown> | undefined, [boolean, boolean, boolean, boolean]][] = [
    [undefined, [false, true, false, true]],
    [{ readOnlyHint: true }, [true, false, false, true]],
    [{ readOnlyHint: true, destructiveHint: true, idempotentHint: true }, [
      true,
      false,
      false,
      true,
    ]],
    [{ destructiveHint: false, idempotentHint: true, openWorldHint: false }, [
      false,
      false,
      true,
      false,
    ]],
    [{ readOnlyHint: "yes", destructiveHint: "no" }, [false, true, false, true]],
  ];
  for (const [annotations, expected] of table) {
    const hints = (["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const)
      .map((hint) => hintOf(annotations, hint));
    assertEquals(hints, expected, JSON.stringify(annotations));
  }
});

test("evaluatePolicy(): plain rules, the default, and rules that are not rules", () => {
  assertEquals(evaluatePolicy({}, tool("x")), { decision: "allow" });
  assertEquals(evaluatePolicy({ default: "deny" }, tool("x")), { decision: "deny" });
  assertEquals(
    evaluatePolicy({ rules: [{ tools: ["x"], decision: "ask" }], default: "deny" }, tool("x")),
    { decision: "ask", rule: 0 },
  );
  const bad: [unknown, string][] = [
    [{ decision: "maybe" }, 'option "policy.rules[0].decision"'],
    [{ tool: "x", decision: "deny" }, 'Unknown option "tool"'],
    [{ tools: 3, decision: "deny" }, 'option "policy.rules[0].tools"'],
    [{ tools: [""], decision: "deny" }, 'option "policy.rules[0].tools"'],
    [{ annotations: { readOnly: true }, decision: "deny" }, 'got "readOnly"'],
    [{ annotations: { readOnlyHint: 1 }, decision: "deny" }, "policy.rules[0].annotations"],
    [{ name: 3, decision: "deny" }, "policy.rules[0].name"],
    ["deny", "must be a rule object"],
  ];
  for (const [rule, message] of bad) {
    assertThrows(
      () => evaluatePolicy({ rules: [rule as PolicyRule] }, tool("x")),
      TypeError,
      message,
    );
  }
  assertThrows(
    () => evaluatePolicy({ default: "yes" as "allow" }, tool("x")),
    TypeError,
    "policy.default",
  );
});

test("policy rules that read wrong: a typo gets the nearest key, a rule without a matcher warns", async () => {
  assertThrows(
    () => evaluatePolicy({ rules: [{ tool: "delete_*", decision: "ask" } as never] }, tool("x")),
    TypeError,
    'Unknown option "tool" in policy rule 1 (policy.rules[0]) (did you mean "tools"?)',
  );
  assertThrows(
    () =>
      evaluatePolicy({
        rules: [{ tools: "a", decision: "allow" }, {
          name: "db",
          server: "x",
          decision: "deny",
        }] as never,
      }, tool("x")),
    TypeError,
    'in policy rule 2 ("db") (policy.rules[1]) (did you mean "servers"?)',
  );
  assertEquals(
    ruleWarnings([
      { tools: "read_*", decision: "allow" },
      { name: "delete_*", decision: "ask" },
      { name: "catch-all", decision: "deny" },
      { annotations: { readOnlyHint: true }, decision: "allow" },
    ]),
    [
      'policy rule 2 ("delete_*") matches every request: "name" is only a label; to match tools by name, write { tools: "delete_*", decision: "ask" }',
      'policy rule 3 ("catch-all") has no matcher (tools, prompts, resources, annotations, servers, principals), so it matches every request and decides "deny" for all of them',
    ],
  );
  // Through a client: the warning reaches onWarning, and a denial counts rules from 1.
  const { createClient } = await import("../../client/client.ts");
  const { mockServer } = await import("../../testing/mod.ts");
  const { isMcpError } = await import("../../protocol/errors.ts");
  const warnings: string[] = [];
  const server = mockServer({ tools: [{ name: "drop", handler: () => "dropped" }] });
  await using client = createClient({
    transport: server.transport(),
    onWarning: (message) => warnings.push(message),
    policy: {
      rules: [{ tools: "read_*", decision: "allow" }, { name: "drop*", decision: "deny" }],
    },
  });
  // The policy is read when governance loads (on first use): the warning comes by then.
  const error = await client.callTool("drop", {}).then(() => undefined, (e) => e);
  assertEquals(warnings.length, 1);
  assertEquals(warnings[0].startsWith('policy rule 2 ("drop*") matches every request'), true);
  assertEquals(isMcpError(error) && error.kind, "denied");
  assertEquals(isMcpError(error) && error.message.includes('(rule 2 ("drop*"))'), true);
});

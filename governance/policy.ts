/**
 * The policy's rule engine: a pure function from the rules and one request to a decision.
 * Rules are tried in order and the first that matches decides (`allow`, `deny` or `ask`);
 * when none matches, the policy's `default` does (`"allow"` unless given).
 *
 * A rule matches when every condition it names holds:
 * - `tools`, `prompts`, `resources`: names or `*` globs (URIs for resources) of that kind of
 *   request. A rule naming one of these applies to that kind only; a rule naming none applies
 *   to every kind the policy's `scope` covers.
 * - `annotations`: the tool's hints, each as the MCP defaults read them when the server left
 *   it out (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
 *   `openWorldHint` true; `destructiveHint` and `idempotentHint` count only for a tool that
 *   is not read-only). Hints are the server's claims: a rule on them trusts the server. A
 *   rule with `annotations` matches tool requests only.
 * - `servers`, `principals`: names or globs of the server and of the caller (a rule naming
 *   `principals` never matches a call without one).
 * - `sandboxed`: whether the server runs in a sandbox (its `status().containment` is
 *   `"deno-permissions"` or `"bwrap"`). `sandboxed: false` matches every other server:
 *   a stdio server without one, and HTTP and in-process servers (which this client does
 *   not contain).
 *
 * @module
 */

import { checkDecision, checkRule, patternList, ruleLabel } from "./check.ts";
import { anyMatcher, type Matcher, type Pattern } from "./glob.ts";

export { checkDecision } from "./check.ts";

/** What a rule decides. */
export type Decision = "allow" | "deny" | "ask";

/** The kinds of request a policy may govern. */
export type PolicyKind = "tool" | "prompt" | "resource";

/** The tool hints a rule can match. */
export interface AnnotationMatch {
  /** The tool claims not to modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches an open world of entities (the web, …). */
  openWorldHint?: boolean;
}

/** One rule: conditions, and the decision when they all hold. */
export interface PolicyRule {
  /** A name for the rule, reported with a denial. */
  name?: string;
  /** Tool names or globs. */
  tools?: Pattern | Pattern[];
  /** Prompt names or globs (with `scope` including `"prompts"`). */
  prompts?: Pattern | Pattern[];
  /** Resource URIs or globs (with `scope` including `"resources"`). */
  resources?: Pattern | Pattern[];
  /** The tool hints that must hold. */
  annotations?: AnnotationMatch;
  /** Server names or globs. */
  servers?: Pattern | Pattern[];
  /** Principals or globs. */
  principals?: Pattern | Pattern[];
  /** Whether the server runs in a sandbox (Deno's permissions or bubblewrap). */
  sandboxed?: boolean;
  /** What to do when the rule matches. */
  decision: Decision;
}

/** One request, as the rules see it. */
export interface PolicyRequest {
  /** A tool call, a prompt get or a resource read. */
  kind: PolicyKind;
  /** The tool or prompt name, or the resource URI. */
  name: string;
  /** The server's name. */
  server: string;
  /** Whom it is for. */
  principal?: string;
  /** The tool's annotations, as listed. */
  annotations?: Record<string, unknown>;
  /** Whether the server runs in a sandbox (absent: it does not). */
  sandboxed?: boolean;
}

/** The outcome: the decision, and the rule that made it (absent for the default). */
export interface PolicyVerdict {
  /** What to do. */
  decision: Decision;
  /** The index of the deciding rule in `rules`. */
  rule?: number;
  /** Its name, when it has one. */
  ruleName?: string;
}

/** A rule made ready to match. */
export interface CompiledRule {
  /** The rule's decision. */
  decision: Decision;
  /** Its name. */
  name?: string;
  /** Whether it matches a request. */
  matches(request: PolicyRequest): boolean;
}

const KIND_KEYS: Record<PolicyKind, "tools" | "prompts" | "resources"> = {
  tool: "tools",
  prompt: "prompts",
  resource: "resources",
};

/**
 * A tool hint as the MCP defaults read it when the server left it out.
 *
 * @param annotations The tool's annotations.
 * @param hint The hint.
 * @returns Its value.
 */
export function hintOf(
  annotations: Record<string, unknown> | undefined,
  hint: keyof AnnotationMatch,
): boolean {
  const given = annotations?.[hint];
  const readOnly = annotations?.readOnlyHint === true;
  switch (hint) {
    case "readOnlyHint":
      return readOnly;
    case "destructiveHint":
      return !readOnly && given !== false;
    case "idempotentHint":
      return !readOnly && given === true;
    case "openWorldHint":
      return given !== false;
  }
}

/**
 * Checks one rule and makes it ready to match.
 *
 * @param rule The rule.
 * @param key Its place in the options, for errors (e.g. `"policy.rules[2]"`).
 * @returns The compiled rule.
 * @throws {TypeError} Naming the bad member.
 */
export function compileRule(rule: unknown, key: string): CompiledRule {
  const r = checkRule(rule, key);
  const decision = r.decision as Decision;
  const list = (member: string): Matcher | undefined =>
    r[member] === undefined ? undefined : anyMatcher(patternList(r[member], `${key}.${member}`));
  const byKind = { tools: list("tools"), prompts: list("prompts"), resources: list("resources") };
  const servers = list("servers");
  const principals = list("principals");
  const hints = r.annotations === undefined
    ? undefined
    : Object.entries(r.annotations as AnnotationMatch) as [keyof AnnotationMatch, boolean][];
  const sandboxed = r.sandboxed as boolean | undefined;
  const anyKind = byKind.tools === undefined && byKind.prompts === undefined &&
    byKind.resources === undefined;
  return {
    decision,
    name: r.name as string | undefined,
    matches(request) {
      const names = byKind[KIND_KEYS[request.kind]];
      if (names === undefined ? !anyKind : !names(request.name)) return false;
      if (hints !== undefined) {
        if (request.kind !== "tool") return false;
        for (const [hint, wanted] of hints) {
          if (hintOf(request.annotations, hint) !== wanted) return false;
        }
      }
      if (servers !== undefined && !servers(request.server)) return false;
      if (sandboxed !== undefined && (request.sandboxed === true) !== sandboxed) return false;
      if (principals !== undefined) {
        if (request.principal === undefined || !principals(request.principal)) return false;
      }
      return true;
    },
  };
}

/**
 * Decides one request: the first matching rule, else the default. Pure.
 *
 * @param rules The compiled rules, in order.
 * @param fallback The decision when no rule matches.
 * @param request The request.
 * @returns The verdict.
 *
 * @example Ask before destructive tools, allow read-only ones
 * ```ts
 * import { compileRule, decide } from "./policy.ts";
 *
 * const rules = [
 *   compileRule({ annotations: { readOnlyHint: true }, decision: "allow" }, "rules[0]"),
 *   compileRule({ name: "careful", annotations: { destructiveHint: true }, decision: "ask" }, "rules[1]"),
 * ];
 * const verdict = decide(rules, "deny", {
 *   kind: "tool",
 *   name: "drop_table",
 *   server: "db",
 *   annotations: { destructiveHint: true },
 * });
 * if (verdict.decision !== "ask" || verdict.rule !== 1 || verdict.ruleName !== "careful") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function decide(
  rules: readonly CompiledRule[],
  fallback: Decision,
  request: PolicyRequest,
): PolicyVerdict {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (!rule.matches(request)) continue;
    const verdict: PolicyVerdict = { decision: rule.decision, rule: i };
    if (rule.name !== undefined) verdict.ruleName = rule.name;
    return verdict;
  }
  return { decision: fallback };
}

const MATCHERS = ["tools", "prompts", "resources", "annotations", "servers", "principals"];

/**
 * What may be wrong with rules that are valid: a rule without a matcher (it matches every
 * request), a `name` that looks like a glob (`name` is only a label; the tools a rule
 * matches go in `tools`). Rules are counted from 1.
 *
 * @param rules The rules, as given (already checked by `compileRule`).
 * @returns One warning per problem, in rule order.
 *
 * @example
 * ```ts
 * import { ruleWarnings } from "./policy.ts";
 *
 * const [warning] = ruleWarnings([{ name: "delete_*", decision: "ask" }]);
 * if (!warning.startsWith('policy rule 1 ("delete_*")')) throw new Error(warning);
 * ```
 */
export function ruleWarnings(rules: readonly PolicyRule[]): string[] {
  const warnings: string[] = [];
  rules.forEach((rule, i) => {
    const label = ruleLabel(`policy.rules[${i}]`, rule.name);
    const matchers = MATCHERS.filter((key) => rule[key as keyof PolicyRule] !== undefined);
    if (matchers.length > 0) return;
    const glob = typeof rule.name === "string" && /[*?[\]{}]/.test(rule.name);
    warnings.push(
      glob
        ? `${label} matches every request: "name" is only a label; to match tools by name, ` +
          `write { tools: ${JSON.stringify(rule.name)}, decision: "${rule.decision}" }`
        : `${label} has no matcher (${MATCHERS.join(", ")}), so it matches every request` +
          ` and decides "${rule.decision}" for all of them`,
    );
  });
  return warnings;
}

/**
 * Decides one request straight from plain rules (checks and compiles them first). Pure.
 *
 * @param policy The rules, in order, and the decision when none matches (default `"allow"`).
 * @param request The request.
 * @returns The verdict.
 * @throws {TypeError} When a rule is malformed.
 *
 * @example
 * ```ts
 * import { evaluatePolicy } from "./policy.ts";
 *
 * const verdict = evaluatePolicy({
 *   rules: [
 *     { tools: ["admin_*"], principals: ["root"], decision: "allow" },
 *     { tools: ["admin_*"], decision: "deny" },
 *   ],
 * }, { kind: "tool", name: "admin_reset", server: "ops", principal: "alice" });
 * if (verdict.decision !== "deny" || verdict.rule !== 1) throw new Error("unexpected");
 * ```
 */
export function evaluatePolicy(
  policy: { rules?: readonly PolicyRule[]; default?: Decision },
  request: PolicyRequest,
): PolicyVerdict {
  const rules = (policy.rules ?? []).map((rule, i) => compileRule(rule, `policy.rules[${i}]`));
  const fallback = policy.default === undefined
    ? "allow"
    : checkDecision(policy.default, "policy.default");
  return decide(rules, fallback, request);
}

/**
 * The synchronous check of the governance options (`tools`, `validate`, `policy`, `hooks`,
 * `pin`): what a client checks when it is made, so a misuse throws at once, while the
 * pipeline that compiles and runs them loads on first use (`create.ts`). The filter, rule and
 * hook modules check through it too, so each rule is written once. Pure, and small: it
 * imports nothing above the option-key check.
 *
 * @module
 */

import { checkKeys } from "../protocol/option_keys.ts";

/** The client options that turn governance on. */
export const GOVERNANCE_KEYS: readonly string[] = ["tools", "validate", "policy", "hooks", "pin"];

/** The hook kinds, in the order they run in a call's life. */
export const HOOK_KINDS = [
  "onToolsListed",
  "beforeCall",
  "afterCall",
  "onPromptGet",
  "onResourceRead",
  "onToolChanged",
] as const;

/** The members of a policy rule. */
const RULE_KEYS = new Set([
  "name",
  "tools",
  "prompts",
  "resources",
  "annotations",
  "servers",
  "principals",
  "sandboxed",
  "decision",
]);

const DECISIONS = new Set<string>(["allow", "deny", "ask"]);
const HINTS = new Set(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]);
const POLICY_KEYS = ["rules", "default", "approver", "scope"];

/** Checks one member's value; throws `TypeError` naming `key`. */
type Check = (value: unknown, key: string) => void;

/**
 * Checks an option that holds one pattern or a list of them.
 *
 * @param value The option's value.
 * @param key The option's name, for the error.
 * @returns The patterns as a list.
 * @throws {TypeError} Naming the key, unless it is a string or an array of strings.
 * @example
 * ```ts
 * import { patternList } from "./check.ts";
 *
 * if (patternList("file_*", "tools.allow").length !== 1) throw new Error("unexpected");
 * ```
 */
export function patternList(value: unknown, key: string): string[] {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || !list.every((p) => typeof p === "string" && p !== "")) {
    throw new TypeError(`option "${key}" must be a name or glob, or an array of them`);
  }
  return [...list];
}

/**
 * Checks a decision.
 *
 * @param value The value.
 * @param key The option's name, for the error.
 * @returns The decision.
 * @throws {TypeError} Unless it is `"allow"`, `"deny"` or `"ask"`.
 * @example
 * ```ts
 * import { checkDecision } from "./check.ts";
 *
 * if (checkDecision("ask", "policy.default") !== "ask") throw new Error("unexpected");
 * ```
 */
export function checkDecision(value: unknown, key: string): "allow" | "deny" | "ask" {
  if (typeof value !== "string" || !DECISIONS.has(value)) {
    throw new TypeError(`option "${key}" must be "allow", "deny" or "ask"`);
  }
  return value as "allow" | "deny" | "ask";
}

/**
 * `policy rule 2 ("careful")` for the key `policy.rules[1]`: rules counted from 1.
 *
 * @param key The rule's place in the options.
 * @param name The rule's `name`.
 * @returns The label.
 * @example
 * ```ts
 * import { ruleLabel } from "./check.ts";
 *
 * if (ruleLabel("policy.rules[1]", "careful") !== 'policy rule 2 ("careful")') throw new Error();
 * ```
 */
export function ruleLabel(key: string, name: unknown): string {
  const index = /\[(\d+)\]$/.exec(key);
  const label = index ? `policy rule ${Number(index[1]) + 1}` : key;
  return typeof name === "string" ? `${label} ("${name}")` : label;
}

const patterns: Check = (value, key) => void patternList(value, key);

const hints: Check = (value, key) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`option "${key}" must be an object of hint booleans`);
  }
  for (const [hint, wanted] of Object.entries(value)) {
    if (!HINTS.has(hint) || typeof wanted !== "boolean") {
      throw new TypeError(
        `option "${key}" takes boolean readOnlyHint, destructiveHint, idempotentHint and ` +
          `openWorldHint (got "${hint}")`,
      );
    }
  }
};

/** A rule's members, in the order they are checked (the decision is required). */
const RULE_MEMBERS: [string, Check][] = [
  ["decision", (value, key) => void checkDecision(value, key)],
  ["name", (value, key) => {
    if (typeof value !== "string") throw new TypeError(`option "${key}" must be a string`);
  }],
  ["tools", patterns],
  ["prompts", patterns],
  ["resources", patterns],
  ["servers", patterns],
  ["principals", patterns],
  ["annotations", hints],
  ["sandboxed", (value, key) => {
    if (typeof value !== "boolean") throw new TypeError(`option "${key}" must be true or false`);
  }],
];

/**
 * Checks one policy rule.
 *
 * @param rule The rule.
 * @param key Its place in the options, for errors (e.g. `"policy.rules[2]"`).
 * @returns The rule, as a record.
 * @throws {TypeError} Naming the bad member.
 * @example
 * ```ts
 * import { checkRule } from "./check.ts";
 *
 * checkRule({ tools: "delete_*", decision: "ask" }, "policy.rules[0]");
 * let threw = false;
 * try {
 *   checkRule({ tools: "delete_*", decision: "maybe" }, "policy.rules[0]");
 * } catch {
 *   threw = true;
 * }
 * if (!threw) throw new Error("a bad decision must throw");
 * ```
 */
export function checkRule(rule: unknown, key: string): Record<string, unknown> {
  if (typeof rule !== "object" || rule === null || Array.isArray(rule)) {
    throw new TypeError(`option "${key}" must be a rule object`);
  }
  const r = rule as Record<string, unknown>;
  checkKeys(r, RULE_KEYS, `${ruleLabel(key, r.name)} (${key})`);
  for (const [member, check] of RULE_MEMBERS) {
    if (r[member] !== undefined || member === "decision") check(r[member], `${key}.${member}`);
  }
  return r;
}

/**
 * Checks a tool filter: `{ allow?, deny? }` of patterns, or a function.
 *
 * @param value The filter.
 * @param key The option's name, for the error.
 * @throws {TypeError} Naming the key.
 * @example
 * ```ts
 * import { checkFilter } from "./check.ts";
 *
 * checkFilter({ deny: ["*_delete"] });
 * ```
 */
export function checkFilter(value: unknown, key = "tools"): void {
  if (typeof value === "function") return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`option "${key}" must be { allow?, deny? } or a function (tool, ctx)`);
  }
  const { allow, deny, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) {
    throw new TypeError(`option "${key}" has unknown key "${unknown}" (it takes allow and deny)`);
  }
  if (allow !== undefined) patternList(allow, `${key}.allow`);
  if (deny !== undefined) patternList(deny, `${key}.deny`);
}

/**
 * Checks the `hooks` option: one set of hooks or a list of sets.
 *
 * @param value The option's value.
 * @returns Each set with where it is (`hooks` or `hooks[i]`).
 * @throws {TypeError} Naming the bad member.
 * @example
 * ```ts
 * import { checkHooks } from "./check.ts";
 *
 * const sets = checkHooks([{ beforeCall: () => undefined }]);
 * if (sets[0][0] !== "hooks[0]") throw new Error("unexpected");
 * ```
 */
export function checkHooks(value: unknown): [string, Record<string, unknown>][] {
  if (value === undefined) return [];
  const sets = Array.isArray(value) ? value : [value];
  return sets.map((set, i) => {
    const where = Array.isArray(value) ? `hooks[${i}]` : "hooks";
    if (typeof set !== "object" || set === null || Array.isArray(set)) {
      throw new TypeError(`option "${where}" must be an object of hook functions`);
    }
    for (const [kind, fn] of Object.entries(set)) {
      if (!(HOOK_KINDS as readonly string[]).includes(kind)) {
        throw new TypeError(`option "${where}" has unknown hook "${kind}"`);
      }
      if (fn !== undefined && typeof fn !== "function") {
        throw new TypeError(`option "${where}.${kind}" must be a function`);
      }
    }
    return [where, set as Record<string, unknown>];
  });
}

/**
 * Whether `value` is a cache store (`get`, `set`, `delete`, `deletePrefix`).
 *
 * @param value The value.
 * @returns Whether it is one.
 * @example
 * ```ts
 * import { isStore } from "./check.ts";
 *
 * if (isStore({})) throw new Error("unexpected");
 * ```
 */
export function isStore(value: unknown): boolean {
  return typeof value === "object" && value !== null &&
    ["get", "set", "delete", "deletePrefix"].every((m) =>
      typeof (value as Record<string, unknown>)[m] === "function"
    );
}

/** The governance options' members, in the order they are checked. */
const MEMBERS: [string, Check][] = [
  ["validate", (value) => {
    if (typeof value !== "boolean") throw new TypeError('option "validate" must be a boolean');
  }],
  ["pin", (value) => {
    if (typeof value !== "boolean" && !isStore(value)) {
      throw new TypeError('option "pin" must be a boolean or a store (memoryStore(), …)');
    }
  }],
  ["tools", (value) => checkFilter(value)],
  ["hooks", (value) => void checkHooks(value)],
  ["policy", (value) => checkPolicy(value)],
];

function checkPolicy(policy: unknown): void {
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw new TypeError('option "policy" must be { rules, default, approver, scope }');
  }
  for (const key of Object.keys(policy)) {
    if (!POLICY_KEYS.includes(key)) throw new TypeError(`option "policy" has unknown key "${key}"`);
  }
  const { rules, default: fallback, approver } = policy as Record<string, unknown>;
  const scope = (policy as Record<string, unknown>).scope ?? [];
  if (rules !== undefined && !Array.isArray(rules)) {
    throw new TypeError('option "policy.rules" must be an array of rules');
  }
  (rules as unknown[] | undefined)?.forEach((r, i) => checkRule(r, `policy.rules[${i}]`));
  if (fallback !== undefined) checkDecision(fallback, "policy.default");
  if (approver !== undefined && typeof approver !== "function") {
    throw new TypeError('option "policy.approver" must be a function');
  }
  if (!Array.isArray(scope) || !scope.every((s) => s === "resources" || s === "prompts")) {
    throw new TypeError('option "policy.scope" must be a list of "resources" and "prompts"');
  }
}

/**
 * Checks the governance options at once (nothing is compiled here).
 *
 * @param options The options (`tools`, `validate`, `policy`, `hooks`, `pin`; others ignored).
 * @throws {TypeError} Naming the bad option.
 * @example
 * ```ts
 * import { checkGovernanceOptions } from "./check.ts";
 *
 * checkGovernanceOptions({ validate: true, policy: { rules: [{ tools: "rm_*", decision: "deny" }] } });
 * let threw = false;
 * try {
 *   checkGovernanceOptions({ validate: "yes" });
 * } catch (error) {
 *   threw = error instanceof TypeError;
 * }
 * if (!threw) throw new Error("a bad option must throw");
 * ```
 */
export function checkGovernanceOptions(options: Record<string, unknown>): void {
  for (const [member, check] of MEMBERS) {
    if (options[member] !== undefined) check(options[member], member);
  }
}

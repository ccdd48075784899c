/**
 * The governance options (the client's `tools`, `validate`, `policy`, `hooks` and `pin`),
 * the approver's contract, and their checks: a malformed option is a `TypeError` naming it.
 *
 * @module
 */

import type { CacheStore } from "../cache/store.ts";
import { type CompiledFilter, compileFilter, type ToolFilter } from "./filter.ts";
import { type HookLists, hookLists, type Hooks } from "./hooks.ts";
import type { ToolChange } from "./pin.ts";
import { checkGovernanceOptions, isStore } from "./check.ts";
import {
  type CompiledRule,
  compileRule,
  type Decision,
  type PolicyRule,
  ruleWarnings,
} from "./policy.ts";
import type { GovernanceContext, Tool } from "./types.ts";

/** What the approver is asked. */
export interface ApprovalRequest {
  /** `tool`: a rule said `ask`; `tool_changed`: a pinned tool's definition changed. */
  kind: "tool" | "tool_changed";
  /** The tool. */
  name: string;
  /**
   * The arguments: for kind `tool`, after the `beforeCall` hooks and validation; for
   * `tool_changed` (asked during selection, before them), as the caller gave them.
   */
  arguments: Record<string, unknown>;
  /** The tool's definition. */
  tool: Tool;
  /** The server's name. */
  server: string;
  /** Whom the call is for. */
  principal?: string;
  /** The rule that asked: its index and name (kind `tool`). */
  rule?: { index: number; name?: string };
  /** What changed (kind `tool_changed`). */
  change?: ToolChange;
}

/**
 * The approver's answer: `allow` this call, `deny` it, or `always` allow this tool for this
 * principal from now on (remembered in the store).
 */
export type ApprovalAnswer = "allow" | "deny" | "always";

/** Asks a person (or a program) whether a call may go on. */
export type Approver = (
  request: ApprovalRequest,
  ctx: GovernanceContext,
) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** The `policy` option. */
export interface PolicyOptions {
  /** The rules, tried in order; the first that matches decides. */
  rules?: PolicyRule[];
  /** The decision when no rule matches (default `"allow"`). */
  default?: Decision;
  /** Answers `ask` decisions on tool calls; without one, `ask` denies. */
  approver?: Approver;
  /**
   * What else the rules govern besides tool calls: `"resources"` (before `readResource`,
   * matched by URI) and `"prompts"` (before `getPrompt`). There `ask` denies: reads have no
   * approver.
   */
  scope?: ("resources" | "prompts")[];
}

/** The options of {@linkcode createGovernance}, the same as the client's. */
export interface GovernanceOptions {
  /** Which tools a caller sees and may call. */
  tools?: ToolFilter;
  /** Check arguments against `inputSchema` and `structuredContent` against `outputSchema`. */
  validate?: boolean;
  /** The policy. */
  policy?: PolicyOptions;
  /** The hooks: one set, or a list of sets run in order. */
  hooks?: Hooks | Hooks[];
  /** Pin tool definitions: `true` keeps the pins in `store`, or pass a store of their own. */
  pin?: boolean | CacheStore;
  /** Where "always" grants (and pins, with `pin: true`) are kept (default: in memory). */
  store?: CacheStore;
  /** Receives warnings (a schema that cannot be compiled, a changed tool). */
  warn?: (message: string) => void;
}

/** The checked options. */
export interface GovernanceSettings {
  /** The filter. */
  filter?: CompiledFilter;
  /** Whether to validate. */
  validate: boolean;
  /** The compiled rules. */
  rules: CompiledRule[];
  /** The policy's default. */
  fallback: Decision;
  /** Whether there is a policy. */
  policy: boolean;
  /** The approver. */
  approver?: Approver;
  /** Whether the rules run before `readResource`. */
  resources: boolean;
  /** Whether the rules run before `getPrompt`. */
  prompts: boolean;
  /** The hooks by kind. */
  hooks: HookLists;
  /** The pin store, when pinning. */
  pins?: CacheStore;
}

/** The governance keys of the client's options. */
export { GOVERNANCE_KEYS } from "./check.ts";

/**
 * Checks the governance options.
 *
 * @param options The options.
 * @param store Where pins go with `pin: true`.
 * @returns The settings.
 * @throws {TypeError} Naming the bad option.
 */
export function checkGovernance(
  options: GovernanceOptions,
  store: CacheStore | undefined,
  warn: (message: string) => void = () => {},
): GovernanceSettings {
  checkGovernanceOptions(options as Record<string, unknown>);
  const { tools, validate, policy, hooks, pin } = options;
  const rules = policy?.rules ?? [];
  const scope = policy?.scope ?? [];
  const settings: GovernanceSettings = {
    filter: tools === undefined ? undefined : compileFilter(tools),
    validate: validate === true,
    rules: rules.map((r, i) => compileRule(r, `policy.rules[${i}]`)),
    fallback: policy?.default ?? "allow",
    policy: policy !== undefined,
    approver: policy?.approver,
    resources: scope.includes("resources"),
    prompts: scope.includes("prompts"),
    hooks: hookLists(hooks),
    pins: pin === true ? store : isStore(pin) ? pin as CacheStore : undefined,
  };
  for (const warning of ruleWarnings(rules)) warn(warning);
  return settings;
}

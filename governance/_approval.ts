/**
 * Private: the policy and approval stage, and the acceptance of a pinned tool's change. A
 * rule's `deny` refuses (reason `policy_denied`); `ask` goes to an "always" grant of the
 * principal, else the approver (reasons `approver_denied`, `approval_required` without one);
 * for prompts and resources `ask` refuses, as reads have no approver. A held tool is
 * accepted by an `onToolChanged` hook or the approver, else refused (reason `tool_changed`).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { createGrants, createPins } from "./_state.ts";
import { hookFailed } from "./hooks.ts";
import type { ApprovalAnswer, ApprovalRequest, GovernanceSettings } from "./options.ts";
import { decide, type PolicyKind, type PolicyVerdict } from "./policy.ts";
import type { GovernanceContext, Tool } from "./types.ts";

function denied(reason: string, message: string, data: Record<string, unknown>): McpError {
  return new McpError(message, { kind: "denied", reason, data });
}

/** Whether the server runs in a sandbox (Deno's permissions or bubblewrap). */
function isSandboxed(ctx: GovernanceContext): boolean {
  return ctx.containment === "deno-permissions" || ctx.containment === "bwrap";
}

function ruleData(verdict: PolicyVerdict): Record<string, unknown> {
  const data: Record<string, unknown> = { decision: verdict.decision };
  if (verdict.rule !== undefined) data.rule = verdict.rule;
  if (verdict.ruleName !== undefined) data.ruleName = verdict.ruleName;
  return data;
}

function ruleText(verdict: PolicyVerdict): string {
  if (verdict.rule === undefined) return "the policy's default";
  return `rule ${verdict.rule + 1}${
    verdict.ruleName === undefined ? "" : ` ("${verdict.ruleName}")`
  }`;
}

/** The approval stage. */
export interface Approval {
  /** The policy's verdict on a tool call. */
  verdictOf(tool: Tool, ctx: GovernanceContext): PolicyVerdict;
  /** The rest of the policy stage for a verdict other than `allow` (validated arguments). */
  authorize(
    tool: Tool,
    args: Record<string, unknown>,
    ctx: GovernanceContext,
    verdict: PolicyVerdict,
  ): Promise<void>;
  /** The policy stage of a prompt or resource. */
  authorizeRead(kind: PolicyKind, name: string, ctx: GovernanceContext): void;
  /** A call's pin check: a held tool is accepted or refused. */
  checkPin(tool: Tool, args: Record<string, unknown>, ctx: GovernanceContext): Promise<void>;
  /** A listing's held tool: the `onToolChanged` hooks may accept it. */
  acceptChanged(tool: Tool, ctx: GovernanceContext): Promise<boolean>;
}

/**
 * The approval stage.
 *
 * @param settings The checked options.
 * @param grants The "always" grants.
 * @param pins The pins, when pinning.
 * @param warn The warning sink.
 * @returns The stage.
 */
export function createApproval(
  settings: GovernanceSettings,
  grants: ReturnType<typeof createGrants>,
  pins: ReturnType<typeof createPins> | undefined,
  warn: (message: string) => void,
): Approval {
  const hooks = settings.hooks;
  /** A pinned tool whose definition changed: accepted by a hook or the approver, or refused. */
  const checkPin = async (tool: Tool, args: Record<string, unknown>, ctx: GovernanceContext) => {
    const status = await pins!.status(tool, ctx.server);
    if (!status.held) return;
    const change = status.change;
    if (await acceptChanged(tool, ctx)) return;
    if (settings.approver !== undefined) {
      const answer = await approve({ kind: "tool_changed", change }, tool, args, ctx);
      if (answer === "allow" || answer === "always") return await pins!.accept(tool, ctx.server);
    }
    throw denied(
      "tool_changed",
      `${change.diff}\nThe call is refused until the change is accepted.`,
      {
        change,
      },
    );
  };

  const approve = async (
    extra: Pick<ApprovalRequest, "kind" | "rule" | "change">,
    tool: Tool,
    args: Record<string, unknown>,
    ctx: GovernanceContext,
  ): Promise<ApprovalAnswer> => {
    const request: ApprovalRequest = {
      ...extra,
      name: tool.name,
      arguments: args,
      tool,
      server: ctx.server,
    };
    if (ctx.principal !== undefined) request.principal = ctx.principal;
    let answer: unknown;
    try {
      answer = await settings.approver!(request, ctx);
    } catch (error) {
      throw new McpError(`The approver failed: ${String((error as Error)?.message ?? error)}`, {
        kind: "hook",
        reason: "approver_failed",
        cause: error,
      });
    }
    if (answer === "allow" || answer === "always" || answer === "deny") return answer;
    warn(
      `the approver answered ${JSON.stringify(answer)} for tool "${tool.name}": taken as "deny"`,
    );
    return "deny";
  };

  /** The policy's verdict on a tool call (pure, synchronous). */
  const verdictOf = (tool: Tool, ctx: GovernanceContext): PolicyVerdict =>
    decide(settings.rules, settings.fallback, {
      kind: "tool",
      name: tool.name,
      server: ctx.server,
      principal: ctx.principal,
      annotations: tool.annotations,
      sandboxed: isSandboxed(ctx),
    });

  /** The rest of the policy stage, for a verdict other than `allow`. */
  const authorize = async (
    tool: Tool,
    args: Record<string, unknown>,
    ctx: GovernanceContext,
    verdict: PolicyVerdict,
  ) => {
    if (verdict.decision === "allow") return;
    const by = ruleText(verdict);
    if (verdict.decision === "deny") {
      throw denied(
        "policy_denied",
        `The policy denies tool "${tool.name}" (${by})`,
        ruleData(verdict),
      );
    }
    if (await grants.has(ctx.server, ctx.principal, tool.name)) return;
    if (settings.approver === undefined) {
      throw denied(
        "approval_required",
        `Tool "${tool.name}" needs approval (${by}) and the policy has no approver`,
        ruleData(verdict),
      );
    }
    const rule = verdict.rule === undefined
      ? undefined
      : { index: verdict.rule, name: verdict.ruleName };
    const answer = await approve({ kind: "tool", rule }, tool, args, ctx);
    if (answer === "deny") {
      throw denied(
        "approver_denied",
        `The approver denied tool "${tool.name}" (${by})`,
        ruleData(verdict),
      );
    }
    if (answer === "always") await grants.add(ctx.server, ctx.principal, tool.name);
  };

  /** The policy stage of a prompt or resource (with the matching `scope`): `ask` denies. */
  const authorizeRead = (kind: PolicyKind, name: string, ctx: GovernanceContext) => {
    const verdict = decide(settings.rules, settings.fallback, {
      kind,
      name,
      server: ctx.server,
      principal: ctx.principal,
      sandboxed: isSandboxed(ctx),
    });
    if (verdict.decision === "allow") return;
    const what = `${kind} "${name}"`;
    const why = verdict.decision === "ask" ? "asks, and reads have no approver" : "denies";
    throw denied(
      "policy_denied",
      `The policy ${why}: ${what} (${ruleText(verdict)})`,
      ruleData(verdict),
    );
  };

  const acceptChanged = async (tool: Tool, ctx: GovernanceContext): Promise<boolean> => {
    for (const hook of hooks.onToolChanged) {
      const status = pins!.known(tool);
      if (status?.held !== true) return true;
      let accepted: boolean;
      try {
        accepted = await hook(status.change, ctx);
      } catch (error) {
        throw hookFailed("onToolChanged", error);
      }
      if (accepted === true) {
        await pins!.accept(tool, ctx.server);
        return true;
      }
    }
    return false;
  };

  return { verdictOf, authorize, authorizeRead, checkPin, acceptChanged };
}

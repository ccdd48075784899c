/**
 * The hooks of a governed client: functions that see (and may change) what goes to the server
 * and what comes back. `hooks` takes one set or a list of sets; each kind of hook then runs
 * in the order given.
 *
 * - `onToolsListed(tools, ctx)`: may hide tools (leave them out) or rewrite what the caller
 *   sees (return the new list); synchronous, as `cachedTools()` is. At call time it sees the
 *   called tool alone: a tool it leaves out cannot be called (kind `not_found`).
 * - `beforeCall({ name, arguments }, ctx)`: may return `{ arguments }` to rewrite them
 *   (before they are validated) or `{ deny: "why" }` to refuse the call (kind `denied`,
 *   reason `hook_denied`).
 * - `afterCall(result, { name, arguments }, ctx)`: may return a new result.
 * - `onPromptGet({ name, arguments }, ctx)`: as `beforeCall`, for `getPrompt`.
 * - `onResourceRead({ uri }, ctx)`: may return `{ deny: "why" }`.
 * - `onToolChanged(change, ctx)`: a pinned tool's definition changed; `true` accepts it.
 *
 * A hook that throws fails the listing or call with kind `hook` (reason `hook_failed`), the
 * hook's error as `cause`; nothing is sent.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import { checkHooks, HOOK_KINDS } from "./check.ts";
import type { ToolChange } from "./pin.ts";
import type { GovernanceContext, Tool, ToolResult } from "./types.ts";

/** A tool call as the hooks see it. */
export interface CallRequest {
  /** The tool. */
  name: string;
  /** Its arguments. */
  arguments: Record<string, unknown>;
}

/** What a `beforeCall` or `onPromptGet` hook may answer (nothing: go on unchanged). */
export type BeforeOutcome = void | undefined | {
  /** The arguments to use instead. */
  arguments?: Record<string, unknown>;
  /** Refuse, saying why. */
  deny?: string;
};

/** What an `onResourceRead` hook may answer (nothing: go on). */
export type ReadOutcome = void | undefined | {
  /** Refuse, saying why. */
  deny?: string;
};

/** A value, or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** One set of hooks; every member is optional. */
export interface Hooks {
  /** Hides or rewrites listed tools (return the list to show). */
  onToolsListed?: (tools: Tool[], ctx: GovernanceContext) => Tool[] | void;
  /** Before a call: rewrite the arguments or deny. */
  beforeCall?: (request: CallRequest, ctx: GovernanceContext) => Awaitable<BeforeOutcome>;
  /** After a call: rewrite the result. */
  afterCall?: (
    result: ToolResult,
    request: CallRequest,
    ctx: GovernanceContext,
  ) => Awaitable<ToolResult | void>;
  /** Before `getPrompt`: rewrite the arguments or deny. */
  onPromptGet?: (request: CallRequest, ctx: GovernanceContext) => Awaitable<BeforeOutcome>;
  /** Before `readResource`: deny. */
  onResourceRead?: (request: { uri: string }, ctx: GovernanceContext) => Awaitable<ReadOutcome>;
  /** A pinned tool changed: `true` accepts the new definition. */
  onToolChanged?: (change: ToolChange, ctx: GovernanceContext) => Awaitable<boolean>;
}

/** The hooks by kind, in order. */
export type HookLists = { [K in keyof Hooks]-?: NonNullable<Hooks[K]>[] };

/**
 * Checks the `hooks` option and sorts the hooks by kind.
 *
 * @param value One set of hooks, or a list of sets.
 * @returns The hooks by kind, in order.
 * @throws {TypeError} Naming the bad member.
 */
export function hookLists(value: unknown): HookLists {
  const lists = Object.fromEntries(HOOK_KINDS.map((kind) => [kind, []])) as unknown as HookLists;
  for (const [, set] of checkHooks(value)) {
    for (const [kind, fn] of Object.entries(set)) {
      if (fn !== undefined) (lists[kind as keyof HookLists] as unknown[]).push(fn);
    }
  }
  return lists;
}

/**
 * The error of a hook that threw.
 *
 * @param kind The hook.
 * @param error What it threw.
 * @returns kind `hook`, reason `hook_failed`, the error as `cause`.
 */
export function hookFailed(kind: string, error: unknown): McpError {
  if (error instanceof McpError && error.kind === "hook") return error;
  return new McpError(`The ${kind} hook failed: ${String((error as Error)?.message ?? error)}`, {
    kind: "hook",
    reason: "hook_failed",
    data: { hook: kind },
    cause: error,
  });
}

/**
 * The error of a hook that refused.
 *
 * @param kind The hook.
 * @param why What it said.
 * @returns kind `denied`, reason `hook_denied`.
 */
export function hookDenied(kind: string, why: string): McpError {
  return new McpError(`The ${kind} hook refused: ${why}`, {
    kind: "denied",
    reason: "hook_denied",
    data: { hook: kind, message: why },
  });
}

/**
 * Runs `beforeCall` or `onPromptGet` hooks in order.
 *
 * @param kind Which.
 * @param hooks The hooks.
 * @param request The request (its arguments are replaced when a hook rewrites them).
 * @param ctx The context.
 * @returns The arguments to use.
 */
export async function runBefore(
  kind: "beforeCall" | "onPromptGet",
  hooks: NonNullable<Hooks["beforeCall"]>[],
  request: CallRequest,
  ctx: GovernanceContext,
): Promise<Record<string, unknown>> {
  let args = request.arguments;
  for (const hook of hooks) {
    let outcome: BeforeOutcome;
    try {
      outcome = await hook({ name: request.name, arguments: args }, ctx);
    } catch (error) {
      throw hookFailed(kind, error);
    }
    if (outcome === undefined || outcome === null) continue;
    if (typeof outcome !== "object") throw hookFailed(kind, new TypeError("bad answer"));
    if (typeof outcome.deny === "string") throw hookDenied(kind, outcome.deny);
    if (outcome.arguments !== undefined) {
      const next = outcome.arguments as unknown;
      if (typeof next !== "object" || next === null || Array.isArray(next)) {
        throw hookFailed(kind, new TypeError("arguments must be an object"));
      }
      args = next as Record<string, unknown>;
    }
  }
  return args;
}

/**
 * Runs `onToolsListed` hooks in order.
 *
 * @param hooks The hooks.
 * @param tools The tools the earlier stages show.
 * @param ctx The context.
 * @returns The tools to show.
 */
export function runListed(
  hooks: NonNullable<Hooks["onToolsListed"]>[],
  tools: Tool[],
  ctx: GovernanceContext,
): Tool[] {
  let shown = tools;
  for (const hook of hooks) {
    let next: unknown;
    try {
      next = hook([...shown], ctx);
    } catch (error) {
      throw hookFailed("onToolsListed", error);
    }
    if (next === undefined) continue;
    if (!Array.isArray(next)) {
      throw hookFailed("onToolsListed", new TypeError("it must return the list of tools"));
    }
    shown = next as Tool[];
  }
  return shown;
}

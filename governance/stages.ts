/**
 * The shapes of the governance stages that `createGovernance` returns: who a call
 * is for (`Scope`), a tool call over any source (`ToolCall`), the stages after a call kept for
 * a result that comes later (`Finish`), and the stages themselves (`Governance`). Types only.
 *
 * @module
 */

import type { Caller, GovernanceContext, Tool, ToolResult } from "./types.ts";

/** Who a listing or call is for, and on which server. */
export interface Scope extends Caller {
  /** The server's name. */
  server: string;
  /** How the server process is contained, when known (see `GovernanceContext`). */
  containment?: GovernanceContext["containment"];
}

/** A tool call for {@linkcode Governance.callTool}. */
export interface ToolCall<R = ToolResult> {
  /** The tool. */
  name: string;
  /** Its arguments. */
  arguments: Record<string, unknown>;
  /** Who the call is for, and the server. */
  scope: Scope;
  /** The tool's definition as listed (`undefined`: the tool is not known). */
  lookup(name: string): Tool | undefined | Promise<Tool | undefined>;
  /**
   * The server's whole current listing, as listed (read after `lookup`): the `onToolsListed`
   * hooks decide the call over it. Without it they see the called tool alone.
   */
  listing?(): readonly Tool[];
  /** Makes the call. */
  send(name: string, args: Record<string, unknown>): Promise<R>;
  /**
   * `send` answered with something other than a result (a server task): `finish` runs the
   * stages after the call (the output check, `afterCall`) on the task's final result, with
   * this call's tool, arguments and caller. Keep it for the task's `awaitTask`.
   */
  started?(answer: R, finish: Finish): void;
}

/** The stages after a call, for a result that comes later (a task's). */
export type Finish = (result: ToolResult) => Promise<ToolResult>;

/** The governance stages. */
export interface Governance {
  /**
   * The tools the caller sees, after checking pins (first listing pins each tool). With
   * `complete` (every page of the server's listing, unfiltered) the pins of the tools it no
   * longer has are dropped first.
   */
  listTools(tools: readonly Tool[], scope: Scope, complete?: boolean): Promise<Tool[]>;
  /** The same, synchronously: a tool whose pin was never checked is not shown. */
  visibleTools(tools: readonly Tool[], scope: Scope): Tool[];
  /** Runs a tool call through the pipeline; a `send` answer that is not a result is returned as is. */
  callTool<R>(call: ToolCall<R>): Promise<R>;
  /** `getPrompt`: the `onPromptGet` hooks, then the prompt rules (with `scope: ["prompts"]`). */
  getPrompt<R>(
    name: string,
    args: Record<string, unknown>,
    scope: Scope,
    send: (name: string, args: Record<string, unknown>) => Promise<R>,
  ): Promise<R>;
  /**
   * `readResource`: the `onResourceRead` hooks, then the resource rules. A subscription to a
   * resource (`subscribe`, `unsubscribe`) goes through this stage too: its updates are the
   * resource's data.
   */
  readResource<R>(uri: string, scope: Scope, send: (uri: string) => Promise<R>): Promise<R>;
  /**
   * `complete`: a prompt reference (`ref/prompt`) passes the `getPrompt` stage for that prompt
   * (its arguments the completion's context and the argument being completed; a hook's
   * rewrite is not sent), a resource reference (`ref/resource`) the `readResource` stage for
   * its URI template. Completions are the prompt's or resource's data: what may not be got or
   * read may not be completed. Any other reference is passed on.
   */
  complete<R>(
    ref: Record<string, unknown>,
    args: Record<string, unknown>,
    scope: Scope,
    send: () => Promise<R>,
  ): Promise<R>;
}

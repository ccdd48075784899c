/**
 * The governance pipeline, over any tool source: {@linkcode createGovernance} takes the
 * options and returns stages that work on plain inputs (a tool list, a `send` function, the
 * caller), so one client, or a hub over many servers, can run it.
 *
 * A call runs: selection (the tool is known, shown by the filter and by the listing hooks
 * run over the server's whole current listing, its schema usable, its pin intact) →
 * `beforeCall` hooks → validation of the arguments → policy and approval (the approver sees the validated arguments) → the call →
 * `structuredContent` checked against `outputSchema` → `afterCall` hooks. Nothing is sent
 * unless every stage before the call agreed.
 *
 * @module
 */

import { memoryStore } from "../cache/memory.ts";
import { McpError } from "../protocol/errors.ts";
import { createApproval } from "./_approval.ts";
import { createGrants, createPins } from "./_state.ts";
import { hookDenied, hookFailed, runBefore, runListed } from "./hooks.ts";
import { checkGovernance, type GovernanceOptions } from "./options.ts";
import type { Finish, Governance, Scope, ToolCall } from "./stages.ts";
import type { GovernanceContext, Tool, ToolResult } from "./types.ts";
import {
  type CompiledSchema,
  compileSchemaNow,
  invalidArguments,
  invalidOutput,
  loadValidator,
  validatorLoaded,
} from "./validate.ts";

export type { Finish, Governance, Scope, ToolCall };

function contextOf(scope: Scope, tool?: Tool): GovernanceContext {
  const ctx: GovernanceContext = { assigns: scope.assigns ?? {}, server: scope.server };
  if (scope.principal !== undefined) ctx.principal = scope.principal;
  if (scope.containment !== undefined) ctx.containment = scope.containment;
  if (tool !== undefined) ctx.tool = tool;
  return ctx;
}

function isResult(value: unknown): value is ToolResult {
  return typeof value === "object" && value !== null &&
    Array.isArray((value as ToolResult).content);
}

/**
 * Creates the governance stages from the options.
 *
 * @param options The filter, validation, policy, hooks and pins, a store and a warning sink.
 * @returns The stages.
 * @throws {TypeError} Naming a malformed option.
 *
 * @example Hide a tool and refuse a bad argument, over a plain tool list
 * ```ts
 * import { createGovernance } from "./pipeline.ts";
 *
 * const tools = [
 *   { name: "add", inputSchema: { type: "object", properties: { a: { type: "number" } } } },
 *   { name: "drop", inputSchema: { type: "object" } },
 * ];
 * const governance = createGovernance({ tools: { deny: ["drop"] }, validate: true });
 * const scope = { server: "math" };
 * const shown = await governance.listTools(tools, scope);
 * if (shown.length !== 1 || shown[0].name !== "add") throw new Error("unexpected");
 * const send = (_name: string, args: Record<string, unknown>) =>
 *   Promise.resolve({ content: [{ type: "text", text: String(args.a) }], isError: false });
 * const lookup = (name: string) => tools.find((t) => t.name === name);
 * const result = await governance.callTool({ name: "add", arguments: { a: 1 }, scope, lookup, send });
 * if (result.content[0].text !== "1") throw new Error("unexpected");
 * const refused = await governance.callTool({ name: "add", arguments: { a: "1" }, scope, lookup, send })
 *   .catch((error) => error.reason);
 * if (refused !== "invalid_arguments") throw new Error("unexpected");
 * ```
 */
export function createGovernance(options: GovernanceOptions = {}): Governance {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("createGovernance: options must be an object");
  }
  const store = options.store ?? memoryStore();
  const warn = options.warn ?? (() => {});
  const settings = checkGovernance(options, store, warn);
  const { filter, hooks } = settings;
  const pins = settings.pins === undefined ? undefined : createPins(settings.pins, warn);
  const unloaded = new McpError("The schema validator is still loading", {
    kind: "unavailable",
    reason: "not_ready",
  });
  const schemas = new WeakMap<
    Tool,
    { input?: CompiledSchema; output?: CompiledSchema } | McpError
  >();

  // The validator loads on first use: its load starts now, and every async entry awaits it.
  const validating = settings.validate ? loadValidator() : undefined;
  validating?.catch(() => {}); // failed calls report it; nothing is left unhandled

  /** The tool's compiled schemas, or why they cannot be (warned once per definition). */
  const compiled = (tool: Tool) => {
    let entry = schemas.get(tool);
    if (entry !== undefined) return entry;
    // Only a synchronous read right after creation can come before the load: held back.
    if (!validatorLoaded()) return unloaded;
    try {
      entry = {
        input: compileSchemaNow(tool.inputSchema ?? { type: "object" }),
        output: tool.outputSchema === undefined ? undefined : compileSchemaNow(tool.outputSchema),
      };
    } catch (error) {
      entry = error as McpError;
      warn(`tool "${tool.name}" is left out: ${entry.message}`);
    }
    schemas.set(tool, entry);
    return entry;
  };

  /** Whether the filter, the schemas and the pin let the caller see the tool (hooks apart). */
  const shown = (tool: Tool, ctx: GovernanceContext) => {
    if (filter !== undefined && !filter(tool, ctx)) return false;
    if (settings.validate && compiled(tool) instanceof McpError) return false;
    if (pins !== undefined) {
      const status = pins.known(tool);
      if (status === undefined) {
        // Never checked (a listing the store filled): checked now, shown once it is.
        pins.status(tool, ctx.server).catch((error) => warn(`a pin check failed: ${error}`));
      }
      if (status?.held !== false) return false;
    }
    return true;
  };

  const visibleTools = (tools: readonly Tool[], scope: Scope) => {
    const ctx = contextOf(scope);
    // The filter sees each tool's context, its definition included.
    const kept = tools.filter((tool) => shown(tool, contextOf(scope, tool)));
    return hooks.onToolsListed.length === 0 ? kept : runListed(hooks.onToolsListed, kept, ctx);
  };

  /**
   * Whether the listing hooks keep `tool` in the caller's full listing (the called tool in
   * place of its listed namesake, its pin checked after): a hook that keeps the top k, caps
   * the list or drops a shadowing tool decides the call as it decided the listing.
   */
  const listedNow = (tool: Tool, listing: readonly Tool[], scope: Scope) => {
    const keep = (t: Tool) => shown(t, contextOf(scope, t));
    const listed = listing.some((t) => t.name === tool.name);
    const all = listed
      ? listing.flatMap((t) => t.name === tool.name ? [tool] : keep(t) ? [t] : [])
      : [...listing.filter(keep), tool];
    return runListed(hooks.onToolsListed, all, contextOf(scope)).some((t) => t.name === tool.name);
  };

  /** The output check and the `afterCall` hooks. */
  const after = async (
    done: ToolResult,
    name: string,
    args: Record<string, unknown>,
    output: CompiledSchema | undefined,
    ctx: GovernanceContext,
  ): Promise<ToolResult> => {
    let result = done;
    if (output !== undefined && !result.isError) {
      const issues = result.structuredContent === undefined
        ? [{ path: "", keyword: "outputSchema", message: "the result has no structuredContent" }]
        : output(result.structuredContent);
      if (issues.length > 0) throw invalidOutput(name, issues);
    }
    for (const hook of hooks.afterCall) {
      let next: unknown;
      try {
        next = await hook(result, { name, arguments: args }, ctx);
      } catch (error) {
        throw hookFailed("afterCall", error);
      }
      if (next === undefined) continue;
      if (!isResult(next)) {
        throw hookFailed("afterCall", new TypeError("it must return a result"));
      }
      result = next;
    }
    return result;
  };

  const hidden = (name: string, why: string) =>
    new McpError(`Tool "${name}" is not available: ${why}`, {
      kind: "not_found",
      reason: "hidden_tool",
    });

  const { checkPin, verdictOf, authorize, authorizeRead, acceptChanged } = createApproval(
    settings,
    createGrants(store, warn),
    pins,
    warn,
  );

  const stages: Governance = {
    async listTools(tools, scope, complete) {
      await validating;
      if (pins !== undefined) {
        if (complete === true) await pins.prune(tools, scope.server);
        for (const tool of tools) {
          const ctx = contextOf(scope, tool);
          if (filter !== undefined && !filter(tool, ctx)) continue;
          if ((await pins.status(tool, scope.server)).held) await acceptChanged(tool, ctx);
        }
      }
      return visibleTools(tools, scope);
    },
    visibleTools,
    async callTool(call) {
      await validating;
      const { name, scope } = call;
      let args = call.arguments;
      const found = call.lookup(name);
      const tool = found instanceof Promise ? await found : found;
      if (tool === undefined) {
        throw new McpError(`The server lists no tool "${name}"`, {
          kind: "not_found",
          reason: "unknown_tool",
        });
      }
      const ctx = contextOf(scope, tool);
      // Selection.
      if (filter !== undefined && !filter(tool, ctx)) {
        throw hidden(name, "the tools filter hides it");
      }
      if (hooks.onToolsListed.length > 0 && !listedNow(tool, call.listing?.() ?? [], scope)) {
        throw hidden(name, "an onToolsListed hook hides it");
      }
      const schema = settings.validate ? compiled(tool) : undefined;
      if (schema instanceof McpError) throw schema;
      if (pins !== undefined) await checkPin(tool, args, ctx);
      // Pre-hooks, validation, policy.
      if (hooks.beforeCall.length > 0) {
        args = await runBefore("beforeCall", hooks.beforeCall, { name, arguments: args }, ctx);
      }
      if (schema?.input !== undefined) {
        const issues = schema.input(args);
        if (issues.length > 0) throw invalidArguments(name, issues);
      }
      if (settings.policy) {
        const verdict = verdictOf(tool, ctx);
        if (verdict.decision !== "allow") await authorize(tool, args, ctx, verdict);
      }
      // The call, then the output check and the post-hooks.
      const result = await call.send(name, args);
      const finish: Finish = (done) => after(done, name, args, schema?.output, ctx);
      if (isResult(result)) return await finish(result) as typeof result;
      call.started?.(result, finish);
      return result;
    },
    async complete(ref, args, scope, send) {
      if (ref.type === "ref/prompt" && typeof ref.name === "string") {
        return await stages.getPrompt(ref.name, args, scope, () => send());
      }
      if (ref.type === "ref/resource" && typeof ref.uri === "string") {
        return await stages.readResource(ref.uri, scope, () => send());
      }
      return await send();
    },
    async getPrompt(name, args, scope, send) {
      const ctx = contextOf(scope);
      let use = args;
      if (hooks.onPromptGet.length > 0) {
        use = await runBefore("onPromptGet", hooks.onPromptGet, { name, arguments: args }, ctx);
      }
      if (settings.prompts) authorizeRead("prompt", name, ctx);
      return await send(name, use);
    },
    async readResource(uri, scope, send) {
      const ctx = contextOf(scope);
      for (const hook of hooks.onResourceRead) {
        let outcome;
        try {
          outcome = await hook({ uri }, ctx);
        } catch (error) {
          throw hookFailed("onResourceRead", error);
        }
        if (outcome && typeof outcome.deny === "string") {
          throw hookDenied("onResourceRead", outcome.deny);
        }
      }
      if (settings.resources) authorizeRead("resource", uri, ctx);
      return await send(uri);
    },
  };
  return stages;
}

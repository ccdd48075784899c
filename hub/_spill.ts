/**
 * Private: a hub's side of spilling. A result spilled through the hub belongs to the
 * identity of the server it came from (its transport's credentials, as the cache names
 * them) and the call's principal; `readResult` looks under each server's owner in turn. A
 * server's `maxResultChars` is the budget of its results, over its tools' own. The spill
 * code loads only when a result is shaped with spilling on, or read back.
 *
 * @module
 */

import type { Task } from "../protocol/tasks.ts";
import { McpError } from "../protocol/errors.ts";
import type { RawCallTool, ShapeSettings, ShapingContext } from "../client/shaping.ts";
import { toolBudget, withShaping } from "../client/shaping.ts";
import type { Hub, HubRoute } from "./types.ts";

/** Who a server's transport talks to, and as whom (the cache's names). */
interface CacheTarget {
  server: string;
  identity: string | undefined;
}
import type { McpClient, Tool, ToolCallOptions, ToolResult } from "../client/types.ts";
import type { ShapedResult } from "../governance/shape.ts";

/** What the hub's spilling needs. */
export interface HubSpillDeps {
  /** The hub's `shape` settings. */
  shape: ShapeSettings;
  /** Each server's `maxResultChars`. */
  budgets: Map<string, number>;
  /** Each server's transport (it names the server and the credentials). */
  transports: Map<string, { cacheTarget?(): Promise<CacheTarget> }>;
  /** Where a hub tool name leads. */
  route(name: string): HubRoute | undefined;
  /** A tool's definition on its server (the last listing), when known. */
  tool(name: string): Tool | undefined;
}

/** The hub's spilling. */
export interface HubSpill {
  /** Who the caller is, and each tool's budget. */
  context: ShapingContext;
  /** `readResult`. */
  readResult: Hub["readResult"];
  /** The `read_result` meta-tool's definition. */
  readResultTool(): Promise<Tool>;
  /** A model's `read_result` call. */
  metaCall(
    args: unknown,
    options: ToolCallOptions | undefined,
  ): Promise<ToolResult | ShapedResult | Task>;
}

/**
 * The hub's spilling.
 *
 * @param deps The settings and the hub's routes.
 * @returns The context, `readResult` and the meta-tool.
 */
export function hubSpill(deps: HubSpillDeps): HubSpill {
  const unnamed = new Map<string, string>();
  const target = (server: string): Promise<CacheTarget> => {
    const transport = deps.transports.get(server);
    return transport?.cacheTarget?.() ??
      Promise.resolve({ server: `hub:${server}`, identity: "local" });
  };
  const ownerOf = async (server: string, principal: string | undefined) => {
    const { spillOwner } = await import("../client/spill.ts");
    let own = unnamed.get(server);
    if (own === undefined) unnamed.set(server, own = crypto.randomUUID());
    return spillOwner(await target(server), own, principal);
  };
  const readResult: Hub["readResult"] = async (handle, options) => {
    const { checkReadOptions, readSpilled, spillStoreOf } = await import(
      "../client/read_result.ts"
    );
    const checked = checkReadOptions(options);
    if (typeof handle !== "string") throw new TypeError("readResult: handle must be a string");
    if (deps.shape.spill === undefined) {
      throw new McpError("No result is kept under this handle for this caller", {
        kind: "not_found",
        reason: "unknown_result",
      });
    }
    const store = spillStoreOf(deps.shape.spill);
    const candidates = [];
    for (const server of deps.transports.keys()) {
      candidates.push({ store, owner: await ownerOf(server, checked.principal) });
    }
    return await readSpilled(candidates, handle, checked);
  };
  return {
    context: {
      owner(principal, name) {
        const route = deps.route(name);
        if (route === undefined) throw new TypeError(`no server for tool ${name}`);
        return ownerOf(route.server, principal);
      },
      budgetOf(name) {
        const route = deps.route(name);
        if (route === undefined) return undefined;
        return deps.budgets.get(route.server) ?? toolBudget(deps.tool(name)?._meta);
      },
    },
    readResult,
    async readResultTool() {
      const { READ_RESULT_TOOL } = await import("../client/read_result.ts");
      return structuredClone(READ_RESULT_TOOL);
    },
    async metaCall(args, options) {
      const { readResultCall } = await import("../client/read_result.ts");
      const o = (options ?? {}) as ToolCallOptions & { shape?: string; maxChars?: number };
      const budget = typeof o.maxChars === "number" ? o.maxChars : deps.shape.maxChars;
      const result = await readResultCall(
        args,
        o.principal,
        (handle, read) => readResult(handle, { length: Math.max(100, budget - 120), ...read }),
      );
      if (o.shape !== "llm") return result;
      const text = String(result.content[0].text);
      return {
        text,
        isError: result.isError,
        approxTokens: Math.ceil(text.length / 4),
        cutChars: 0,
      };
    },
  };
}

/** What the hub's shaping of calls needs. */
export interface HubShapingDeps<C> {
  /** The hub's `shape` settings, and whether the hub was given `shape` itself. */
  shape: ShapeSettings;
  shaped: boolean;
  /** Whether the hub has its own governance. */
  governed: boolean;
  /** Each server's `maxResultChars`. */
  budgets: Map<string, number>;
  /** Each server's transport. */
  transports: Map<string, { cacheTarget?(): Promise<CacheTarget> }>;
  /** Where a hub tool name leads. */
  route(name: string): HubRoute | undefined;
  /** The server's client while it runs (a stopped lazy server has none). */
  running(server: string): McpClient | undefined;
  /** The hub's routed call. */
  call: C;
}

/**
 * Wires the hub's spilling to its calls. With hub governance, shaping is the hub's last stage
 * (the pipeline sees the raw result); so it is with the hub's own `shape` or a server's
 * `maxResultChars`; without any, the server's client shapes, with its own `shape` default.
 *
 * @param deps The settings, routes and the routed call.
 * @returns The spilling, and the call the hub makes (shaped or not).
 */
export function hubShaping<C extends RawCallTool>(
  deps: HubShapingDeps<C>,
): { spill: HubSpill; callTool: C } {
  const spill = hubSpill({
    shape: deps.shape,
    budgets: deps.budgets,
    transports: deps.transports,
    route: deps.route,
    tool(name) {
      const route = deps.route(name);
      try {
        // A stopped (lazy) server's tools are not at hand: its calls use the hub's budget.
        const client = route === undefined ? undefined : deps.running(route.server);
        return client?.cachedTools().find((tool) => tool.name === route!.name);
      } catch {
        return undefined; // not listed yet
      }
    },
  });
  const shapes = deps.governed || deps.shaped || deps.budgets.size > 0;
  const callTool = shapes ? withShaping(deps.call, deps.shape, spill.context) as C : deps.call;
  return { spill, callTool };
}

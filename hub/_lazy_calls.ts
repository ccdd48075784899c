/**
 * Private: the calls of a lazy hub's meta-tools. `search_tools` ranks the whole catalogue
 * (`search.ts`) and answers with the matches as structured content (and as JSON text, for
 * hosts that read text only); `call_tool` routes to the named tool. Arguments a model got
 * wrong fail with kind `validation`, reason `invalid_arguments`, and `data` naming each
 * wrong member, so the model can correct itself.
 *
 * @module
 */

import type { Task } from "../protocol/tasks.ts";
import { McpError } from "../protocol/errors.ts";
import type { ListAllOptions, ToolCallOptions, ToolResult } from "../client/types.ts";
import { CALL_TOOL, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SEARCH_TOOLS } from "./lazy.ts";
import type { ToolMatch } from "./search.ts";

/** Searches the catalogue as the caller (`view`) may see it. */
export type Find = (query: string, limit: number, view: ListAllOptions) => Promise<ToolMatch[]>;

type Call = (
  name: string,
  args: unknown,
  options?: ToolCallOptions,
) => Promise<ToolResult | Task>;

function invalid(tool: string, path: string, message: string): McpError {
  return new McpError(`Invalid arguments for ${tool}: ${path} ${message}`, {
    kind: "validation",
    reason: "invalid_arguments",
    data: [{ path, message }],
  });
}

function record(tool: string, args: unknown): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw invalid(tool, "/", "must be an object");
  }
  return args as Record<string, unknown>;
}

async function search(
  args: unknown,
  options: ToolCallOptions | undefined,
  find: Find,
): Promise<ToolResult> {
  const { query, limit = DEFAULT_SEARCH_LIMIT, ...extra } = record(SEARCH_TOOLS, args);
  const stray = Object.keys(extra)[0];
  if (stray !== undefined) throw invalid(SEARCH_TOOLS, `/${stray}`, "is not an argument");
  if (typeof query !== "string" || query.trim() === "") {
    throw invalid(SEARCH_TOOLS, "/query", "must be a non-empty string");
  }
  if (
    typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT
  ) {
    throw invalid(SEARCH_TOOLS, "/limit", `must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  // The caller sees what a listing for it would show (the hub-wide governance applies).
  const view = { principal: options?.principal, assigns: options?.assigns };
  const matches = await find(query, limit, view);
  const found = matches.map(({ score: _, ...match }) => match);
  return {
    content: [{ type: "text", text: JSON.stringify({ tools: found }) }],
    structuredContent: { tools: found },
    isError: false,
  };
}

/**
 * Runs a meta-tool, or returns `undefined` when `name` is none.
 *
 * @param name The called name.
 * @param args Its arguments.
 * @param options The call's options (passed on by `call_tool`).
 * @param find Searches the catalogue as the caller may see it.
 * @param call Calls a tool of the catalogue by hub name.
 * @returns The result, or `undefined`.
 */
export function lazyCall(
  name: string,
  args: unknown,
  options: ToolCallOptions | undefined,
  find: Find,
  call: Call,
): Promise<ToolResult | Task> | undefined {
  if (name === SEARCH_TOOLS) return search(args ?? {}, options, find);
  if (name !== CALL_TOOL) return undefined;
  return (async () => {
    const { name: tool, arguments: toolArgs = {}, ...extra } = record(CALL_TOOL, args ?? {});
    const stray = Object.keys(extra)[0];
    if (stray !== undefined) throw invalid(CALL_TOOL, `/${stray}`, "is not an argument");
    if (typeof tool !== "string" || tool === "") {
      throw invalid(CALL_TOOL, "/name", "must be a tool name from search_tools");
    }
    if (tool === SEARCH_TOOLS || tool === CALL_TOOL) {
      throw invalid(CALL_TOOL, "/name", "must name a tool of the catalogue, not a meta-tool");
    }
    if (typeof toolArgs !== "object" || toolArgs === null || Array.isArray(toolArgs)) {
      throw invalid(CALL_TOOL, "/arguments", "must be an object");
    }
    return await call(tool, toolArgs, options);
  })();
}

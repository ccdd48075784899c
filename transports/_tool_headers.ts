/**
 * Private: the `x-mcp-header` bookkeeping of a Streamable HTTP transport. It reads the
 * `tools/list` results that flow through, drops tools with invalid declarations before the
 * client sees them, and gives the `Mcp-Param-*` headers of later `tools/call` requests.
 *
 * @module
 */

import { isObject } from "../protocol/json.ts";
import { McpError } from "../protocol/errors.ts";
import {
  filterToolsWithValidHeaders,
  type McpHeaderDeclaration,
  mcpHeaderDeclarations,
  paramHeaders,
} from "../protocol/param_headers.ts";
import type { JsonObject, JsonRpcResult } from "../protocol/jsonrpc.ts";

/** What one transport knows about its tools' header declarations. */
export interface ToolHeaders {
  /** Filters a `tools/list` result, warns about dropped tools, remembers declarations. */
  filterListResult(message: JsonRpcResult, warn: (text: string) => void): JsonRpcResult;
  /** The `Mcp-Param-*` headers of a `tools/call` (throws for a dropped tool). */
  forCall(params: JsonObject | undefined): Record<string, string>;
}

interface ListedTool {
  name: string;
  inputSchema?: unknown;
}

/** Makes the bookkeeping of one transport (shared by its links, so it survives reconnects). */
export function toolHeaders(): ToolHeaders {
  const declarations = new Map<string, McpHeaderDeclaration[]>();
  const dropped = new Map<string, string>();
  return {
    filterListResult(message, warn) {
      const tools = message.result.tools;
      if (!Array.isArray(tools)) return message;
      const named = tools.filter((tool): tool is ListedTool =>
        isObject(tool) && typeof tool.name === "string"
      );
      const { kept, dropped: bad } = filterToolsWithValidHeaders(named);
      for (const tool of kept) {
        dropped.delete(tool.name);
        const found = mcpHeaderDeclarations(tool.inputSchema);
        if (found.ok && found.headers.length > 0) declarations.set(tool.name, found.headers);
        else declarations.delete(tool.name);
      }
      for (const tool of bad) {
        declarations.delete(tool.name);
        dropped.set(tool.name, tool.reason);
        warn(`Dropped tool "${tool.name}": invalid x-mcp-header declaration (${tool.reason})`);
      }
      if (bad.length === 0) return message;
      const keep = new Set<unknown>(kept);
      const result = {
        ...message.result,
        tools: tools.filter((tool) => keep.has(tool) || !named.includes(tool)),
      };
      return { ...message, result };
    },
    forCall(params) {
      const name = params?.name;
      if (typeof name !== "string") return {};
      const reason = dropped.get(name);
      if (reason !== undefined) {
        throw new McpError(
          `Tool "${name}" was dropped at listing: invalid x-mcp-header declaration (${reason})`,
          { kind: "not_found", reason: "invalid_header_declarations" },
        );
      }
      const found = declarations.get(name);
      return found === undefined ? {} : paramHeaders(found, params?.arguments);
    },
  };
}

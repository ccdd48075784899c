/**
 * Modern Streamable HTTP header rules: the mirrored `MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name` and `Mcp-Param-*` headers. The `=?base64?…?=` value encoding
 * (`header_value.ts`) and the `x-mcp-header` rules (`param_headers.ts`) are re-exported here.
 *
 * @module
 */

import { encodeHeaderValue } from "./header_value.ts";
import type { JsonRpcNotification, JsonRpcRequest } from "./jsonrpc.ts";
import { META_PROTOCOL_VERSION } from "./meta.ts";

export * from "./header_value.ts";
export * from "./param_headers.ts";

/** The names of the modern mirrored headers (`paramPrefix` + the declared name for arguments). */
export const MCP_HEADERS: Readonly<{
  protocolVersion: "MCP-Protocol-Version";
  method: "Mcp-Method";
  name: "Mcp-Name";
  paramPrefix: "Mcp-Param-";
}> = Object.freeze({
  protocolVersion: "MCP-Protocol-Version",
  method: "Mcp-Method",
  name: "Mcp-Name",
  paramPrefix: "Mcp-Param-",
});

/** Options for {@linkcode modernHeaders}. */
export interface ModernHeadersOptions {
  /** `Mcp-Param-*` headers from {@linkcode paramHeaders}, added as they are. */
  paramHeaders?: Record<string, string>;
}

const NAME_PARAM: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * The modern mirrored headers of a request or notification: `MCP-Protocol-Version` (from
 * `params._meta["io.modelcontextprotocol/protocolVersion"]`, when present), `Mcp-Method`,
 * and `Mcp-Name` (`params.name` for `tools/call` and `prompts/get`, `params.uri` for
 * `resources/read`, `params.taskId` for `tasks/get`, `tasks/update` and `tasks/cancel`),
 * all encoded with {@linkcode encodeHeaderValue}, plus `opts.paramHeaders`.
 *
 * @param message The outgoing request or notification.
 * @param opts Extra `Mcp-Param-*` headers.
 * @returns The header names and values.
 *
 * @example
 * ```ts
 * import { modernHeaders } from "./headers.ts";
 *
 * const headers = modernHeaders({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "resources/read",
 *   params: { uri: "file:///ü.txt", _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
 * });
 * if (headers["MCP-Protocol-Version"] !== "2026-07-28") throw new Error();
 * if (headers["Mcp-Name"] !== "=?base64?ZmlsZTovLy/DvC50eHQ=?=") throw new Error();
 * ```
 */
export function modernHeaders(
  message: JsonRpcRequest | JsonRpcNotification,
  opts: ModernHeadersOptions = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  const params = message.params;
  const meta = params?._meta;
  const version = typeof meta === "object" && meta !== null
    ? (meta as Record<string, unknown>)[META_PROTOCOL_VERSION]
    : undefined;
  if (typeof version === "string") {
    headers[MCP_HEADERS.protocolVersion] = encodeHeaderValue(version);
  }
  headers[MCP_HEADERS.method] = encodeHeaderValue(message.method);
  const key = Object.hasOwn(NAME_PARAM, message.method) ? NAME_PARAM[message.method] : undefined;
  const name = key === undefined ? undefined : params?.[key];
  if (typeof name === "string") headers[MCP_HEADERS.name] = encodeHeaderValue(name);
  return { ...headers, ...opts.paramHeaders };
}

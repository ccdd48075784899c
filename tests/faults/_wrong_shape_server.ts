/**
 * A tiny legacy MCP server over stdio whose `tools/call` answers in the shape the tool's
 * name asks for, with the right id: `string_result` (`"result": "a string"`), `both`
 * (`result` and `error`), `neither` (only the id), `bad_version` (`"jsonrpc": "1.0"`); any
 * other name gets a normal result. `server/discover` is an unknown method. Exits on stdin
 * end-of-file.
 *
 * @module
 */

import { io } from "../fixtures/_script_io.ts";

type Message = { id?: unknown; method?: string; params?: Record<string, unknown> };

function answer(id: unknown, name: string): Record<string, unknown> {
  switch (name) {
    case "string_result":
      return { jsonrpc: "2.0", id, result: "a string" };
    case "both":
      return { jsonrpc: "2.0", id, result: {}, error: { code: -32603, message: "both" } };
    case "neither":
      return { jsonrpc: "2.0", id };
    case "bad_version":
      return { jsonrpc: "1.0", id, result: { content: [] } };
    default:
      return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: name }] } };
  }
}

function reply(message: Message): Record<string, unknown> | undefined {
  const { id, method, params } = message;
  if (id === undefined) return undefined;
  switch (method) {
    case "initialize":
      return {
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "wrong-shape", version: "1.0.0" },
        },
      };
    case "tools/call":
      return answer(id, String(params?.name));
    case "ping":
      return { jsonrpc: "2.0", id, result: {} };
    default:
      return { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } };
  }
}

for await (const line of io.lines()) {
  if (!line.trim()) continue;
  const out = reply(JSON.parse(line));
  if (out !== undefined) await io.out(JSON.stringify(out) + "\n");
}
await io.exit(0);

// The answers of the minimal benchmark server, shared by the stdio and HTTP fronts.
// Plain JavaScript so it runs unchanged under Deno, Bun and Node. Dual-era: a request whose
// params._meta carries a protocol version is answered in the modern era (2026-07-28),
// anything else in the legacy era (initialize handshake).

export const MODERN = "2026-07-28";
export const LEGACY = ["2025-11-25", "2025-06-18"];
const SUPPORTED = [MODERN, ...LEGACY];
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const SERVER_INFO = { name: "bench-minimal", version: "1.0.0" };
const TOOLS = [{
  name: "echo",
  description: "Echoes the message back",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
}];

function error(id, code, message, data) {
  return {
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

/**
 * Answers one parsed JSON-RPC message. Returns the response object, or undefined for
 * notifications and responses.
 */
export function answer(message) {
  if (message === null || typeof message !== "object" || typeof message.method !== "string") {
    return undefined;
  }
  const id = message.id;
  if (id === undefined || id === null) return undefined; // a notification
  const params = message.params ?? {};
  const version = params._meta?.[VERSION_KEY];
  const modern = typeof version === "string";
  if (modern && !SUPPORTED.includes(version)) {
    return error(id, -32022, "Unsupported protocol version", {
      supported: SUPPORTED,
      requested: version,
    });
  }
  let result;
  switch (message.method) {
    case "initialize": {
      const asked = params.protocolVersion;
      result = {
        protocolVersion: LEGACY.includes(asked) ? asked : LEGACY[0],
        capabilities: { tools: {} },
        serverInfo: SERVER_INFO,
      };
      return { jsonrpc: "2.0", id, result };
    }
    case "server/discover":
      if (!modern) return error(id, -32602, "Missing _meta protocol version");
      result = {
        supportedVersions: SUPPORTED,
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "public",
      };
      break;
    case "ping":
      result = {};
      break;
    case "tools/list":
      result = modern ? { tools: TOOLS, ttlMs: 0, cacheScope: "public" } : { tools: TOOLS };
      break;
    case "tools/call": {
      if (params.name === "big") return big(id, Number(params.arguments?.bytes), modern);
      if (params.name !== "echo") return error(id, -32602, `Unknown tool: ${params.name}`);
      const text = String(params.arguments?.message ?? "");
      result = { content: [{ type: "text", text: `Echo: ${text}` }] };
      break;
    }
    default:
      return error(id, -32601, `Method not found: ${message.method}`);
  }
  if (modern) {
    result.resultType = "complete";
    result._meta = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };
  }
  return { jsonrpc: "2.0", id, result };
}

let bigText = "";

/**
 * The answer to `tools/call` of `big` (not listed): a text result whose JSON-RPC response
 * serializes to exactly `bytes` bytes of ASCII, for the peak-memory benchmark.
 */
function big(id, bytes, modern) {
  const result = { content: [{ type: "text", text: "" }] };
  if (modern) {
    result.resultType = "complete";
    result._meta = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };
  }
  const response = { jsonrpc: "2.0", id, result };
  const fill = Math.max(0, bytes - JSON.stringify(response).length);
  if (bigText.length !== fill) bigText = "x".repeat(fill);
  result.content[0].text = bigText;
  return response;
}

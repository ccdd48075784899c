/**
 * An example MCP server over stdio that speaks both eras of the protocol:
 *
 * - modern (2026-07-28): no handshake; every request carries its version and the client's
 *   capabilities in `params._meta`; `server/discover` describes the server; results carry
 *   `resultType` and the server's identity in `_meta`;
 * - legacy (2025-11-25, 2025-06-18): `initialize` negotiates a version, then
 *   `notifications/initialized`, `ping` and the usual requests.
 *
 * Its tools (`word_count`, `roll_dice`, `convert_units`, `hash`), prompt (`proofread`) and
 * resource (`example://units`) live in `_server_features.ts`. One JSON-RPC message per line
 * on stdin and stdout; logs go to stderr only.
 *
 * ```sh
 * deno run examples/server.ts      # or: bun examples/server.ts
 * ```
 *
 * `--quiet` leaves out the start-up line on stderr (for benchmarks).
 *
 * @module
 */

import { CACHEABLE, CAPABILITIES, feature, type RpcError, rpcError } from "./_server_features.ts";
import { args, exit, flush, readLines, runtime, writeLine } from "./_server_io.ts";

const SERVER_INFO = { name: "conduit-example-server", title: "Conduit example", version: "1.0.0" };
const INSTRUCTIONS = "Small offline utilities: counting words, rolling dice, converting " +
  "units and hashing text. Tool results are exact; prefer them over mental arithmetic.";
const MODERN_VERSIONS = ["2026-07-28"];
const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18"];
const SUPPORTED = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
const LOG_LEVELS = "debug info notice warning error critical alert emergency".split(" ");
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

type Id = string | number | null;
// deno-lint-ignore no-explicit-any
type Json = any;

/** The legacy session of this connection, once `initialize` has run. */
let legacyVersion: string | undefined;

const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function reply(id: Id, outcome: { result: Json } | { error: RpcError }): void {
  writeLine(JSON.stringify({ jsonrpc: "2.0", id, ...outcome }));
}

/** Modern era: check the required `_meta`, then answer with `resultType` and serverInfo. */
async function modern(method: string, params: Json): Promise<Json> {
  const meta = params?._meta;
  if (!isObject(meta)) throw rpcError(-32602, "Invalid params: params._meta is required");
  for (const key of [PROTOCOL_VERSION, CLIENT_CAPABILITIES]) {
    if (!(key in meta)) throw rpcError(-32602, `Invalid params: _meta["${key}"] is required`);
  }
  if (!isObject(meta[CLIENT_CAPABILITIES])) {
    throw rpcError(-32602, `Invalid params: _meta["${CLIENT_CAPABILITIES}"] must be an object`);
  }
  const requested = meta[PROTOCOL_VERSION];
  if (!MODERN_VERSIONS.includes(requested)) {
    throw rpcError(-32022, "Unsupported protocol version", { supported: SUPPORTED, requested });
  }
  if (LOG_LEVEL in meta && !LOG_LEVELS.includes(meta[LOG_LEVEL])) {
    throw rpcError(-32602, `Invalid params: unknown log level ${JSON.stringify(meta[LOG_LEVEL])}`);
  }
  const result = method === "server/discover"
    ? {
      supportedVersions: SUPPORTED,
      capabilities: CAPABILITIES,
      instructions: INSTRUCTIONS,
      ttlMs: 3_600_000,
      cacheScope: "public",
    }
    : await feature(method, params, "modern");
  if (result === undefined) throw rpcError(-32601, `Method not found: ${method}`);
  if (CACHEABLE.has(method)) Object.assign(result, { ttlMs: 300_000, cacheScope: "public" });
  return { resultType: "complete", ...result, _meta: { [SERVER_INFO_KEY]: SERVER_INFO } };
}

/** Legacy era: `initialize` negotiates the version; other requests need it first. */
async function legacy(method: string, params: Json): Promise<Json> {
  if (method === "ping") return {};
  if (method === "initialize") {
    const requested = params?.protocolVersion;
    if (typeof requested !== "string") {
      throw rpcError(-32602, "Invalid params: protocolVersion is required");
    }
    // Echo the client's version when we speak it, otherwise offer our latest legacy one.
    legacyVersion = LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0];
    return {
      protocolVersion: legacyVersion,
      capabilities: CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  }
  const result = await feature(method, params, "legacy");
  if (result === undefined) throw rpcError(-32601, `Method not found: ${method}`);
  return result;
}

/**
 * Which era a request belongs to: `server/discover` and anything that carries a version in
 * `_meta` are modern; `initialize` and `ping` are legacy; the rest is legacy only after
 * `initialize` (a modern client always sends `_meta`, so without it the request is invalid).
 */
function eraOf(method: string, params: Json): "modern" | "legacy" {
  if (
    method === "server/discover" || (isObject(params?._meta) && PROTOCOL_VERSION in params._meta)
  ) {
    return "modern";
  }
  if (method === "initialize" || method === "ping" || legacyVersion !== undefined) return "legacy";
  return "modern";
}

async function handle(message: Json): Promise<void> {
  if (!isObject(message) || typeof message.method !== "string") {
    // A response (we send no requests) is ignored; anything else is not JSON-RPC.
    if (!isObject(message) || !("result" in message || "error" in message)) {
      reply(message?.id ?? null, { error: rpcError(-32600, "Invalid Request") });
    }
    return;
  }
  const { id, method, params } = message;
  if (!("id" in message)) {
    // Notifications: `notifications/initialized` ends the legacy handshake; we have nothing
    // to cancel (every request finishes at once) and ignore the rest.
    return;
  }
  try {
    const era = eraOf(method, params);
    const result = era === "modern" ? await modern(method, params) : await legacy(method, params);
    reply(id, { result });
  } catch (error) {
    if (isObject(error) && typeof error.code === "number") reply(id, { error: error as RpcError });
    else {
      console.error(`example server: ${method} failed:`, error);
      reply(id, { error: rpcError(-32603, "Internal error") });
    }
  }
}

if (!args.includes("--quiet")) {
  console.error(`conduit example server (${runtime}): speaking MCP on stdio`);
}
const inFlight = new Set<Promise<void>>();
await readLines((line) => {
  if (line.trim() === "") return;
  let message: Json;
  try {
    message = JSON.parse(line);
  } catch {
    return reply(null, { error: rpcError(-32700, "Parse error") });
  }
  // Requests run concurrently; answers may come out of order, as JSON-RPC allows.
  const task = handle(message);
  inFlight.add(task);
  task.finally(() => inFlight.delete(task));
});
await Promise.all(inFlight);
await flush();
exit(0);

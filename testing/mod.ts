/**
 * `@conduit/mcp/testing`: test a host without a real server, and pin a real server's
 * behaviour in a test.
 *
 * - {@linkcode mockServer}: an MCP server in one call, in both eras, reached in-process, over
 *   HTTP (a `fetch` handler) or as a stdio child ({@linkcode mockStdio}); `server.requests`
 *   holds what it got.
 * - {@linkcode record} and {@linkcode replay}: keep a real session as a cassette (NDJSON,
 *   normalised and redacted), and answer from it later.
 *
 * @example A mock server in the legacy era, asking the client for input
 * ```ts
 * import { mockServer } from "./mod.ts";
 * import { createClient } from "../mod.ts";
 *
 * const server = mockServer({
 *   eras: "legacy",
 *   tools: [{
 *     name: "greet",
 *     handler: async (_args, ctx) => {
 *       const answer = await ctx.elicit({ message: "Your name?", requestedSchema: { type: "object" } });
 *       return `Hello, ${(answer.content as { name: string }).name}`;
 *     },
 *   }],
 * });
 * await using client = createClient({
 *   transport: server.transport(),
 *   handler: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
 * });
 * const result = await client.callTool("greet");
 * if (client.era() !== "legacy" || result.content[0].text !== "Hello, Ada") throw new Error("unexpected");
 * ```
 *
 * @module
 */

export { type HttpOptions, type MockServer, mockServer } from "./mock_server.ts";
export { mockStdio, type MockStdioCommand, type MockStdioOptions } from "./stdio.ts";
export { record, type Recording, type RecordOptions } from "./record.ts";
export { type Replay, replay, type ReplayOptions } from "./replay.ts";
export {
  type Cassette,
  type CassetteEntry,
  formatCassette,
  parseCassette,
  type RecordedProbe,
} from "./cassette.ts";
export type { RedactOptions } from "./_normalize.ts";
export type * from "./types.ts";
// The library's types these signatures name, so this entry documents itself.
export type {
  DecodeFailure,
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResult,
} from "../protocol/jsonrpc.ts";
export type { Implementation, LogLevel } from "../protocol/meta.ts";
export type { McpError, McpErrorInit, McpErrorKind } from "../protocol/errors.ts";
export type { Era } from "../protocol/versions.ts";
export type {
  InProcessConnection,
  InProcessPeer,
  InProcessServer,
} from "../transports/in_process.ts";
export type * from "../transports/transport.ts";

/**
 * `createClient` and `connectClient`: the public {@linkcode McpClient}, assembled from the
 * connection, the request helpers, pagination and notifications.
 *
 * @module
 */

import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { resolveOptions } from "./_options.ts";
import { createConnection } from "./connection.ts";
import { createNotificationHub } from "./notifications.ts";
import { createToolCache, listAll, listPage } from "./pagination.ts";
import {
  callTool,
  checkOptions,
  complete,
  getPrompt,
  ping,
  readResource,
  type Requester,
  setLogLevel,
} from "./requests.ts";
import type {
  ClientOptions,
  McpClient,
  Prompt,
  PromptsPage,
  Resource,
  ResourcesPage,
  ResourceTemplate,
  ResourceTemplatesPage,
  ToolsPage,
} from "./types.ts";
import { McpError } from "../protocol/errors.ts";

/**
 * Creates a client and returns at once: the connection runs in the background and requests
 * made before it is ready wait in a queue. Use `await client.ready()` (or
 * {@linkcode connectClient}) to wait for the handshake.
 *
 * @param options The transport and settings.
 * @returns The client.
 * @throws {TypeError} Naming the bad option.
 *
 * @example Talk to a tiny in-process server
 * ```ts
 * import { createClient } from "./client.ts";
 * import { inProcess, type InProcessServer } from "../transports/in_process.ts";
 *
 * const server: InProcessServer = {
 *   connect: (peer) => ({
 *     receive(message) {
 *       if (!("id" in message) || !("method" in message)) return;
 *       const result = message.method === "server/discover"
 *         ? { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "private" }
 *         : { content: [{ type: "text", text: "hi" }] };
 *       peer.send({ jsonrpc: "2.0", id: message.id, result: { resultType: "complete", ...result } });
 *     },
 *   }),
 * };
 *
 * await using client = createClient({ transport: inProcess(server) });
 * const result = await client.callTool("echo", { message: "hi" });
 * if (client.era() !== "modern" || result.content[0].text !== "hi") throw new Error("unexpected");
 * ```
 */
export function createClient(options: ClientOptions): McpClient {
  const resolved = resolveOptions(options);
  const hub = createNotificationHub(resolved.warn);
  const tools = createToolCache();
  const connection = createConnection(resolved, {
    notification(message: JsonRpcNotification) {
      if (message.method === "notifications/tools/list_changed") tools.invalidate();
      hub.publish({ method: message.method, params: message.params ?? {} });
    },
    closed: () => hub.end(),
  });
  const requester: Requester = {
    request: connection.request,
    ready: (timeout) => connection.ready(timeout ?? resolved.requestTimeout),
    era: connection.currentEra,
    setLogLevel: connection.setLogLevel,
    warn: resolved.warn,
  };
  const close = () => connection.close();

  const client: McpClient = {
    ready(timeout) {
      if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0)) {
        throw new TypeError("timeout must be a positive number of milliseconds");
      }
      return connection.ready(timeout);
    },
    status: connection.status,
    era() {
      const era = connection.currentEra();
      if (era === undefined) {
        throw new McpError("No handshake yet: the era is not known", {
          kind: "unavailable",
          reason: "not_ready",
        });
      }
      return era;
    },
    serverInfo: connection.serverInfo,
    close,
    reconnect: connection.reconnect,
    ping: (options) => ping(requester, options),
    setLogLevel: (level, options) => setLogLevel(requester, level, options),
    async request(method, params, options) {
      if (typeof method !== "string" || method === "") {
        throw new TypeError("method must be a non-empty string");
      }
      if (
        params !== undefined &&
        (typeof params !== "object" || params === null || Array.isArray(params))
      ) {
        throw new TypeError("params must be an object");
      }
      return await connection.request(method, params, checkOptions(options));
    },
    async listTools(options) {
      const page = await listPage(requester, "tools", options);
      return { tools: page.items, nextCursor: page.nextCursor } as ToolsPage;
    },
    async listPrompts(options) {
      const page = await listPage(requester, "prompts", options);
      return { prompts: page.items, nextCursor: page.nextCursor } as PromptsPage;
    },
    async listResources(options) {
      const page = await listPage(requester, "resources", options);
      return { resources: page.items, nextCursor: page.nextCursor } as ResourcesPage;
    },
    async listResourceTemplates(options) {
      const page = await listPage(requester, "resourceTemplates", options);
      return {
        resourceTemplates: page.items,
        nextCursor: page.nextCursor,
      } as ResourceTemplatesPage;
    },
    listAllTools: (options) => tools.listAll(requester, options),
    listAllPrompts: async (options) =>
      (await listAll(requester, "prompts", options)).items as Prompt[],
    listAllResources: async (options) =>
      (await listAll(requester, "resources", options)).items as Resource[],
    listAllResourceTemplates: async (options) =>
      (await listAll(requester, "resourceTemplates", options)).items as ResourceTemplate[],
    cachedTools: () => tools.cached(),
    tool: (name) => tools.tool(name),
    callTool: (name, args, options) => callTool(requester, name, args, options),
    getPrompt: (name, args, options) => getPrompt(requester, name, args, options),
    readResource: (uri, options) => readResource(requester, uri, options),
    complete: (ref, argument, options) => complete(requester, ref, argument, options),
    subscribeNotifications: (listener) => hub.subscribe(listener),
    notifications: (options) => hub.iterate(options),
    [Symbol.asyncDispose]: close,
  };
  return client;
}

/**
 * Creates a client and waits until it is ready: `createClient(options)` + `ready()`. If the
 * client cannot get ready it is closed and the promise rejects with the reason.
 *
 * @param options The transport and settings.
 * @param timeout The longest wait in milliseconds (default: until the client gives up).
 * @returns The ready client.
 *
 * @example
 * ```ts
 * import { connectClient } from "./client.ts";
 * import { inProcess } from "../transports/in_process.ts";
 *
 * const transport = inProcess({
 *   connect: (peer) => ({
 *     receive(message) {
 *       if (!("id" in message) || !("method" in message)) return;
 *       const result = { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {} };
 *       peer.send({ jsonrpc: "2.0", id: message.id, result });
 *     },
 *   }),
 * });
 * await using client = await connectClient({ transport });
 * if (client.status().state !== "ready") throw new Error("expected ready");
 * ```
 */
export async function connectClient(options: ClientOptions, timeout?: number): Promise<McpClient> {
  const client = createClient(options);
  try {
    await client.ready(timeout);
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

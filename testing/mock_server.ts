/**
 * `mockServer(definition)`: an MCP server for a host's tests, in one call. It speaks both eras
 * (modern `server/discover` with per-request `_meta`, and the legacy `initialize` session),
 * serves the definition's tools, prompts, resources, templates and completions, asks the
 * client for input (modern `input_required` rounds, legacy server requests), sends progress,
 * logs and list changes, runs tool calls as tasks, answers `ttlMs`/`cacheScope`, and records
 * every request it got. It is reached in-process (`transport()`), over HTTP (`fetch`), or as
 * a stdio script (`mockStdio` in `stdio.ts`).
 *
 * @module
 */

import type { JsonObject } from "../protocol/jsonrpc.ts";
import { inProcess, type InProcessServer } from "../transports/in_process.ts";
import type { Transport } from "../transports/transport.ts";
import type { Core } from "./_core.ts";
import { broadcast, endListens, openConnection } from "./_connection.ts";
import { httpHandler, type HttpOptions } from "./_http.ts";
import { modernDetail, taskShape } from "./_tasks.ts";
import type { MockDefinition, MockRequest } from "./types.ts";

export type { HttpOptions } from "./_http.ts";

/** A running mock server. */
export interface MockServer extends InProcessServer {
  /** The definition it serves; changes to it show from the next request on. */
  readonly definition: MockDefinition;
  /** Every request and notification it received, in order, on every connection. */
  readonly requests: MockRequest[];
  /** The methods of `requests`, in order. */
  methods(): string[];
  /** A fresh in-process transport to it (`connect({ transport })` or `createClient`). */
  transport(): Transport;
  /**
   * A `fetch`-shaped handler speaking Streamable HTTP in both eras: serve it with
   * `Deno.serve`, `Bun.serve` or Hono, or pass `(input, init) => server.fetch(new Request(input, init))`
   * as a transport's `fetch`.
   */
  fetch(request: Request): Promise<Response>;
  /** Another HTTP handler of the same server, with its own options (e.g. `bearer`). */
  http(options: HttpOptions): (request: Request) => Promise<Response>;
  /** Sends `notifications/<list>/list_changed` (legacy sessions, modern listens that asked); returns how many. */
  changeList(list: "tools" | "prompts" | "resources"): number;
  /** Sends `notifications/resources/updated` to the subscribers of `uri`; returns how many. */
  updateResource(uri: string): number;
  /** Sends any notification to every legacy session; returns how many. */
  notify(method: string, params?: JsonObject): number;
  /** Ends every modern listen gracefully. */
  endListens(): void;
  /** The tasks it ran, as the wire of their era shows them. */
  tasks(): JsonObject[];
  /** How many connections are open. */
  open(): number;
  /** Closes every connection from the server's side (like a crash). */
  dropAll(): void;
}

/**
 * Creates a mock MCP server.
 *
 * @param definition What it serves (all optional).
 * @returns The server: `transport()` for the client, `requests` for assertions.
 *
 * @example A host's unit test against a mock server
 * ```ts
 * import { mockServer } from "./mod.ts";
 * import { createClient } from "../client/client.ts";
 *
 * const server = mockServer({
 *   tools: [{ name: "add", handler: ({ a, b }) => String(Number(a) + Number(b)) }],
 * });
 * await using client = createClient({ transport: server.transport() });
 * const result = await client.callTool("add", { a: 2, b: 3 });
 * if (result.content[0].text !== "5") throw new Error("unexpected result");
 * const call = server.requests.find((r) => r.method === "tools/call");
 * if (call?.era !== "modern" || (call.params.arguments as { a: number }).a !== 2) {
 *   throw new Error("unexpected request");
 * }
 * ```
 *
 * @example The same server over Streamable HTTP, legacy era, without a socket
 * ```ts
 * import { mockServer } from "./mod.ts";
 * import { createClient, streamableHttp } from "../mod.ts";
 *
 * const server = mockServer({ eras: "legacy", prompts: [{ name: "hello", handler: () => "Hi!" }] });
 * const transport = streamableHttp("http://mock.test/mcp", {
 *   fetch: (input, init) => server.fetch(new Request(input, init)),
 * });
 * await using client = createClient({ transport });
 * const prompt = await client.getPrompt("hello");
 * const session = server.requests.find((r) => r.method === "prompts/get")?.headers?.["mcp-session-id"];
 * if (client.era() !== "legacy" || prompt.messages.length !== 1 || !session) throw new Error("unexpected");
 * ```
 */
export function mockServer(definition: MockDefinition = {}): MockServer {
  if (typeof definition !== "object" || definition === null) {
    throw new TypeError("mockServer: the definition must be an object");
  }
  const core: Core = {
    def: definition,
    requests: [],
    conns: new Set(),
    tasks: new Map(),
    nextTask: 0,
  };
  // Task status: modern listens that asked for the task, every legacy session (optional there).
  core.onTask = (task) => {
    if (task.era === "modern") {
      const wants = (f: JsonObject) => Array.isArray(f.taskIds) && f.taskIds.includes(task.taskId);
      const { resultType: _, ...detail } = modernDetail(task);
      broadcast(core, "notifications/tasks", detail, wants, () => false);
    } else broadcast(core, "notifications/tasks/status", taskShape(task, "legacy"), () => false);
  };
  const peers = new Set<(reason?: string) => void>();
  const handler = httpHandler(core);
  const server: MockServer = {
    definition,
    requests: core.requests,
    methods: () => core.requests.map((r) => r.method),
    connect(peer) {
      const conn = openConnection(core, {
        send: (message) => peer.send(message),
        close: (reason) => peer.close(reason),
      }, "in_process");
      const drop = (reason?: string) => {
        conn.close();
        peer.close(reason ?? "dropped by the mock server");
      };
      peers.add(drop);
      return {
        receive: (message) => conn.receive(message),
        close: () => {
          peers.delete(drop);
          conn.close();
        },
      };
    },
    transport: () => inProcess(server),
    fetch: (request) => handler(request),
    http: (options) => httpHandler(core, options),
    changeList: (list) =>
      broadcast(
        core,
        `notifications/${list}/list_changed`,
        {},
        (f) => f[`${list}ListChanged`] === true,
      ),
    updateResource: (uri) =>
      broadcast(
        core,
        "notifications/resources/updated",
        { uri },
        (f) => Array.isArray(f.resourceSubscriptions) && f.resourceSubscriptions.includes(uri),
        (conn) => conn.subscriptions.has(uri),
      ),
    notify: (method, params = {}) => broadcast(core, method, params, () => false),
    endListens: () => endListens(core),
    tasks: () => [...core.tasks.values()].map((task) => taskShape(task, task.era)),
    open: () => core.conns.size,
    dropAll() {
      for (const drop of [...peers]) drop();
      for (const conn of [...core.conns]) conn.close();
    },
  };
  return server;
}

/**
 * The public types of the hub: its options, the servers it takes, what `status()` reports,
 * and the {@linkcode Hub} interface.
 *
 * @module
 */

import type { McpError } from "../protocol/errors.ts";
import type { Era } from "../protocol/versions.ts";
import type { GovernanceOptions } from "../governance/options.ts";
import type { ClientOptions, McpClient, ServerNotification } from "../client/types.ts";
import type { StdioOptions } from "../transports/stdio.ts";
import type { HttpAuth, StreamableHttpOptions } from "../transports/streamable_http.ts";
import type { Transport } from "../transports/transport.ts";

/** The client options a server entry may carry (everything but the transport). */
export type HubClientOptions = Omit<ClientOptions, "transport">;

/** A server started as a child process (stdio), with its client options. */
export interface HubStdioServer extends StdioOptions, HubClientOptions {
  /** `"stdio"` when given (config files name it). */
  type?: "stdio";
}

/** A server reached over Streamable HTTP, with its client options. */
export interface HubHttpServer extends HubClientOptions {
  /** `"http"` when given; `"sse"` (an older hosts' name) is reached over Streamable HTTP too. */
  type?: "http" | "sse";
  /** The endpoint. */
  url: string | URL;
  /** Headers sent with every request (e.g. an API key header). */
  headers?: Record<string, string>;
  /** Credentials, as the HTTP transport's `auth` option takes them. */
  auth?: HttpAuth;
  /** The HTTP transport's other options. */
  http?: Omit<StreamableHttpOptions, "headers" | "auth">;
}

/** A server reached through a transport of the caller's, with its client options. */
export interface HubTransportServer extends HubClientOptions {
  /** The transport, e.g. `inProcess(…)`. */
  transport: Transport;
}

/**
 * One server of a hub: what `connect()` takes (a URL, `{ command, args, env, cwd }`, a
 * transport), or an object that adds the server's client options to a command, a `url` or
 * a `transport`.
 */
export type HubServer =
  | string
  | URL
  | Transport
  | HubStdioServer
  | HubHttpServer
  | HubTransportServer;

/** How the hub restarts a server that failed to start, or whose client gave up reconnecting. */
export interface HubReconnectOptions {
  /** Restarts in a row before the server is left `failed` (default: no limit). */
  attempts?: number;
  /** The first delay in milliseconds (default 1 000). */
  initialDelay?: number;
  /** The longest delay in milliseconds (default 30 000). */
  maxDelay?: number;
  /** The growth factor per restart (default 2). */
  factor?: number;
  /** The random share of each delay, 0 to 1 (default 0.2). */
  jitter?: number;
}

/** The hub-wide governance: the options of `createGovernance`, warnings going to `onWarning`. */
export type HubGovernanceOptions = Omit<GovernanceOptions, "warn">;

/** The options of `hub()`. */
export interface HubOptions {
  /** The servers, by name: the name prefixes their tools and prompts. */
  servers: Record<string, HubServer>;
  /** Prefix tool and prompt names with the server's name (default `true`). */
  prefix?: boolean;
  /** What joins the server's name and the tool's (default `"__"`). */
  separator?: string;
  /**
   * List two meta-tools, `search_tools` and `call_tool`, instead of every tool (default
   * `false`); every tool stays callable by its hub name.
   */
  lazy?: boolean;
  /** How servers are restarted (default: with backoff, for ever), or `false` for never. */
  reconnect?: HubReconnectOptions | false;
  /**
   * Governance over the whole hub (the client's `tools`, `validate`, `policy`, `hooks`,
   * `pin`, and a `store`): one pipeline over the merged catalogue, whose rules and filters
   * see hub names (`docs__search`, or `docs__*` for a server's tools; a rule's `servers`
   * match the server's name) and whose `ctx.server` is the tool's server. A server's own
   * governance goes in its entry and sees its own names.
   */
  governance?: HubGovernanceOptions;
  /**
   * Receives diagnostics (a server that failed, a name collision); never secrets. Default:
   * `console.warn` (stderr), prefixed `@conduit/mcp:`.
   */
  onWarning?: (message: string) => void;
}

/**
 * Where a server is:
 * - `connecting`, `ready`, `reconnecting`: its client's state;
 * - `waiting`: it failed (to start, or its client gave up reconnecting) and the hub
 *   restarts it at `nextRetry`;
 * - `failed`: it failed and the hub stopped restarting it (`reconnect` settings);
 * - `closed`: the hub was closed.
 */
export type HubServerState =
  | "connecting"
  | "ready"
  | "reconnecting"
  | "waiting"
  | "failed"
  | "closed";

/** One server's status. */
export interface HubServerStatus {
  /** Where it is. */
  state: HubServerState;
  /** Its client's failed connection attempts since it was last ready. */
  attempts: number;
  /** The hub's restarts of it since it was last ready. */
  restarts: number;
  /** Its last failure (kind and reason), if any since it was last ready. */
  error?: McpError;
  /** When the hub restarts it (epoch milliseconds), while `waiting`. */
  nextRetry?: number;
  /** The negotiated era, once known. */
  era?: Era;
  /** The negotiated version, once known. */
  version?: string;
}

/**
 * Two servers listed the same name (or URI): the server declared first keeps it, the other's
 * item is listed as `resolvedAs` (a resource URI stays with the first server only).
 */
export interface HubCollision {
  /** What collided. */
  kind: "tool" | "prompt" | "resource";
  /** The name (or URI) both would have had. */
  name: string;
  /** The server that lost it. */
  server: string;
  /** Its own name for the item (or the URI). */
  original: string;
  /** The name it got instead (absent for a resource). */
  resolvedAs?: string;
}

/** What `hub.status()` reports. */
export interface HubStatus {
  /** Each server's status, by name, in declaration order. */
  servers: Record<string, HubServerStatus>;
  /** The collisions of the latest listings. */
  collisions: HubCollision[];
}

/** A server notification, with the name of the server that sent it. */
export interface HubNotification extends ServerNotification {
  /** The server's name. */
  server: string;
}

/** Receives the hub's notifications. */
export type HubNotificationListener = (notification: HubNotification) => void;

/** Where a hub name leads: the server and the server's own name for the item. */
export interface HubRoute {
  /** The server's name. */
  server: string;
  /** The tool's (or prompt's) name on that server. */
  name: string;
}

/**
 * The methods of a hub that take the shape of {@linkcode McpClient}'s, so code written for a
 * client (a model adapter, say) takes a hub as well.
 */
export type HubClientMethods = Pick<
  McpClient,
  | "listAllTools"
  | "callTool"
  | "getTask"
  | "awaitTask"
  | "cancelTask"
  | "listAllPrompts"
  | "getPrompt"
  | "listAllResources"
  | "listAllResourceTemplates"
  | "readResource"
  | "subscribe"
  | "unsubscribe"
  | "close"
  | typeof Symbol.asyncDispose
>;

/**
 * One object over many named servers: their tools, prompts and resources under one
 * catalogue, each call routed to the server that owns it. A server that fails to start or
 * dies later is reported in `status()` and restarted with backoff; the others go on.
 *
 * `listAllTools` and `callTool` have the signatures of {@linkcode McpClient}'s, so code
 * written for a client takes a hub as well.
 *
 * @example Two in-process servers under one hub
 * ```ts
 * import { hub } from "./hub.ts";
 * import { inProcess } from "../transports/in_process.ts";
 *
 * const server = (tool: string) =>
 *   inProcess({
 *     connect: (peer) => ({
 *       receive(message) {
 *         if (!("id" in message) || !("method" in message)) return;
 *         const result = message.method === "tools/list"
 *           ? { tools: [{ name: tool, inputSchema: { type: "object" } }] }
 *           : message.method === "tools/call"
 *           ? { content: [{ type: "text", text: tool }] }
 *           : { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } };
 *         peer.send({ jsonrpc: "2.0", id: message.id, result: { resultType: "complete", ...result } });
 *       },
 *     }),
 *   });
 * await using servers = hub({ servers: { docs: server("search"), mail: server("send") } });
 * const tools = await servers.listAllTools();
 * const result = await servers.callTool("mail__send", {});
 * if (tools.map((t) => t.name).join() !== "docs__search,mail__send") throw new Error();
 * if (result.content[0].text !== "send") throw new Error("unexpected");
 * ```
 */
export interface Hub extends HubClientMethods {
  /**
   * Waits until every server was ready once or failed its first start (one that failed is
   * in `status()`, and restarted in the background). Rejects only with kind `timeout`
   * after `timeout` ms.
   */
  ready(timeout?: number): Promise<void>;
  /** Each server's state, and the latest listings' name collisions. */
  status(): HubStatus;
  /** The server names, in declaration order. */
  serverNames(): string[];
  /**
   * The client of one server, e.g. for a method the hub does not route. An escape hatch from
   * the hub's `governance`: the client runs only its own server entry's governance (on the
   * server's own names), never the hub-wide one. Hand it to no one the hub governs.
   *
   * @throws {McpError} kind `not_found`, reason `unknown_server`.
   */
  client(server: string): McpClient;
  /** Where a hub tool name leads (after a listing, or by its prefix), or `undefined`. */
  resolveTool(name: string): HubRoute | undefined;
  /** Receives every server's notifications (not progress); returns the unsubscribe function. */
  subscribeNotifications(listener: HubNotificationListener): () => void;
  /** Every server's notifications as an async iterator, until `signal` aborts or the hub closes. */
  notifications(options?: { signal?: AbortSignal }): AsyncIterableIterator<HubNotification>;
}

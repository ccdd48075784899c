/**
 * The public types of the hub: its options, the servers it takes, what `status()` reports,
 * and the {@linkcode Hub} interface.
 *
 * @module
 */

import type { McpError } from "../protocol/errors.ts";
import type { Era } from "../protocol/versions.ts";
import type { GovernanceOptions } from "../governance/options.ts";
import type { ShapeDefaults } from "../governance/shape.ts";
import type {
  ClientOptions,
  ListAllOptions,
  McpClient,
  ServerNotification,
  Tool,
} from "../client/types.ts";
import type { StdioOptions } from "../transports/stdio.ts";
import type { HttpAuth, StreamableHttpOptions } from "../transports/streamable_http.ts";
import type { Containment, Transport } from "../transports/transport.ts";
import type { CacheStore } from "../cache/store.ts";

/**
 * When a server starts: `"eager"` at `hub()`, `"lazy"` on its first call (or when its
 * catalogue must be learnt), and stopped again after `idleMs` without calls.
 */
export type HubStart = "eager" | "lazy";

/** The hub's own keys of a server entry: how it starts and which of its tools stay listed. */
export interface HubEntryOptions {
  /** When it starts (default: the hub's `start`). */
  start?: HubStart;
  /** A lazy server stops after this many milliseconds without calls (default: the hub's). */
  idleMs?: number;
  /**
   * Its tools a lazy hub lists beside the meta-tools: `true` for all of them, or their names
   * on the server.
   */
  alwaysLoad?: boolean | string[];
}

/**
 * The client options a server entry may carry (everything but the transport), the hub's own
 * keys of an entry, and `maxResultChars`: the budget of the server's results shaped through
 * the hub (over the hub's `shape.maxChars` and the tool's own
 * `_meta["anthropic/maxResultSizeChars"]`; a call's `maxChars` goes first).
 */
export type HubClientOptions =
  & Omit<ClientOptions, "transport">
  & HubEntryOptions
  & { maxResultChars?: number };

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
   * `false`), then the tools kept loaded (`alwaysLoad`) and those searches found this
   * session; every tool stays callable by its hub name. Servers then start lazily by default.
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
  /**
   * When servers start (default `"lazy"` with `lazy: true`, else `"eager"`); a server entry's
   * `start` overrides it.
   */
  start?: HubStart;
  /**
   * How long a lazily started server stays up without calls, in milliseconds (default
   * 300 000; `Infinity` keeps it up).
   */
  idleMs?: number;
  /**
   * Where each server's last complete `tools/list` is kept (its catalogue, with pin
   * fingerprints, when it was taken and how long it took): a `memoryStore()`, `denoKvStore(kv)`
   * or `redisStore(command)`. Searches, `call_tool`'s routing and listings answer from it
   * without starting a server, and another process with the same store starts warm. Default:
   * a memory store of the hub's own when any server starts lazily, else none.
   */
  cache?: CacheStore;
  /** How long a stored catalogue is used before its server is asked again (default one day). */
  catalogueTtlMs?: number;
  /**
   * Tools a lazy hub lists beside the meta-tools: server names (all their tools) or hub tool
   * names (`docs__search`). A tool whose `_meta["anthropic/alwaysLoad"]` is `true` is listed
   * too.
   */
  alwaysLoad?: string[];
  /**
   * Defaults of the hub's shaped calls (`shape: "llm"`): `maxChars` and `spill` (results
   * over budget kept whole behind a handle for `readResult` and the `read_result`
   * meta-tool, which the hub then lists). Given (or with hub `governance`, or a server's
   * `maxResultChars`), the hub shapes; otherwise each server's client does.
   */
  shape?: ShapeDefaults;
}

/**
 * Where a server is:
 * - `stopped`: a lazy server not running (never started, or stopped after `idleMs`);
 * - `starting`: a lazy server being started for a call or to learn its catalogue;
 * - `connecting`, `ready`, `reconnecting`: its client's state;
 * - `waiting`: it failed (to start, or its client gave up reconnecting) and the hub
 *   restarts it at `nextRetry`;
 * - `failed`: it failed and the hub stopped restarting it (`reconnect` settings);
 * - `closed`: the hub was closed.
 */
export type HubServerState =
  | "stopped"
  | "starting"
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
  /**
   * How its process is contained, for a stdio server: `"deno-permissions"`, `"bwrap"` or
   * `"none"` (see `ClientStatus.containment`).
   */
  containment?: Containment;
  /** When it starts: `"eager"` or `"lazy"`. */
  start: HubStart;
  /** Its last complete catalogue (live or stored), once known: its age and size. */
  catalogue?: { ageMs: number; tools: number };
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

/** What `hub.listCatalogue()` returns. */
export interface HubCatalogue {
  /** Every tool under its hub name, as the caller may see it. */
  tools: Tool[];
  /** The hub names of the tools kept loaded (`alwaysLoad`), in the catalogue's order. */
  alwaysLoad: string[];
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
  | "readResult"
  | "spilling"
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
   * Waits until every running server was ready once or failed its first start (one that
   * failed is in `status()`, and restarted in the background); a lazy server not running is
   * not waited for. Rejects only with kind `timeout` after `timeout` ms.
   */
  ready(timeout?: number): Promise<void>;
  /** Each server's state, and the latest listings' name collisions. */
  status(): HubStatus;
  /** The server names, in declaration order. */
  serverNames(): string[];
  /**
   * The client of one server, e.g. for a method the hub does not route. An escape hatch from
   * the hub's `governance`: the client runs only its own server entry's governance (on the
   * server's own names), never the hub-wide one. Hand it to no one the hub governs. A lazy
   * server is started by this, and stopped after `idleMs` without calls through the hub.
   *
   * @throws {McpError} kind `not_found`, reason `unknown_server`.
   */
  client(server: string): McpClient;
  /** Where a hub tool name leads (after a listing, or by its prefix), or `undefined`. */
  resolveTool(name: string): HubRoute | undefined;
  /**
   * The whole catalogue, whether or not the hub is lazy (stored catalogues answer; a server
   * never seen is started once to learn its own), with the names of the tools kept loaded
   * (`alwaysLoad`): what the model adapters' `defer: true` emits, each tool but those
   * deferred.
   */
  listCatalogue(options?: ListAllOptions): Promise<HubCatalogue>;
  /**
   * Learns the catalogue of every server the store lacks (or holds past its ttl), starting
   * each such server once (a lazy one stops again after `idleMs`); resolves when all are
   * stored or failed (reported in `status()` and through `onWarning`).
   */
  warm(): Promise<void>;
  /** Receives every server's notifications (not progress); returns the unsubscribe function. */
  subscribeNotifications(listener: HubNotificationListener): () => void;
  /** Every server's notifications as an async iterator, until `signal` aborts or the hub closes. */
  notifications(options?: { signal?: AbortSignal }): AsyncIterableIterator<HubNotification>;
}

/**
 * The public types of the client: its options, the {@linkcode McpClient} interface, and the
 * shapes of what it returns.
 *
 * @module
 */

import type { ClientHandler } from "../protocol/capabilities.ts";
import type { McpError } from "../protocol/errors.ts";
import type { Implementation, LogLevel } from "../protocol/meta.ts";
import type { Era } from "../protocol/versions.ts";
import type { Transport } from "../transports/transport.ts";
import type {
  CompleteResult,
  CompletionArgument,
  CompletionRef,
  GetPromptResult,
  Prompt,
  PromptsPage,
  ReadResourceResult,
  Resource,
  ResourcesPage,
  ResourceTemplate,
  ResourceTemplatesPage,
  Tool,
  ToolResult,
  ToolsPage,
} from "./shapes.ts";

export type * from "./shapes.ts";

/** Where the connection is: `connecting` → `ready` ⇄ `reconnecting`, and `closed`. */
export type ClientState = "connecting" | "ready" | "reconnecting" | "closed";

/** The connection's state, read without messaging the server. */
export interface ClientStatus {
  /** The state. */
  state: ClientState;
  /** The negotiated era, once known (kept while reconnecting). */
  era?: Era;
  /** The negotiated protocol version, once known. */
  version?: string;
  /** Failed connection attempts since the client was last ready. */
  attempts: number;
  /** The last failure of the connection, if any. */
  error?: McpError;
}

/** How the client reconnects after the transport fails. */
export interface ReconnectOptions {
  /** Attempts before giving up into `closed` (default 5). */
  attempts?: number;
  /** The first delay in milliseconds (default 200). */
  initialDelay?: number;
  /** The longest delay in milliseconds (default 10 000). */
  maxDelay?: number;
  /** The growth factor per attempt (default 2). */
  factor?: number;
  /** The random share of each delay, 0 to 1 (default 0.2). */
  jitter?: number;
}

/**
 * Which protocol to speak: `auto` probes `server/discover` and picks the era; `modern` and
 * `legacy` force an era; a version string such as `"2025-06-18"` pins that version.
 */
export type ProtocolChoice = "auto" | "modern" | "legacy" | (string & Record<never, never>);

/**
 * The options of `createClient`.
 *
 * @example A legacy-only client that gives up after three reconnect attempts
 * ```ts
 * import type { ClientOptions } from "./types.ts";
 * import { inProcess } from "../transports/in_process.ts";
 *
 * const options: ClientOptions = {
 *   transport: inProcess({ connect: () => ({ receive() {} }) }),
 *   protocol: "legacy",
 *   requestTimeout: 10_000,
 *   reconnect: { attempts: 3, initialDelay: 100 },
 *   clientInfo: { name: "my-app", version: "1.0.0" },
 * };
 * if (options.protocol !== "legacy") throw new Error("unexpected");
 * ```
 */
export interface ClientOptions {
  /** How to reach the server, e.g. `stdio(…)`, `streamableHttp(…)` or `inProcess(…)`. */
  transport: Transport;
  /** The protocol choice (default `"auto"`). */
  protocol?: ProtocolChoice;
  /** The versions the client offers, preferred first (default: all it speaks). */
  versions?: string[];
  /** The client's identity (default `{ name: "conduit-mcp", version: … }`). */
  clientInfo?: Implementation;
  /** Answers the server's input requests; only implemented callbacks become capabilities. */
  handler?: ClientHandler;
  /** The default timeout of every request, in milliseconds (default 60 000). */
  requestTimeout?: number;
  /** How long the `server/discover` probe waits on stdio before assuming legacy (default 5 000). */
  probeTimeout?: number;
  /** Backoff settings for reconnecting, or `false` to never reconnect. */
  reconnect?: ReconnectOptions | false;
  /** Declare `sampling.tools` (default `false`). */
  samplingTools?: boolean;
  /** Declare `sampling.context` (default `false`). */
  samplingContext?: boolean;
  /** Declare `roots.listChanged` in the legacy era (default `false`). */
  rootsListChanged?: boolean;
  /** Receives diagnostics (skipped garbage lines, dropped tools); never secrets. */
  onWarning?: (message: string) => void;
}

/** The params of a `notifications/progress` notification. */
export interface Progress {
  /** The progress so far; rises with each notification. */
  progress: number;
  /** The total, when known. */
  total?: number;
  /** A message for people. */
  message?: string;
  /** Other members the server sent (such as `progressToken`). */
  [key: string]: unknown;
}

/** Options every request takes. */
export interface RequestOptions {
  /** Cancels the request (it fails with kind `cancelled`). */
  signal?: AbortSignal;
  /** Milliseconds without an answer (or progress) before it fails with kind `timeout`. */
  timeout?: number;
  /** Receives this request's progress notifications; each one restarts the timeout. */
  onProgress?: (progress: Progress) => void;
  /** The ceiling on the whole request when progress keeps restarting the timeout. */
  maxTotalTimeout?: number;
}

/** Options of the one-page list methods. */
export interface ListOptions extends RequestOptions {
  /** The previous page's `nextCursor`. */
  cursor?: string;
}

/** Options of the `listAll*` methods. */
export interface ListAllOptions extends RequestOptions {
  /** Ignore a fresh cached listing (tools only) and ask the server. */
  refresh?: boolean;
}

/** Options of `complete`. */
export interface CompleteOptions extends RequestOptions {
  /** Already-resolved arguments: `{ arguments: { name: value } }`. */
  context?: { arguments?: Record<string, string> };
}

/** What the server reported in the handshake, with the negotiated era and version. */
export interface ServerInfo {
  /** The server's self-reported identity, when it gave one. */
  serverInfo?: Implementation;
  /** The server's capabilities. */
  capabilities: Record<string, unknown>;
  /** The server's instructions, raw. */
  instructions?: string;
  /** The negotiated era. */
  era: Era;
  /** The negotiated version. */
  version: string;
}

/** A notification from the server. */
export interface ServerNotification {
  /** Its method, e.g. `notifications/tools/list_changed`. */
  method: string;
  /** Its params (`{}` when it had none). */
  params: Record<string, unknown>;
}

/** Receives server notifications. */
export type NotificationListener = (notification: ServerNotification) => void;

/**
 * An MCP client: one server, reached through one transport, reconnecting as needed. Every
 * failure is an `McpError`; a tool that ran and failed is a result with `isError: true`.
 *
 * @example List tools and read the cached listing
 * ```ts
 * import { createClient } from "./client.ts";
 * import type { McpClient } from "./types.ts";
 * import { inProcess } from "../transports/in_process.ts";
 *
 * const transport = inProcess({
 *   connect: (peer) => ({
 *     receive(message) {
 *       if (!("id" in message) || !("method" in message)) return;
 *       const result = message.method === "tools/list"
 *         ? { tools: [{ name: "echo", inputSchema: { type: "object" } }] }
 *         : { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } };
 *       peer.send({ jsonrpc: "2.0", id: message.id, result: { resultType: "complete", ...result } });
 *     },
 *   }),
 * });
 * await using client: McpClient = createClient({ transport });
 * const tools = await client.listAllTools();
 * if (client.status().state !== "ready" || client.tool("echo").name !== tools[0].name) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export interface McpClient {
  /** Waits until ready; rejects with kind `timeout` after `timeout` ms, or at once when closed. */
  ready(timeout?: number): Promise<void>;
  /** The connection's state, read without messaging. */
  status(): ClientStatus;
  /** The negotiated era; throws kind `unavailable` before the first handshake. */
  era(): Era;
  /** The handshake's server info; throws kind `unavailable` while not ready. */
  serverInfo(): ServerInfo;
  /** Closes the client: pending requests fail with kind `closed`, and so does every later one. */
  close(): Promise<void>;
  /** Drops the connection and connects again (also revives a closed client); resolves when ready. */
  reconnect(): Promise<void>;
  /** Checks that the server answers (legacy `ping`; modern `server/discover`). */
  ping(options?: RequestOptions): Promise<void>;
  /** Sets the server's log level (legacy `logging/setLevel`; modern: `_meta` of later requests). */
  setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void>;
  /** Sends any request and returns its raw result (the `_meta` envelope is added). */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>>;
  /** Lists one page of tools. */
  listTools(options?: ListOptions): Promise<ToolsPage>;
  /** Lists one page of prompts. */
  listPrompts(options?: ListOptions): Promise<PromptsPage>;
  /** Lists one page of resources. */
  listResources(options?: ListOptions): Promise<ResourcesPage>;
  /** Lists one page of resource templates. */
  listResourceTemplates(options?: ListOptions): Promise<ResourceTemplatesPage>;
  /** Lists every tool, following `nextCursor`, and keeps the listing. */
  listAllTools(options?: ListAllOptions): Promise<Tool[]>;
  /** Lists every prompt. */
  listAllPrompts(options?: ListAllOptions): Promise<Prompt[]>;
  /** Lists every resource. */
  listAllResources(options?: ListAllOptions): Promise<Resource[]>;
  /** Lists every resource template. */
  listAllResourceTemplates(options?: ListAllOptions): Promise<ResourceTemplate[]>;
  /** The tools of the last `listAllTools`; throws kind `not_found` before the first. */
  cachedTools(): Tool[];
  /** One tool of the last listing; throws kind `not_found` when it is not there. */
  tool(name: string): Tool;
  /** Calls a tool; `args` are sent as given. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<ToolResult>;
  /** Gets a prompt; arguments are converted to strings, `null`/`undefined` dropped. */
  getPrompt(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<GetPromptResult>;
  /** Reads a resource. */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
  /** Asks for completions of `argument` of `ref`. */
  complete(
    ref: CompletionRef,
    argument: CompletionArgument,
    options?: CompleteOptions,
  ): Promise<CompleteResult>;
  /** Receives server notifications (not progress); returns the unsubscribe function. */
  subscribeNotifications(listener: NotificationListener): () => void;
  /** Server notifications as an async iterator, until `signal` aborts or the client closes. */
  notifications(options?: { signal?: AbortSignal }): AsyncIterableIterator<ServerNotification>;
  /** Closes the client (`await using`). */
  [Symbol.asyncDispose](): Promise<void>;
}

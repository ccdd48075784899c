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
import type { HttpAuth, SetAuthOptions } from "../transports/streamable_http.ts";
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
 * How requests answered with a retryable HTTP status are retried (Streamable HTTP only).
 *
 * A request rejected with HTTP 408, 429 or 5xx is sent again, up to `attempts` more times,
 * after the exponential backoff or the server's `Retry-After`, whichever is longer. Which
 * requests are retried depends on whether sending them twice is harmless:
 *
 * - Reads and other idempotent requests (`ping`, `server/discover`, the list methods,
 *   `resources/read`, `prompts/get`, `completion/complete`, `logging/setLevel`,
 *   `resources/subscribe`, `resources/unsubscribe`) are retried on 408, 429 and every 5xx.
 * - `tools/call` and every other request (a tool may have side effects, and a 408 or 5xx
 *   does not say whether it ran) only on 429, and on 503 with a `Retry-After`: answers by
 *   which the server says it did not process the request.
 *
 * A retry never waits past the request's timeout, nor for a `Retry-After` longer than
 * `maxRetryAfter`: the request then fails at once with the status error (kind `transport`,
 * reason `http_status`, `data.retryAfterMs`).
 *
 * @example Retry more patiently
 * ```ts
 * import type { RetryOptions } from "./types.ts";
 *
 * const retry: RetryOptions = { attempts: 4, initialDelay: 500, maxRetryAfter: 120_000 };
 * if (retry.attempts !== 4) throw new Error("unexpected");
 * ```
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  attempts?: number;
  /** The first delay in milliseconds (default 250). */
  initialDelay?: number;
  /** The longest backoff delay in milliseconds (default 5 000). */
  maxDelay?: number;
  /** The growth factor per retry (default 2). */
  factor?: number;
  /** The random share of each delay, 0 to 1 (default 0.2). */
  jitter?: number;
  /** The longest `Retry-After` worth waiting for, in milliseconds (default 60 000). */
  maxRetryAfter?: number;
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
  /**
   * Answers the server's input requests (legacy server requests, modern `input_required`
   * rounds); only implemented callbacks become capabilities. Without one the client
   * declares `{}`.
   */
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
  /** Declare URL-mode elicitation next to form mode, when there is an elicitation handler (default `true`). */
  elicitationUrl?: boolean;
  /**
   * The most `input_required` results one `callTool`/`getPrompt`/`readResource` answers
   * before failing with kind `protocol`, reason `too_many_rounds` (default 8).
   */
  maxRounds?: number;
  /** Receives diagnostics (skipped garbage lines, dropped tools); never secrets. */
  onWarning?: (message: string) => void;
  /** Retries of requests answered with HTTP 408, 429 or 5xx, or `false` for none. */
  retry?: RetryOptions | false;
  /**
   * Let `instructionsForLlm()` return the server's instructions (default `false`: they are
   * written by the server, so they stay out of a model's context unless asked for).
   */
  includeInstructions?: boolean;
  /** Trust the server: `instructionsForLlm()` leaves out the line naming it (default `false`). */
  trusted?: boolean;
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

/**
 * Options of the calls that may need input from the host: `callTool`, `getPrompt` and
 * `readResource`. `assigns` and `principal` reach the handler's context for the input
 * requests of this call (modern `input_required` rounds).
 *
 * @example Pass the user a call is made for to the handler
 * ```ts
 * import type { CallOptions } from "./types.ts";
 *
 * const options: CallOptions = { principal: "alice", assigns: { ticket: 42 }, timeout: 5_000 };
 * if (options.principal !== "alice") throw new Error("unexpected");
 * ```
 */
export interface CallOptions extends RequestOptions {
  /** Data of the caller's own, handed to the handler as `ctx.assigns`. */
  assigns?: Record<string, unknown>;
  /** Whom the call is made for, handed to the handler as `ctx.principal`. */
  principal?: string;
}

/** Options of the one-page list methods. */
export interface ListOptions extends RequestOptions {
  /** The previous page's `nextCursor`. */
  cursor?: string;
}

/**
 * Options of the `listAll*` methods: `timeout` applies to each page and is also the longest
 * the caller waits for a refresh it shares; `signal` stops the caller waiting (the refresh
 * itself goes on and fills the cache).
 */
export interface ListAllOptions extends RequestOptions {
  /** Ignore a fresh cached listing and ask the server. */
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
 *
 * @example Subscribe to a resource, and read the instructions meant for a model
 * ```ts
 * import { createClient } from "./client.ts";
 * import { inProcess } from "../transports/in_process.ts";
 *
 * const transport = inProcess({
 *   connect: (peer) => ({
 *     receive(message) {
 *       if (!("id" in message) || !("method" in message)) return;
 *       if (message.method === "subscriptions/listen") {
 *         const _meta = { "io.modelcontextprotocol/subscriptionId": message.id };
 *         const notifications = message.params?.notifications;
 *         peer.send({
 *           jsonrpc: "2.0",
 *           method: "notifications/subscriptions/acknowledged",
 *           params: { _meta, notifications },
 *         });
 *         const params = { _meta, uri: "file:///notes.md" };
 *         peer.send({ jsonrpc: "2.0", method: "notifications/resources/updated", params });
 *         return;
 *       }
 *       const result = {
 *         resultType: "complete",
 *         supportedVersions: ["2026-07-28"],
 *         capabilities: { resources: { subscribe: true } },
 *         instructions: "Prefer short answers.",
 *       };
 *       peer.send({ jsonrpc: "2.0", id: message.id, result });
 *     },
 *   }),
 * });
 * await using client = createClient({ transport, includeInstructions: true });
 * const updated = new Promise((resolve) =>
 *   client.subscribeNotifications((n) => {
 *     if (n.method === "notifications/resources/updated") resolve(n.params.uri);
 *   })
 * );
 * await client.subscribe("file:///notes.md");
 * if ((await updated) !== "file:///notes.md") throw new Error("no update");
 * if (!client.instructionsForLlm()?.endsWith("\nPrefer short answers.")) throw new Error();
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
  /**
   * Lists every tool, following `nextCursor`, through the cache: a fresh listing (within the
   * server's `ttlMs`, no list_changed since) is returned without asking the server;
   * otherwise one refresh runs at a time, shared by concurrent callers, and fills the cache
   * even when every caller stopped waiting for it.
   */
  listAllTools(options?: ListAllOptions): Promise<Tool[]>;
  /** Lists every prompt through the cache, as `listAllTools` does. */
  listAllPrompts(options?: ListAllOptions): Promise<Prompt[]>;
  /** Lists every resource through the cache, as `listAllTools` does. */
  listAllResources(options?: ListAllOptions): Promise<Resource[]>;
  /** Lists every resource template through the cache, as `listAllTools` does. */
  listAllResourceTemplates(options?: ListAllOptions): Promise<ResourceTemplate[]>;
  /** The tools of the last `listAllTools`; throws kind `not_found` before the first. */
  cachedTools(): Tool[];
  /** One tool of the last listing; throws kind `not_found` when it is not there. */
  tool(name: string): Tool;
  /**
   * Calls a tool; `args` are sent as given. When a modern server answers `input_required`,
   * the handler answers its input requests and the call is retried (up to `maxRounds`);
   * no result of such a retry is cached.
   */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<ToolResult>;
  /**
   * Gets a prompt; arguments are converted to strings, `null`/`undefined` dropped.
   * `input_required` is answered as in `callTool`.
   */
  getPrompt(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
  /** Reads a resource; `input_required` is answered as in `callTool`. */
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  /** Asks for completions of `argument` of `ref`. */
  complete(
    ref: CompletionRef,
    argument: CompletionArgument,
    options?: CompleteOptions,
  ): Promise<CompleteResult>;
  /**
   * Subscribes to updates of the resource at `uri`; they arrive as
   * `notifications/resources/updated` to `subscribeNotifications` listeners. Legacy:
   * `resources/subscribe` (the server must declare `resources.subscribe`, else kind
   * `protocol`, reason `subscriptions_not_supported`). Modern: `uri` joins the
   * `subscriptions/listen` filter, and the call resolves once the server acknowledged it
   * (else kind `protocol`, reason `subscription_not_acknowledged`). Kept across reconnects
   * and session renewals; waits for the connection up to `timeout`.
   */
  subscribe(uri: string, options?: RequestOptions): Promise<void>;
  /** Ends a `subscribe` subscription (legacy `resources/unsubscribe`; modern: a listen without `uri`). */
  unsubscribe(uri: string, options?: RequestOptions): Promise<void>;
  /**
   * Replaces the credentials (any form the transport's `auth` option takes, checked by the
   * transport: the promise rejects with a `TypeError` when the form is invalid, or when the
   * transport takes no credentials, and nothing changes) and reconnects as
   * `reconnect()` does: requests in flight fail with kind `transport`. Resolves when ready
   * again; a closed client keeps the new credentials and stays closed. When `credentialId`
   * differs from the previous one (or either is not given), cached listings the server did
   * not mark public are forgotten first.
   */
  setAuth(auth: HttpAuth, options?: SetAuthOptions): Promise<void>;
  /**
   * OAuth (`auth: { oauth }`): tells the client that the host stored new tokens in the
   * token store, so a connection waiting for a user's login checks the store now and
   * resumes. Returns at once, without waiting for the check.
   *
   * @throws {McpError} kind `auth`, reason `oauth_not_configured`, when the transport does
   *   not use an OAuth form.
   */
  authorized(): void;
  /**
   * OAuth (`auth: { oauth }`): completes a user's login with the URL the browser was
   * redirected to (or its query): checks it (`iss`, `state`, `error`), exchanges the code,
   * stores the tokens; a connection waiting for the login resumes.
   *
   * @throws {McpError} kind `auth`: `oauth_not_configured` without an OAuth form, else why
   *   the response was refused (`iss_mismatch`, `state_mismatch`, `unknown_state`, …).
   */
  handleCallback(callback: string | URL): Promise<void>;
  /**
   * The server's instructions as they may go into a model's context: `undefined` unless the
   * client was created with `includeInstructions: true` (or the server gave none); capped at
   * 4 KiB, invisible and bidirectional-control characters removed, and prefixed with a line
   * naming the server unless `trusted: true`. `serverInfo()` still returns them raw. Throws
   * kind `unavailable` while not ready.
   */
  instructionsForLlm(): string | undefined;
  /**
   * Tells a legacy server the roots changed (`notifications/roots/list_changed`); it asks
   * for them again. Fails with kind `protocol` in the modern era or without a `listRoots`
   * handler.
   */
  notifyRootsChanged(): Promise<void>;
  /** Receives server notifications (not progress); returns the unsubscribe function. */
  subscribeNotifications(listener: NotificationListener): () => void;
  /** Server notifications as an async iterator, until `signal` aborts or the client closes. */
  notifications(options?: { signal?: AbortSignal }): AsyncIterableIterator<ServerNotification>;
  /** Closes the client (`await using`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * The {@linkcode McpClient} interface, and what it reports: its status, the server's
 * handshake info, and server notifications.
 *
 * @module
 */

import type { McpError } from "../protocol/errors.ts";
import type { Implementation, LogLevel } from "../protocol/meta.ts";
import type { Era } from "../protocol/versions.ts";
import type { HttpAuth, SetAuthOptions } from "../transports/streamable_http.ts";
import type { Containment } from "../transports/transport.ts";
import type { AuthState, LoginPrompt } from "../oauth/auth_status.ts";
import type { TaskMethods } from "./task_api.ts";
import type {
  CallOptions,
  CompleteOptions,
  ListAllOptions,
  ListOptions,
  ReadResourceOptions,
  ReadResultOptions,
  RequestOptions,
  ToolViewOptions,
} from "./request_options.ts";
import type {
  CompleteResult,
  CompletionArgument,
  CompletionRef,
  GetPromptResult,
  Prompt,
  PromptsPage,
  ReadResourceResult,
  ReadResultPage,
  Resource,
  ResourcesPage,
  ResourceTemplate,
  ResourceTemplatesPage,
  Tool,
  ToolsPage,
} from "./shapes.ts";

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
  /**
   * How the server process is contained, for a stdio server: `"deno-permissions"`,
   * `"bwrap"` or `"none"` (absent for HTTP and in-process servers, and for a sandboxed
   * server before its first start). Policy rules match it with `sandboxed`.
   */
  containment?: Containment;
  /**
   * Over HTTP: where the login stands: `"none"` (no credentials, or no OAuth tokens yet),
   * `"ok"`, `"pending"` (a login waits for the user: see `login`), `"needs_reauth"` (the
   * refresh token was refused: requests fail at once with reason `needs_reauth` until
   * `login()` or `setAuth`).
   */
  auth?: AuthState;
  /** While `auth` is `"pending"`: the URL to open, or the device code to enter and where. */
  login?: LoginPrompt;
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
export interface McpClient extends TaskMethods {
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
  /**
   * Lists one page of tools, always asking the server: a page is never cached, and never
   * fills or changes the cached listing of `listAllTools` (`cachedTools()`).
   */
  listTools(options?: ListOptions): Promise<ToolsPage>;
  /** Lists one page of prompts, always asking the server, as `listTools` does. */
  listPrompts(options?: ListOptions): Promise<PromptsPage>;
  /** Lists one page of resources, always asking the server, as `listTools` does. */
  listResources(options?: ListOptions): Promise<ResourcesPage>;
  /** Lists one page of resource templates, always asking the server, as `listTools` does. */
  listResourceTemplates(options?: ListOptions): Promise<ResourceTemplatesPage>;
  /**
   * Lists every tool, following `nextCursor`, through the cache: a fresh listing (every page
   * within the server's `ttlMs`, no list_changed since; for a legacy server, see the
   * `legacyTtlMs` option) is returned without asking the server, from the client's store
   * (shared with other clients and processes that use the same store);
   * otherwise one refresh runs at a time, shared by concurrent callers, and fills the cache
   * even when every caller stopped waiting for it. From the first call on, the client follows
   * the list's changes: a modern server that declares `tools.listChanged` sends them only on
   * a `subscriptions/listen` that asks, so the client's listen asks for them too.
   */
  listAllTools(options?: ListAllOptions): Promise<Tool[]>;
  /** Lists every prompt through the cache, as `listAllTools` does. */
  listAllPrompts(options?: ListAllOptions): Promise<Prompt[]>;
  /** Lists every resource through the cache, as `listAllTools` does. */
  listAllResources(options?: ListAllOptions): Promise<Resource[]>;
  /** Lists every resource template through the cache, as `listAllTools` does. */
  listAllResourceTemplates(options?: ListAllOptions): Promise<ResourceTemplate[]>;
  /**
   * The tools of the last `listAllTools` (or list_changed refresh, or the store's fresh
   * listing that `ready()` found), fresh or not; throws kind `not_found` before the first.
   * On a governed client, only the tools the caller may see (see the `tools` option).
   */
  cachedTools(options?: ToolViewOptions): Tool[];
  /**
   * One tool of the last listing; throws kind `not_found` when it is not there (or, on a
   * governed client, when the caller may not see it).
   */
  tool(name: string, options?: ToolViewOptions): Tool;
  /**
   * Gets a prompt; arguments are converted to strings, `null`/`undefined` dropped.
   * `input_required` is answered as in `callTool`.
   */
  getPrompt(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
  /**
   * Reads a resource; `input_required` is answered as in `callTool`. A result the server
   * gave a `ttlMs` is cached (by `uri`, in its `cacheScope`) until then or until a
   * `resources/updated` for it; `cache: "refresh" | "bypass"` skips a cached one.
   */
  readResource(uri: string, options?: ReadResourceOptions): Promise<ReadResourceResult>;
  /**
   * Reads a spilled result (a shaped call's `spilled.handle`): a page of the whole text a
   * model would have seen uncut (paging from 0 to the end gives it back exactly), the lines
   * matching `grep`, or a `jsonPath` subtree of the structured content. The handle is bound
   * to the identity it was made for (the credentials and `principal`).
   *
   * @throws {McpError} kind `not_found`: reason `unknown_result` (never made, or made for
   *   another identity), `result_expired`.
   */
  readResult(handle: string, options?: ReadResultOptions): Promise<ReadResultPage>;
  /** Whether shaped calls spill (the `shape.spill` option): kits then list `read_result`. */
  spilling(): boolean;
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
   * OAuth (`auth: { oauth }`): starts a new login (the browser or the device flow, as the
   * `flow` option says), skipping stored tokens and refreshes, and resolves once it is done
   * and, for a client that had given up (closed after `needs_reauth`), reconnected. This is
   * how a client leaves `needs_reauth`; while it runs, `status().auth` is `"pending"`.
   *
   * @throws {McpError} kind `auth`: `oauth_not_configured` without an OAuth form, else why
   *   the login failed (`device_code_expired`, `authorization_denied`, `identity_mismatch`, …).
   */
  login(options?: { signal?: AbortSignal }): Promise<void>;
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
  /**
   * Receives server notifications (not progress); returns the unsubscribe function. From the
   * first listener on, the client follows every list change the server declares (in the
   * modern era, by asking for them on its `subscriptions/listen`). A listener subscribed
   * twice is one listener, as with `addEventListener`: it hears each notification once, and
   * either returned function removes it.
   */
  subscribeNotifications(listener: NotificationListener): () => void;
  /**
   * Server notifications as an async iterator, until `signal` aborts or the client closes;
   * list changes are followed as for `subscribeNotifications`.
   */
  notifications(options?: { signal?: AbortSignal }): AsyncIterableIterator<ServerNotification>;
  /** Closes the client (`await using`). */
  [Symbol.asyncDispose](): Promise<void>;
}

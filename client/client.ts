/**
 * `createClient` and `connectClient`: the public {@linkcode McpClient}, assembled from the
 * connection, the request helpers, pagination and notifications.
 *
 * client/ is cut by concern, and its sub-folders import in one direction only:
 * `handler/` (what the server asks of the client: input, the legacy server-request inbox,
 * the declared capabilities) ← `connection/` (the state machine, its one state owner, the
 * connect loop, dispatch, sessions, negotiation) ← `requests/` (the request methods, MRTR,
 * pagination) ← `tasks/` (server tasks) ← `changes/` (notifications, subscriptions,
 * listen, the cache's wiring) ← this file. The handler sits below the connection, not beside
 * the requests, because every link runs the legacy inbox and every modern result is read for its `resultType`; placed with
 * the requests it would make the two folders import each other. The public face (this file,
 * `api.ts`, `connect.ts`, `options.ts`, the types) and the small private base every folder
 * shares stay at the root. ARCHITECTURE.md at the project root has the whole map.
 *
 * @module
 */

import type { JsonRpcNotification } from "../protocol/jsonrpc.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { backoffDelay, delay } from "./_async.ts";
import { authMethods, withAuthStatus } from "./_client_auth.ts";
import { type RawCallTool, withShaping } from "./shaping.ts";
import { clientSpill } from "./shaping.ts";
import { listingMethods } from "./_client_lists.ts";
import type { GovernedDeps, GovernedMethods } from "./_client_governance.ts";
import { resolveOptions } from "./_resolve_options.ts";
import { createConnection } from "./connection/connection.ts";
import { fromRetry, inputContext, requestWithInput } from "./requests/mrtr.ts";
import { createNotificationHub } from "./changes/notifications.ts";
import { lazyClientCache } from "./changes/_cache_lazy.ts";
import type { FollowedList, Subscriptions } from "./changes/subscriptions.ts";
import { lazySubscriptions } from "./changes/_subscriptions_lazy.ts";
import { instructionsForLlm } from "./requests/instructions.ts";
import type { TaskContext } from "./tasks/tasks.ts";
import { routeToolCall } from "./tasks/route.ts";
import {
  callTool as sendToolCall,
  checkOptions,
  getPrompt,
  ping,
  readResource as readResourceOn,
  type Requester,
  setLogLevel,
  toolResult,
} from "./requests/requests.ts";
import type { ClientOptions, McpClient } from "./types.ts";
import type { ToolCallOptions } from "./request_options.ts";
import { McpError } from "../protocol/errors.ts";

const ALL_LISTS: readonly FollowedList[] = ["tools", "prompts", "resources"];

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
  // An iterator made after close() (and before any reconnect()) is over at once.
  const hub = createNotificationHub(resolved.warn, () => connection.status().state === "closed");
  // Reaches the connection only once it exists (its events and the client's calls come later).
  const subs: Subscriptions = lazySubscriptions({
    connection: {
      request: (method, params, opts) => request(method, params, opts),
      stream: (method, params, opts) => connection.stream(method, params, opts),
      ready: (timeout) => connection.ready(timeout),
      serverInfo: () => connection.serverInfo(),
      status: () => connection.status(),
    },
    requestTimeout: resolved.requestTimeout,
    reopenDelay: (attempt) =>
      resolved.reconnect === false
        ? 1_000
        : backoffDelay(attempt, resolved.reconnect, resolved.random),
    warn: resolved.warn,
    capabilities: () => requester.input?.capabilities() ?? {},
  });
  let connectedBefore = false;
  const connection = createConnection(resolved, {
    notification(message: JsonRpcNotification) {
      if (subs.route(message)) return;
      cache.notification(message.method, message.params);
      hub.publish({ method: message.method, params: message.params ?? {} });
    },
    ready(info) {
      // Notifications may have been missed while disconnected or while the session was lost:
      // a legacy listing kept for its session is out of date (modern ones follow ttlMs).
      if (connectedBefore) cache.endSession();
      connectedBefore = true;
      subs.ready(info);
    },
    closed() {
      cache.endSession();
      subs.close();
      hub.end();
    },
  });
  // Traced, each request is a span (one branch here; none per call without a tracer).
  const request = resolved.trace?.traceRequests(connection.request) ?? connection.request;
  const requester: Requester = {
    request,
    trace: resolved.trace,
    ready: (timeout) => connection.ready(timeout ?? resolved.requestTimeout),
    era: connection.currentEra,
    setLogLevel: connection.setLogLevel,
    warn: resolved.warn,
    input: inputContext(resolved, connection.status),
    notify: connection.notify,
  };
  const tasks: TaskContext = {
    requester,
    serverCapabilities: () => connection.serverInfo().capabilities,
    async definition(name, timeout) {
      let listed;
      try {
        listed = cache.cachedTools(); // as the server lists them, whatever a filter hides
      } catch (error) {
        if (!(error instanceof McpError) || error.kind !== "not_found") throw error;
        listed = await lists.listAllTools({ timeout });
      }
      return listed.find((tool) => tool.name === name);
    },
    requestTimeout: resolved.requestTimeout,
    watch: (listener) => hub.subscribe(listener),
    follow: (taskId) => subs.followTask(taskId),
    callers: resolved.taskCallers,
    wire: { callTool: sendToolCall, toolResult, requestWithInput },
  };
  const cache = lazyClientCache({
    store: resolved.cache,
    ownStore: resolved.ownCache,
    legacyTtlMs: resolved.legacyTtlMs,
    requester,
    transport: resolved.transport,
    capabilities() {
      try {
        return connection.serverInfo().capabilities;
      } catch {
        return undefined;
      }
    },
    waitTimeout: resolved.requestTimeout,
    reads: { checkOptions, readResource: readResourceOn, fromRetry },
  });
  const close = () => connection.close();
  const following = <T>(lists: readonly FollowedList[], result: T): T => {
    subs.followLists(lists);
    return result;
  };

  const lists = listingMethods(requester, cache, following);
  const rawCall = (name: string, args?: Record<string, unknown>, options?: ToolCallOptions) =>
    routeToolCall(tasks, name, args, options);
  const spill = clientSpill(resolved.shape, resolved.transport, () => cache.cachedTools());
  const client: McpClient = {
    ready(timeout) {
      if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0)) {
        throw new TypeError("timeout must be a positive number of milliseconds");
      }
      // A store that already holds a fresh tool listing fills cachedTools() first.
      return connection.ready(timeout).then(() => cache.warm());
    },
    status() {
      const status = withAuthStatus(connection.status(), resolved.transport);
      const containment = resolved.transport.containment?.();
      if (containment !== undefined) status.containment = containment;
      return status;
    },
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
      return await request(method, params, checkOptions(options));
    },
    ...lists,
    cachedTools: () => cache.cachedTools(),
    tool: (name) => cache.tool(name),
    callTool: withShaping(rawCall, resolved.shape, spill.context) as McpClient["callTool"],
    readResult: spill.readResult,
    spilling: () => resolved.shape.spill !== undefined,
    // The task machinery loads with the first task method (or a call that runs as a task).
    getTask: async (task, options) =>
      await (await import("./tasks/call.ts")).getTask(tasks, task, options),
    awaitTask: async (task, options) =>
      await (await import("./tasks/call.ts")).awaitTask(tasks, task, options),
    cancelTask: async (task, options) =>
      await (await import("./tasks/call.ts")).cancelTask(tasks, task, options),
    getPrompt: (name, args, options) => getPrompt(requester, name, args, options),
    readResource: (uri, options) => cache.readResource(uri, options),
    // Completions and the roots' news load with their first call.
    complete: async (ref, argument, options) =>
      await (await import("./requests/completion.ts")).complete(requester, ref, argument, options),
    notifyRootsChanged: async () =>
      await (await import("./requests/roots.ts")).notifyRootsChanged(
        requester,
        typeof resolved.handler?.listRoots === "function",
        undefined,
        resolved.rootsListChanged,
      ),
    subscribe: (uri, options) => subs.subscribe(uri, options),
    unsubscribe: (uri, options) => subs.unsubscribe(uri, options),
    ...authMethods(resolved.transport, cache, connection, spill.credentialsChanged),
    instructionsForLlm() {
      if (!resolved.includeInstructions) return undefined;
      const info = connection.serverInfo();
      return instructionsForLlm(info.instructions, info.serverInfo, { trusted: resolved.trusted });
    },
    // Listeners hear every list change the server declares.
    subscribeNotifications: (listener) => following(ALL_LISTS, hub.subscribe(listener)),
    notifications: (options) =>
      following(ALL_LISTS, hub.iterate(checkKeys(options, ["signal"], "notifications options"))),
    [Symbol.asyncDispose]: close,
  };
  // A governed client (decided once, here) runs the pipeline; a plain one sends as given.
  if (resolved.governance === undefined) return client;
  const { getPrompt: prompt, readResource, complete: completion, subscribe, unsubscribe } = client;
  const deps: Omit<GovernedDeps, "identity"> = {
    governance: resolved.governance,
    name: resolved.name,
    lists,
    cache,
    containment: () => resolved.transport.containment?.(),
    plain: {
      callTool: rawCall as McpClient["callTool"],
      getPrompt: prompt,
      readResource,
      complete: completion,
      subscribe,
      unsubscribe,
      request: client.request,
      awaitTask: client.awaitTask,
    },
    warn: resolved.warn,
  };
  // The governed methods load with the client (behind the option), and every one of them
  // waits for that load; ready() too, so the synchronous views are the governed ones by then.
  let governed: GovernedMethods | undefined;
  const loading = import("./_client_governance.ts").then((methods) =>
    governed = methods.governedMethods({
      ...deps,
      identity: () => methods.serverIdentity(resolved.transport),
    })
  );
  loading.catch(() => {}); // each governed method reports a failed load
  const later = <K extends Exclude<keyof GovernedMethods, "cachedTools" | "tool">>(key: K) =>
    (async (...args: unknown[]) =>
      await ((governed ?? await loading)[key] as (...a: unknown[]) => Promise<unknown>)(
        ...args,
      )) as unknown as GovernedMethods[K];
  const plainReady = client.ready;
  const lazyGoverned: GovernedMethods = {
    listTools: later("listTools"),
    listAllTools: later("listAllTools"),
    // Until the stages are in, nothing has been checked to show (as before any listing).
    cachedTools: (options) => governed?.cachedTools(options) ?? (cache.cachedTools(), []),
    tool(name, options) {
      if (governed !== undefined) return governed.tool(name, options);
      throw new McpError(`The last tool listing has no tool "${name}"`, {
        kind: "not_found",
        reason: "unknown_tool",
      });
    },
    callTool: later("callTool"),
    awaitTask: later("awaitTask"),
    getPrompt: later("getPrompt"),
    readResource: later("readResource"),
    complete: later("complete"),
    subscribe: later("subscribe"),
    unsubscribe: later("unsubscribe"),
    request: later("request"),
  };
  // Shaping is the last stage: the post-hooks and the output check see the raw result.
  const callTool = withShaping(lazyGoverned.callTool as RawCallTool, resolved.shape, spill.context);
  return Object.assign(client, lazyGoverned, {
    callTool: callTool as McpClient["callTool"],
    ready: (timeout?: number) => plainReady(timeout).then(() => loading).then(() => {}),
  });
}

/**
 * How long `connect()` waits for the first handshake unless told otherwise (30 s): a server
 * that never answers fails the connect, with what it wrote, instead of holding it.
 */
export const DEFAULT_READY_TIMEOUT = 30_000;

/**
 * Creates a client and waits until it is ready: `createClient(options)` + `ready()`. If the
 * client cannot get ready it is closed and the promise rejects with the reason, by `timeout`
 * at the latest (closing goes on in the background past it).
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
  if (timeout !== undefined && (typeof timeout !== "number" || !(timeout > 0))) {
    throw new TypeError("readyTimeout must be a number of milliseconds above 0 (or Infinity)");
  }
  const client = createClient(options);
  const deadline = Date.now() + (timeout ?? Infinity);
  // `timeout` is a hard deadline: closing (a stdio server's grace period) may go on past it.
  return await client.ready(timeout).then(() => client, (error) => {
    const closed = new AbortController();
    const closing = client.close().finally(() => closed.abort());
    const left = deadline === Infinity ? closing : delay(deadline - Date.now(), closed.signal);
    return left.catch(() => {}).then(() => Promise.reject(error));
  });
}

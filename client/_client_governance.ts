/**
 * Private: a governed client's methods. With any governance option (`tools`, `validate`,
 * `policy`, `hooks`, `pin`), the listing methods show only what the caller may see, and
 * `callTool`, `getPrompt`, `readResource`, `complete`, `subscribe` and `unsubscribe` run the
 * governance pipeline before anything is sent. Decided once, when the client is created: a
 * plain client gets none of these, and its calls go out as they did before.
 *
 * A call with `task: "return"` that the server runs as a task keeps its stages after the call:
 * `awaitTask` runs the output check and `afterCall` on the task's result, and refuses (kind
 * `not_found`, reason `unknown_task`) a task this client's governed calls did not start
 * (`governance/task_results.ts`). `getTask` reads a task's state only, no result.
 *
 * `request(method, params)` is governed too, not an escape hatch: a raw `tools/call`,
 * `prompts/get`, `resources/read`, `completion/complete`, `resources/subscribe` or
 * `resources/unsubscribe` runs the same stages as its method (the raw result comes back, after
 * the output check and `afterCall` for a call), and a raw `tasks/get` or `tasks/result` hands
 * back a task's result only as `awaitTask` does; every other method is sent as given.
 *
 * Governance names the server (pins, "always" grants, `servers:` rules, `ctx.server`) by
 * the `name` option, else by the client's own identity of what it connected to (the
 * transport's `cacheTarget().endpoint`): never by the `serverInfo.name` the server reports,
 * which a server may change to escape its pins or to match another server's rules. Give a
 * `name` to write `servers:` rules for a client.
 *
 * @module
 */

import { type CacheTarget, localName } from "../cache/digest.ts";
import { isMcpError, McpError } from "../protocol/errors.ts";
import type { Scope } from "../governance/pipeline.ts";
import { createGovernance } from "../governance/create.ts";
import type { GovernanceOptions } from "../governance/options.ts";
import { taskResults } from "../governance/task_results.ts";
import { isObject } from "../protocol/json.ts";
import type { ListingMethods } from "./_client_lists.ts";
import type { ClientCache } from "./changes/cache.ts";
import { checkCaller, nonEmpty } from "./requests/_checks.ts";
import { wireRef } from "./requests/completion.ts";
import type { CompletionRef } from "./shapes.ts";
import type { McpClient, Tool, ToolResult, ToolViewOptions } from "./types.ts";

/** The methods that send, which a governed client runs through the stages. */
type SendingMethod =
  | "callTool"
  | "awaitTask"
  | "getPrompt"
  | "readResource"
  | "complete"
  | "subscribe"
  | "unsubscribe"
  | "request";

/** What the governed methods wrap. */
export interface GovernedDeps {
  /** The governance options (checked): the stages are made from them here. */
  governance: GovernanceOptions;
  /** The `name` option. */
  name?: string;
  /** How the server process is contained (the transport's `containment()`). */
  containment?: () => Scope["containment"];
  /** The plain listing methods. */
  lists: ListingMethods;
  /** The client's cache (the raw last tool listing). */
  cache: ClientCache;
  /**
   * The client's own identity of the server when there is no `name`: what it connected to
   * (the transport's `cacheTarget().endpoint`, a digest of the URL, or of the command line
   * and working directory).
   */
  identity(): Promise<string>;
  /** The plain methods that send. */
  plain: Pick<McpClient, SendingMethod>;
  /** Diagnostics. */
  warn(message: string): void;
}

/** The methods a governed client replaces. */
export type GovernedMethods = Pick<
  McpClient,
  "listTools" | "listAllTools" | "cachedTools" | "tool" | SendingMethod
>;

/** The arguments a completion names: its context's, and the one being completed. */
function completionArgs(argument: unknown, context: unknown): Record<string, unknown> {
  const given = isObject(context) && isObject(context.arguments) ? context.arguments : {};
  const [name, value] = Array.isArray(argument)
    ? argument
    : isObject(argument)
    ? [argument.name, argument.value]
    : [];
  return typeof name === "string" ? { ...given, [name]: value } : { ...given };
}

function text(params: Record<string, unknown> | undefined, key: string, method: string): string {
  const value = params?.[key];
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`request("${method}"): params.${key} must be a non-empty string`);
  }
  return value;
}

function record(params: Record<string, unknown> | undefined, key: string, method: string) {
  const value = params?.[key];
  if (value === undefined) return {};
  if (!isObject(value)) {
    throw new TypeError(`request("${method}"): params.${key} must be an object`);
  }
  return value;
}

/** The raw methods a governed client's `request` governs as its own methods. */
const GOVERNED_REQUESTS = new Set([
  "tools/call",
  "prompts/get",
  "resources/read",
  "completion/complete",
  "resources/subscribe",
  "resources/unsubscribe",
  "tasks/get",
  "tasks/result",
]);

/**
 * The client's own identity of a server: the transport's `cacheTarget().endpoint` (a digest of
 * the URL, or of the command line and working directory), else a name local to this process.
 *
 * @param transport The transport the client was given.
 * @returns The identity.
 */
export async function serverIdentity(
  transport: { cacheTarget?(): Promise<CacheTarget> },
): Promise<string> {
  try {
    const target = await transport.cacheTarget?.();
    const named = target?.endpoint ?? target?.server;
    if (typeof named === "string" && named !== "") return named;
  } catch {
    // No shared identity: nothing carries over to another process.
  }
  return localName(transport);
}

function caller(options: ToolViewOptions | undefined): ToolViewOptions {
  if (options === undefined) return {};
  if (!isObject(options)) throw new TypeError("options must be an object");
  return checkCaller(options);
}

/**
 * The methods of a governed client.
 *
 * @param deps The stages, the plain methods and the connection.
 * @returns The methods that replace the plain ones.
 */
export function governedMethods(deps: GovernedDeps): GovernedMethods {
  const { lists, cache, plain } = deps;
  const governance = createGovernance(deps.governance);
  // The stages after the call, for the tasks this client's governed calls started.
  const tasks = taskResults();
  // The server's name in governance (pins, grants, `servers:` rules, `ctx.server`): the
  // `name` option, else the client's own identity of what it connected to; never anything
  // the server says.
  let server = deps.name;
  const named = server !== undefined ? Promise.resolve(server) : deps.identity().then((id) => {
    server = id;
    return id;
  });
  named.catch(() => {});
  const scopeOf = async (view: ToolViewOptions): Promise<Scope> => {
    const scope: Scope = { ...view, server: server ?? await named };
    const containment = deps.containment?.();
    if (containment !== undefined) scope.containment = containment;
    return scope;
  };
  const raw = (): Tool[] | undefined => {
    try {
      return cache.cachedTools();
    } catch (error) {
      if (isMcpError(error) && error.kind === "not_found") return undefined;
      throw error;
    }
  };
  const lookup = (name: string, timeout: number | undefined) => {
    const found = raw()?.find((tool) => tool.name === name);
    if (found !== undefined) return found;
    // Not listed yet, or added since: one listing decides.
    return lists.listAllTools({ timeout, refresh: raw() !== undefined }).then((tools) =>
      tools.find((tool) => tool.name === name)
    );
  };
  // One tool call through the stages, from the method or a raw `tools/call`.
  const governedCall = <R>(
    name: string,
    args: Record<string, unknown>,
    scope: Scope,
    timeout: number | undefined,
    send: (tool: string, args: Record<string, unknown>) => Promise<R>,
  ) =>
    governance.callTool<R>({
      name,
      arguments: args,
      scope,
      lookup: (tool) => lookup(tool, timeout),
      listing: () => raw() ?? [],
      send,
      started: tasks.started,
    });
  // A subscription is the resource's data: the read stage decides it.
  const watch = async (uri: string, send: (uri: string) => Promise<void>) => {
    nonEmpty("uri", uri);
    await governance.readResource(uri, await scopeOf({}), send);
  };
  const visible = (view: ToolViewOptions) => {
    const tools = cache.cachedTools();
    // Named before any listing could finish; until then nothing has been checked to show.
    if (server === undefined) return [];
    return governance.visibleTools(tools, { ...view, server });
  };

  return {
    async listTools(options) {
      const view = caller(options);
      const page = await lists.listTools(options);
      return { ...page, tools: await governance.listTools(page.tools, await scopeOf(view)) };
    },
    async listAllTools(options) {
      const view = caller(options);
      const tools = await lists.listAllTools(options);
      // Every page, before any filter: a complete listing.
      return await governance.listTools(tools, await scopeOf(view), true);
    },
    cachedTools: (options) => visible(caller(options)),
    tool(name, options) {
      const found = visible(caller(options)).find((tool) => tool.name === name);
      if (found !== undefined) return found;
      // A hidden tool is as absent as one never listed.
      throw new McpError(`The last tool listing has no tool "${name}"`, {
        kind: "not_found",
        reason: "unknown_tool",
      });
    },
    callTool: ((name, args, options) => {
      try {
        nonEmpty("name", name);
        if (args !== undefined && !isObject(args)) throw new TypeError("args must be an object");
        const view = caller(options);
        return scopeOf(view).then((scope) =>
          governedCall(
            name,
            args ?? {},
            scope,
            options?.timeout,
            (tool, sent) => plain.callTool(tool, sent, options),
          )
        );
      } catch (error) {
        return Promise.reject(error);
      }
    }) as McpClient["callTool"],
    async awaitTask(task, options) {
      const finish = tasks.stagesOf(task);
      return await finish(await plain.awaitTask(task, options));
    },
    async getPrompt(name, args, options) {
      nonEmpty("name", name);
      if (args !== undefined && !isObject(args)) throw new TypeError("args must be an object");
      const view = caller(options);
      return await governance.getPrompt(
        name,
        args ?? {},
        await scopeOf(view),
        (prompt, sent) => plain.getPrompt(prompt, sent, options),
      );
    },
    async complete(ref, argument, options) {
      const wire = wireRef(ref);
      return await governance.complete(
        wire,
        completionArgs(argument, options?.context),
        await scopeOf({}),
        () => plain.complete(ref, argument, options),
      );
    },
    subscribe: (uri, options) => watch(uri, (target) => plain.subscribe(target, options)),
    unsubscribe: (uri, options) => watch(uri, (target) => plain.unsubscribe(target, options)),
    async request(method, params, options): Promise<Record<string, unknown>> {
      const send = (sent?: Record<string, unknown>) => plain.request(method, sent, options);
      if (!GOVERNED_REQUESTS.has(method)) return await send(params);
      const scope = await scopeOf({});
      if (method === "tools/call") {
        return await governedCall(
          text(params, "name", method),
          record(params, "arguments", method),
          scope,
          options?.timeout,
          (tool, args) => send({ ...params, name: tool, arguments: args }),
        );
      }
      if (method === "prompts/get") {
        return await governance.getPrompt(
          text(params, "name", method),
          record(params, "arguments", method),
          scope,
          (prompt, args) => send({ ...params, name: prompt, arguments: args }),
        );
      }
      if (method === "completion/complete") {
        const wire = wireRef(params?.ref as CompletionRef);
        return await governance.complete(
          wire,
          completionArgs(params?.argument, params?.context),
          scope,
          () => send(params),
        );
      }
      if (method === "tasks/get" || method === "tasks/result") {
        // A task's result comes back only through the stages of the call that started it.
        const finish = tasks.stagesOf(text(params, "taskId", method));
        const answer = await send(params);
        if (method === "tasks/result") {
          return await finish(answer as unknown as ToolResult) as unknown as typeof answer;
        }
        if (!isObject(answer.result)) return answer;
        return { ...answer, result: await finish(answer.result as unknown as ToolResult) };
      }
      // resources/read, resources/subscribe, resources/unsubscribe.
      return await governance.readResource(
        text(params, "uri", method),
        scope,
        (uri) => send({ ...params, uri }),
      );
    },
    async readResource(uri, options) {
      nonEmpty("uri", uri);
      const view = caller(options);
      return await governance.readResource(
        uri,
        await scopeOf(view),
        (target) => plain.readResource(target, options),
      );
    },
  };
}

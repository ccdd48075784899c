/**
 * Private: a governed client's methods. With any governance option (`tools`, `validate`,
 * `policy`, `hooks`, `pin`), the listing methods show only what the caller may see, and
 * `callTool`, `getPrompt` and `readResource` run the governance pipeline before anything is
 * sent. Decided once, when the client is created: a plain client gets none of these, and its
 * calls go out as they did before.
 *
 * Governance names the server (pins, "always" grants, `servers:` rules, `ctx.server`) by
 * the `name` option, else by the client's own identity of what it connected to (the
 * transport's `cacheTarget().server`): never by the `serverInfo.name` the server reports,
 * which a server may change to escape its pins or to match another server's rules. Give a
 * `name` to write `servers:` rules for a client.
 *
 * @module
 */

import { type CacheTarget, localName } from "../cache/digest.ts";
import { isMcpError, McpError } from "../protocol/errors.ts";
import type { Governance, Scope } from "../governance/pipeline.ts";
import { isObject } from "./_json.ts";
import type { ListingMethods } from "./_client_lists.ts";
import type { ClientCache } from "./changes/cache.ts";
import { checkCaller, nonEmpty } from "./requests/_checks.ts";
import type { McpClient, Tool, ToolViewOptions } from "./types.ts";

/** What the governed methods wrap. */
export interface GovernedDeps {
  /** The stages. */
  governance: Governance;
  /** The `name` option. */
  name?: string;
  /** The plain listing methods. */
  lists: ListingMethods;
  /** The client's cache (the raw last tool listing). */
  cache: ClientCache;
  /**
   * The client's own identity of the server when there is no `name`: what it connected to
   * (the transport's `cacheTarget().server`, a digest of the URL, or of the command line
   * and working directory).
   */
  identity(): Promise<string>;
  /** The plain methods that send. */
  plain: Pick<McpClient, "callTool" | "getPrompt" | "readResource">;
  /** Diagnostics. */
  warn(message: string): void;
}

/** The methods a governed client replaces. */
export type GovernedMethods = Pick<
  McpClient,
  | "listTools"
  | "listAllTools"
  | "cachedTools"
  | "tool"
  | "callTool"
  | "getPrompt"
  | "readResource"
>;

/**
 * The client's own identity of a server: the transport's `cacheTarget().server` (a digest of
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
    if (typeof target?.server === "string" && target.server !== "") return target.server;
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
  const { governance, lists, cache, plain } = deps;
  // The server's name in governance (pins, grants, `servers:` rules, `ctx.server`): the
  // `name` option, else the client's own identity of what it connected to; never anything
  // the server says.
  let server = deps.name;
  const named = server !== undefined ? Promise.resolve(server) : deps.identity().then((id) => {
    server = id;
    return id;
  });
  named.catch(() => {});
  const scopeOf = async (view: ToolViewOptions): Promise<Scope> => ({
    ...view,
    server: server ?? await named,
  });
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
          governance.callTool({
            name,
            arguments: args ?? {},
            scope,
            lookup: (tool) => lookup(tool, options?.timeout),
            send: (tool, sent) => plain.callTool(tool, sent, options),
          })
        );
      } catch (error) {
        return Promise.reject(error);
      }
    }) as McpClient["callTool"],
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

/**
 * Private: the hub-wide governance. With the hub's `governance` option, one pipeline
 * (`createGovernance`) runs over the merged catalogue: its rules and filters see the hub
 * names (`docs__search`), and every stage's `ctx.server` is the server that owns the tool.
 * Listings are governed server by server (each group with its own `ctx.server`), calls,
 * prompts, reads and subscriptions (governed as reads: their updates are the resource's data)
 * one by one. A call that returned a task keeps its stages after the call: `awaitTask` runs
 * them on the task's result (and refuses a task the hub's governed calls did not start). Without the option every step passes straight through.
 * A server's own governance (its client options) runs inside, on the server's own names.
 *
 * @module
 */

import type { GovernanceOptions } from "../governance/options.ts";
import { createGovernance } from "../governance/create.ts";
import { taskResults } from "../governance/task_results.ts";
import type { Task } from "../protocol/tasks.ts";
import type { ClientStatus } from "../client/api.ts";
import type {
  CallOptions,
  GetPromptResult,
  ListAllOptions,
  McpClient,
  ReadResourceOptions,
  ReadResourceResult,
  Tool,
  ToolCallOptions,
  ToolResult,
} from "../client/types.ts";
import type { Catalogue, Learn } from "./_catalogue.ts";
import type { HubRoute } from "./types.ts";

/** The hub's steps that governance wraps. */
export interface Governed {
  /** The merged tools the caller may see (`learn`: as `Catalogue.tools`). */
  tools(options?: ListAllOptions, learn?: Learn): Promise<Tool[]>;
  /** Calls a routed tool. */
  call(
    name: string,
    route: HubRoute,
    client: McpClient,
    args: Record<string, unknown> | undefined,
    options?: ToolCallOptions,
  ): Promise<ToolResult | Task>;
  /** Gets a routed prompt. */
  prompt(
    name: string,
    route: HubRoute,
    client: McpClient,
    args: Record<string, unknown> | undefined,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
  /** Reads a resource of `server`. */
  read(
    uri: string,
    server: string,
    client: McpClient,
    options?: ReadResourceOptions,
  ): Promise<ReadResourceResult>;
  /**
   * Awaits a task of `server` (`wait`), its result through the stages after the call that
   * started it.
   */
  awaitTask(
    server: string,
    task: Task | string,
    wait: () => Promise<ToolResult>,
  ): Promise<ToolResult>;
  /** Subscribes to (or unsubscribes from) a resource of `server`: the read rules apply. */
  watch(uri: string, server: string, send: (uri: string) => Promise<void>): Promise<void>;
}

type Containment = ClientStatus["containment"];

const baseScope = (server: string, options?: { principal?: string; assigns?: unknown }) => ({
  server,
  principal: options?.principal,
  assigns: options?.assigns as Record<string, unknown> | undefined,
  containment: undefined as Containment,
});

/**
 * The governed steps.
 *
 * @param options The hub's `governance` option, or `undefined`.
 * @param catalogue The merged catalogue.
 * @param warn Where governance warnings go.
 * @param containmentOf How a server's process is contained (its client's `status()`), for
 *   the `sandboxed` rules.
 * @returns The steps.
 * @throws {TypeError} Naming a malformed governance option.
 */
export function governed(
  options: Omit<GovernanceOptions, "warn"> | undefined,
  catalogue: Catalogue,
  warn: (message: string) => void,
  containmentOf: (server: string) => Containment = () => undefined,
): Governed {
  if (options === undefined) {
    return {
      tools: (listOptions, learn) => catalogue.tools(listOptions, learn),
      call: (_name, route, client, args, callOptions) =>
        client.callTool(route.name, args, callOptions),
      prompt: (_name, route, client, args, callOptions) =>
        client.getPrompt(route.name, args, callOptions),
      read: (uri, _server, client, readOptions) => client.readResource(uri, readOptions),
      watch: (uri, _server, send) => send(uri),
      awaitTask: (_server, _task, wait) => wait(),
    };
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError("hub governance must be an object of governance options");
  }
  const governance = createGovernance({ ...options, warn });
  const scopeOf = (server: string, options?: { principal?: string; assigns?: unknown }) => {
    const scope = baseScope(server, options);
    scope.containment = containmentOf(server);
    return scope;
  };
  // The stages after the call, for the tasks the hub's governed calls started.
  const tasks = taskResults();
  // The latest merged listing, by hub name: what the pipeline checks a call against.
  let listed = new Map<string, Tool>();

  const tools = async (listOptions?: ListAllOptions, learn?: Learn) => {
    const all = await catalogue.tools(listOptions, learn);
    listed = new Map(all.map((tool) => [tool.name, tool]));
    const groups = new Map<string, Tool[]>();
    for (const tool of all) {
      const server = catalogue.toolRoute(tool.name)?.server ?? "";
      groups.set(server, [...groups.get(server) ?? [], tool]);
    }
    const shown = await Promise.all(
      [...groups].map(([server, group]) =>
        governance.listTools(group, scopeOf(server, listOptions))
      ),
    );
    return shown.flat();
  };

  return {
    tools,
    call(name, route, client, args, callOptions) {
      return governance.callTool<ToolResult | Task>({
        name,
        arguments: args ?? {},
        scope: scopeOf(route.server, callOptions),
        async lookup(hubName) {
          if (!listed.has(hubName)) {
            await catalogue.tools().then((all) => {
              listed = new Map(all.map((tool) => [tool.name, tool]));
            });
          }
          return listed.get(hubName);
        },
        // The owning server's group of the merged listing: what its listing hooks saw.
        listing: () =>
          [...listed.values()].filter((tool) =>
            catalogue.toolRoute(tool.name)?.server === route.server
          ),
        send: (_hubName, sent) => client.callTool(route.name, sent, callOptions),
        // Kept by server and id: two servers may use the same task ids.
        started: (answer, finish) => tasks.started(answer, finish, route.server),
      });
    },
    prompt(name, route, client, args, callOptions) {
      return governance.getPrompt(
        name,
        args ?? {},
        scopeOf(route.server, callOptions),
        (_hubName, sent) => client.getPrompt(route.name, sent, callOptions),
      );
    },
    read(uri, server, client, readOptions) {
      return governance.readResource(
        uri,
        scopeOf(server, readOptions),
        (read) => client.readResource(read, readOptions),
      );
    },
    async awaitTask(server, task, wait) {
      const finish = tasks.stagesOf(task, server);
      return await finish(await wait());
    },
    watch(uri, server, send) {
      return governance.readResource(uri, scopeOf(server), send);
    },
  };
}

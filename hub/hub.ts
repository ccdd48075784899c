/**
 * `hub(options)`: one object over many named servers. Each server gets a client of its own
 * (created at once, connecting in parallel); the hub merges their catalogues under
 * `server__name` names, routes each call to its owner, restarts a server that fails, and
 * merges their notifications with the server's name. A task a call returns
 * (`task: "return"`) (and one `getTask` or `cancelTask` returns) carries a `server` field naming the
 * server that runs it, and the task methods route by it (servers may reuse each other's task ids). A hub name, once given,
 * leads to the same server's item for the hub's life; a server name that begins with
 * another's and the separator is refused, as both would claim the same prefixed names.
 *
 * @module
 */

import { createClient } from "../client/client.ts";
import { createNotificationHub } from "../client/changes/notifications.ts";
import type { McpClient, ToolCallOptions } from "../client/types.ts";
import { timeoutSignal } from "../clock/timer.ts";
import { McpError } from "../protocol/errors.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { type RawCallTool, withShaping } from "../client/shaping.ts";
import { DEFAULT_MAX_CHARS } from "../governance/shape.ts";
import { createCatalogue } from "./_catalogue.ts";
import { type Backoff, createMember, type Member } from "./_member.ts";
import { clientOptionsFor } from "./_target.ts";
import { governed } from "./_governed.ts";
import { lazyCall } from "./_lazy_calls.ts";
import { createTaskOwners } from "./_tasks.ts";
import { META_TOOLS } from "./lazy.ts";
import type { Hub, HubNotification, HubOptions, HubReconnectOptions } from "./types.ts";

const KEYS = ["servers", "prefix", "separator", "lazy", "reconnect", "governance", "onWarning"];
const BACKOFF: Backoff = {
  attempts: Infinity,
  initialDelay: 1_000,
  maxDelay: 30_000,
  factor: 2,
  jitter: 0.2,
};

function backoffOf(value: HubReconnectOptions | false | undefined): Backoff | false {
  if (value === false) return false;
  if (value === undefined) return BACKOFF;
  if (typeof value !== "object" || value === null) {
    throw new TypeError("hub reconnect must be an object or false");
  }
  checkKeys(value, Object.keys(BACKOFF), "hub reconnect options");
  const resolved = { ...BACKOFF, ...value };
  for (const key of Object.keys(BACKOFF) as (keyof Backoff)[]) {
    const n = resolved[key];
    if (typeof n !== "number" || Number.isNaN(n) || n < 0) {
      throw new TypeError(`hub reconnect.${key} must be a number >= 0`);
    }
  }
  if (resolved.jitter > 1) throw new TypeError("hub reconnect.jitter must be between 0 and 1");
  return resolved;
}

function named(name: string, error: unknown): unknown {
  if (!(error instanceof TypeError) || error.message.startsWith("hub servers.")) return error;
  return new TypeError(`hub servers.${name}: ${error.message}`);
}

function unknown(what: string, name: string, reason: string): McpError {
  return new McpError(`No server of the hub has ${what} "${name}"`, { kind: "not_found", reason });
}

/**
 * Creates a hub over `options.servers` and returns at once: every server's client starts
 * connecting in parallel, and calls wait for their server as a client's calls do. A server
 * that fails is restarted with backoff and never takes the others down.
 *
 * @param options The servers (by name), naming, laziness and restarts.
 * @returns The hub; close it with `close()` or `await using`.
 * @throws {TypeError} Naming the bad option or server entry.
 *
 * @example Servers from a config file, tools under `server__tool`
 * ```ts ignore
 * import { hub, loadConfig } from "../mod.ts";
 *
 * await using servers = hub(await loadConfig("claude_desktop_config.json"));
 * await servers.ready();
 * console.log(servers.status().servers, (await servers.listAllTools()).map((t) => t.name));
 * ```
 */
export function hub(options: HubOptions): Hub {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("hub options must be an object");
  }
  checkKeys(options, KEYS, "hub options");
  const { servers, prefix = true, separator = "__", lazy = false, onWarning } = options;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new TypeError("hub servers must be an object of servers by name");
  }
  if (typeof separator !== "string" || separator === "") {
    throw new TypeError("hub separator must be a non-empty string");
  }
  if (onWarning !== undefined && typeof onWarning !== "function") {
    throw new TypeError("hub onWarning must be a function");
  }
  // As a client's: without onWarning, warnings go to stderr.
  const warn = onWarning ?? ((message: string) => console.warn(`@conduit/mcp: ${message}`));
  const backoff = backoffOf(options.reconnect);
  let closed = false;
  const notes = createNotificationHub<HubNotification>(warn, () => closed);
  // Every entry is checked before any client starts.
  const planned = Object.entries(servers).map(([name, entry]) => {
    if (name === "") throw new TypeError("hub servers: a server name must not be empty");
    try {
      // Each server's own governance sees its hub name as `ctx.server`.
      return { name, options: { name, ...clientOptionsFor(name, entry) } };
    } catch (error) {
      throw named(name, error);
    }
  });
  // `a` and `a__b` would both claim `a__b__c`: a prefixed name must have one server.
  for (const { name } of planned) {
    const shadowed = planned.find((other) => other.name.startsWith(`${name}${separator}`));
    if (shadowed !== undefined) {
      throw new TypeError(
        `hub servers.${shadowed.name}: a server name must not begin with another's ("${name}") and the separator "${separator}"`,
      );
    }
  }
  const clients: { name: string; client: McpClient }[] = [];
  for (const { name, options: clientOptions } of planned) {
    try {
      clients.push({ name, client: createClient({ onWarning: warn, ...clientOptions }) });
    } catch (error) {
      for (const started of clients) started.client.close().catch(() => {});
      throw named(name, error);
    }
  }
  const members: Member[] = clients.map(({ name, client }) =>
    createMember({ name, client, backoff, warn, random: Math.random, publish: notes.publish })
  );
  const byName = new Map(members.map((member) => [member.name, member]));
  const catalogue = createCatalogue(members, { prefix: prefix !== false, separator }, warn);
  const steps = governed(options.governance, catalogue, warn);
  const member = (name: string) => {
    const found = byName.get(name);
    if (found === undefined) throw unknown("a server named", name, "unknown_server");
    return found;
  };

  const tasks = createTaskOwners();
  const callRouted = async (name: string, args: unknown, callOptions?: ToolCallOptions) => {
    let route = catalogue.toolRoute(name);
    if (route === undefined) {
      await catalogue.tools();
      route = catalogue.toolRoute(name);
    }
    if (route === undefined) throw unknown("a tool", name, "unknown_tool");
    const client = member(route.server).use();
    const result = await steps.call(
      name,
      route,
      client,
      args as Record<string, unknown>,
      callOptions,
    );
    return tasks.note(result, route.server);
  };
  // With hub governance, shaping is the hub's last stage (the pipeline sees the raw result);
  // without it, the server's client shapes, with its own `shape` default.
  const callTool = options.governance === undefined
    ? callRouted
    : withShaping(callRouted as RawCallTool, DEFAULT_MAX_CHARS) as typeof callRouted;

  const ownerOf = async (uri: string) => {
    if (typeof uri !== "string" || uri === "") {
      throw new TypeError("uri must be a non-empty string");
    }
    let owner = catalogue.resourceOwner(uri);
    if (owner === undefined && !catalogue.resourcesListed()) {
      await Promise.all([catalogue.resources(), catalogue.templates()]);
      owner = catalogue.resourceOwner(uri);
    }
    if (owner === undefined) throw unknown("a resource at", uri, "unknown_resource");
    return { server: owner, client: member(owner).use() };
  };

  const close = async () => {
    closed = true;
    const results = await Promise.allSettled(members.map((m) => m.close()));
    notes.end();
    const errors = results.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
    if (errors.length > 0) throw new AggregateError(errors, "Some servers failed to close");
  };

  const self: Hub = {
    async ready(timeout) {
      const all = Promise.all(members.map((m) => m.settled)).then(() => {});
      if (timeout === undefined) return await all;
      if (!(typeof timeout === "number" && timeout > 0)) {
        throw new TypeError("timeout must be a positive number of milliseconds");
      }
      const signal = timeoutSignal(timeout);
      const expired = new Promise<never>((_, reject) =>
        signal.addEventListener("abort", () =>
          reject(
            new McpError(`The hub's servers did not all start within ${timeout} ms`, {
              kind: "timeout",
            }),
          ), { once: true })
      );
      await Promise.race([all, expired]);
    },
    status() {
      const status = Object.fromEntries(members.map((m) => [m.name, m.status()]));
      return { servers: status, collisions: catalogue.collisions() };
    },
    serverNames: () => members.map((m) => m.name),
    client: (name) => member(name).client,
    resolveTool(name) {
      const route = catalogue.toolRoute(name);
      return route !== undefined && byName.has(route.server) ? { ...route } : undefined;
    },
    async listAllTools(listOptions) {
      if (lazy) return META_TOOLS.map((tool) => structuredClone(tool));
      return await steps.tools(listOptions);
    },
    callTool: ((name: string, args?: Record<string, unknown>, callOptions?: ToolCallOptions) => {
      if (typeof name !== "string" || name === "") {
        return Promise.reject(new TypeError("name must be a non-empty string"));
      }
      if (lazy) {
        const meta = lazyCall(name, args, callOptions, steps.tools, callTool);
        if (meta !== undefined) return meta;
      }
      return callTool(name, args, callOptions);
    }) as Hub["callTool"],
    async getTask(task, taskOptions) {
      const server = tasks.ownerOf(task);
      return tasks.note(await member(server).use().getTask(task, taskOptions), server);
    },
    async awaitTask(task, taskOptions) {
      const server = tasks.ownerOf(task);
      return await steps.awaitTask(
        server,
        task,
        () => member(server).use().awaitTask(task, taskOptions),
      );
    },
    async cancelTask(task, taskOptions) {
      const server = tasks.ownerOf(task);
      return tasks.note(await member(server).use().cancelTask(task, taskOptions), server);
    },
    listAllPrompts: (listOptions) => catalogue.prompts(listOptions),
    async getPrompt(name, args, callOptions) {
      let route = catalogue.promptRoute(name);
      if (route === undefined) {
        await catalogue.prompts();
        route = catalogue.promptRoute(name);
      }
      if (route === undefined) throw unknown("a prompt", name, "unknown_prompt");
      return await steps.prompt(name, route, member(route.server).use(), args, callOptions);
    },
    listAllResources: (listOptions) => catalogue.resources(listOptions),
    listAllResourceTemplates: (listOptions) => catalogue.templates(listOptions),
    async readResource(uri, readOptions) {
      const { server, client } = await ownerOf(uri);
      return await steps.read(uri, server, client, readOptions);
    },
    async subscribe(uri, subOptions) {
      const { server, client } = await ownerOf(uri);
      await steps.watch(uri, server, (target) => client.subscribe(target, subOptions));
    },
    async unsubscribe(uri, subOptions) {
      const { server, client } = await ownerOf(uri);
      await steps.watch(uri, server, (target) => client.unsubscribe(target, subOptions));
    },
    subscribeNotifications: (listener) => notes.subscribe(listener),
    notifications: (iterOptions) =>
      notes.iterate(checkKeys(iterOptions, ["signal"], "notifications options")),
    close,
    [Symbol.asyncDispose]: close,
  };
  return self;
}

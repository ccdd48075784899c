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

import { createNotificationHub } from "../client/changes/notifications.ts";
import type { ToolCallOptions } from "../client/types.ts";
import { timeoutSignal } from "../clock/timer.ts";
import { McpError } from "../protocol/errors.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import type { RawCallTool } from "../client/shaping.ts";
import { hubShaping } from "./_spill.ts";
import { createCatalogue } from "./_catalogue.ts";
import { createSlot, type Slot } from "./_slot.ts";
import { governed } from "./_governed.ts";
import { createTaskOwners } from "./_tasks.ts";
import { checkHubOptions, namedError } from "./_entry_options.ts";
import type { CatalogueStore } from "./_stored.ts";
import { createLazyListing } from "./_lazy_listing.ts";
import { CALL_TOOL, READ_RESULT, SEARCH_TOOLS } from "./lazy.ts";
import type { CacheStore } from "../cache/store.ts";
import type { Transport } from "../transports/transport.ts";
import type {
  Hub,
  HubEntryOptions,
  HubNotification,
  HubOptions,
  HubServerStatus,
} from "./types.ts";

export { DEFAULT_CATALOGUE_TTL_MS, DEFAULT_IDLE_MS } from "./_entry_options.ts";
export { ALWAYS_LOAD_META } from "./_lazy_listing.ts";

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
 * import { hub, loadConfig } from "./mod.ts";
 *
 * await using servers = hub(await loadConfig("claude_desktop_config.json"));
 * await servers.ready();
 * console.log(servers.status().servers, (await servers.listAllTools()).map((t) => t.name));
 * ```
 */
export function hub(options: HubOptions): Hub {
  // Every option and entry is checked before any client starts.
  const {
    planned,
    budgets,
    prefix,
    separator,
    lazy,
    start,
    idleMs,
    ttlMs,
    cache,
    alwaysLoad,
    warn,
    backoff,
    shape,
  } = checkHubOptions(options);
  let closed = false;
  const notes = createNotificationHub<HubNotification>(warn, () => closed);
  const own = new Map<string, HubEntryOptions>(planned.map((p) => [p.name, p.own]));
  const transports = new Map<string, Transport>(
    planned.map((p) => [p.name, p.options.transport as Transport]),
  );
  const starts = planned.map((p) => p.own.start ?? start);
  // Catalogues are kept when a store is given or a server starts lazily; the code that keeps
  // them (and the default memory store) loads only then.
  let keeping: Promise<CatalogueStore> | undefined;
  let storeNow: CatalogueStore | undefined;
  const keeper = cache !== undefined || starts.includes("lazy")
    ? () =>
      keeping ??= (async () => {
        const store: CacheStore = cache ??
          (await import("../cache/memory.ts")).memoryStore();
        const { createCatalogueStore } = await import("./_stored.ts");
        return storeNow = createCatalogueStore({ store, ttlMs, transports, warn });
      })()
    : undefined;
  const slots: Slot[] = [];
  for (const [i, { name, options: clientOptions }] of planned.entries()) {
    try {
      slots.push(createSlot({
        name,
        options: clientOptions,
        start: starts[i],
        idleMs: own.get(name)?.idleMs ?? idleMs,
        backoff,
        warn,
        publish: notes.publish,
      }));
    } catch (error) {
      for (const made of slots) made.close().catch(() => {});
      throw namedError(name, error);
    }
  }
  const byName = new Map(slots.map((slot) => [slot.name, slot]));
  const catalogue = createCatalogue(slots, { prefix: prefix !== false, separator }, warn, keeper);
  const steps = governed(
    options.governance,
    catalogue,
    warn,
    (server) => byName.get(server)?.status().containment,
  );
  const slot = (name: string) => {
    const found = byName.get(name);
    if (found === undefined) throw unknown("a server named", name, "unknown_server");
    return found;
  };
  // A server's changed list: its stored catalogue is written again at the next listing.
  if (keeper !== undefined) {
    notes.subscribe((note) => {
      if (note.method === "notifications/tools/list_changed") {
        keeper().then((store) => store.stale(note.server), () => {});
      }
    });
  }

  const tasks = createTaskOwners();
  const callRouted = async (name: string, args: unknown, callOptions?: ToolCallOptions) => {
    let route = catalogue.toolRoute(name);
    if (route === undefined) {
      await catalogue.tools();
      route = catalogue.toolRoute(name);
    }
    if (route === undefined) throw unknown("a tool", name, "unknown_tool");
    const found = route;
    const owner = slot(found.server);
    const cold = !owner.running();
    const result = await owner.with(async (client) => {
      // Started for this call: its live catalogue first (stored again, and checked against
      // the pins by governance's listing, so a changed tool is held before it is called).
      if (cold) await steps.tools();
      return await steps.call(name, found, client, args as Record<string, unknown>, callOptions);
    });
    return tasks.note(result, found.server);
  };
  const { spill, callTool } = hubShaping({
    shape,
    shaped: options.shape !== undefined,
    governed: options.governance !== undefined,
    budgets,
    transports: new Map(planned.map((p) => [p.name, p.options.transport])),
    route: (name) => catalogue.toolRoute(name),
    running(server) {
      const owner = byName.get(server);
      return owner?.running() ? owner.use() : undefined;
    },
    call: callRouted as RawCallTool & typeof callRouted,
  });

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
    return slot(owner);
  };

  // The lazy listing: the meta-tools, the tools to keep loaded, and those found this session.
  const listing = createLazyListing({
    catalogue,
    steps,
    own,
    alwaysLoad,
    prefix: prefix !== false,
    separator,
    search: {
      keeper,
      catalogue,
      tools: (listOptions) => steps.tools(listOptions),
      governed: options.governance !== undefined,
      entries: planned.map((p) => [p.name, options.servers[p.name]] as const),
      stopped: () => slots.every((one) => !one.running()),
      warn,
    },
  });

  const close = async () => {
    closed = true;
    const results = await Promise.allSettled(slots.map((m) => m.close()));
    notes.end();
    const errors = results.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
    if (errors.length > 0) throw new AggregateError(errors, "Some servers failed to close");
  };

  const statusOf = (one: Slot): HubServerStatus => {
    const status = one.status();
    const kept = storeNow?.peek(one.name);
    if (kept !== undefined) {
      status.catalogue = {
        ageMs: Math.max(0, Date.now() - kept.takenAt),
        tools: kept.tools.length,
      };
    }
    return status;
  };
  const self: Hub = {
    async ready(timeout) {
      const all = Promise.all(slots.map((m) => m.settled())).then(() => {});
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
      const status = Object.fromEntries(slots.map((m) => [m.name, statusOf(m)]));
      return { servers: status, collisions: catalogue.collisions() };
    },
    serverNames: () => slots.map((m) => m.name),
    client: (name) => slot(name).wake().client,
    resolveTool(name) {
      const route = catalogue.toolRoute(name);
      return route !== undefined && byName.has(route.server) ? { ...route } : undefined;
    },
    async listCatalogue(listOptions) {
      const tools = await steps.tools(listOptions);
      return { tools, alwaysLoad: tools.filter(listing.keep).map((tool) => tool.name) };
    },
    async warm() {
      if (keeper === undefined) {
        await Promise.all(slots.map((m) => m.settled()));
        return;
      }
      await catalogue.tools();
    },
    async listAllTools(listOptions) {
      const tools = lazy ? await listing.list(listOptions) : await steps.tools(listOptions);
      return shape.spill === undefined ? tools : [...tools, await spill.readResultTool()];
    },
    readResult: (handle, readOptions) => spill.readResult(handle, readOptions),
    spilling: () => shape.spill !== undefined,
    callTool: ((name: string, args?: Record<string, unknown>, callOptions?: ToolCallOptions) => {
      if (typeof name !== "string" || name === "") {
        return Promise.reject(new TypeError("name must be a non-empty string"));
      }
      if (name === READ_RESULT && shape.spill !== undefined) {
        return spill.metaCall(args, callOptions);
      }
      // The meta-tools' calls load on the first one.
      if (lazy && (name === SEARCH_TOOLS || name === CALL_TOOL)) {
        return import("./_lazy_calls.ts").then((m) =>
          m.lazyCall(name, args, callOptions, listing.find, callTool)!
        );
      }
      return callTool(name, args, callOptions);
    }) as Hub["callTool"],
    async getTask(task, taskOptions) {
      const server = tasks.ownerOf(task);
      return tasks.note(
        await slot(server).with((client) => client.getTask(task, taskOptions)),
        server,
      );
    },
    async awaitTask(task, taskOptions) {
      const server = tasks.ownerOf(task);
      return await slot(server).with((client) =>
        steps.awaitTask(server, task, () => client.awaitTask(task, taskOptions))
      );
    },
    async cancelTask(task, taskOptions) {
      const server = tasks.ownerOf(task);
      return tasks.note(
        await slot(server).with((client) => client.cancelTask(task, taskOptions)),
        server,
      );
    },
    listAllPrompts: (listOptions) => catalogue.prompts(listOptions),
    async getPrompt(name, args, callOptions) {
      let route = catalogue.promptRoute(name);
      if (route === undefined) {
        await catalogue.prompts();
        route = catalogue.promptRoute(name);
      }
      if (route === undefined) throw unknown("a prompt", name, "unknown_prompt");
      const found = route;
      return await slot(found.server).with((client) =>
        steps.prompt(name, found, client, args, callOptions)
      );
    },
    listAllResources: (listOptions) => catalogue.resources(listOptions),
    listAllResourceTemplates: (listOptions) => catalogue.templates(listOptions),
    async readResource(uri, readOptions) {
      const owner = await ownerOf(uri);
      return await owner.with((client) => steps.read(uri, owner.name, client, readOptions));
    },
    async subscribe(uri, subOptions) {
      const owner = await ownerOf(uri);
      await owner.with((client) =>
        steps.watch(uri, owner.name, (target) => client.subscribe(target, subOptions))
      );
    },
    async unsubscribe(uri, subOptions) {
      const owner = await ownerOf(uri);
      await owner.with((client) =>
        steps.watch(uri, owner.name, (target) => client.unsubscribe(target, subOptions))
      );
    },
    subscribeNotifications: (listener) => notes.subscribe(listener),
    notifications: (iterOptions) =>
      notes.iterate(checkKeys(iterOptions, ["signal"], "notifications options")),
    close,
    [Symbol.asyncDispose]: close,
  };
  return self;
}

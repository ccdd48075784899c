/**
 * Private: the hub's merged catalogue. Each listing asks every server that can answer, in
 * parallel (a server still starting is waited for until its first start settles; one that
 * is down or fails to list is left out with a warning), merges the answers under hub
 * names (`_names.ts`) and keeps where each name and URI leads for routing: routes and URI
 * owners only grow (bounded by {@linkcode MAX_ROUTES}), a name or URI never moves to another
 * server because a later listing lacked its owner.
 *
 * @module
 */

import type {
  ListAllOptions,
  McpClient,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
} from "../client/types.ts";
import type { HubCollision, HubRoute } from "./types.ts";
import type { Slot } from "./_slot.ts";
import type { CatalogueStore } from "./_stored.ts";
import { type Listing, mergeNamed, type Naming, routeByPrefix } from "./_names.ts";
import { mergeResources, ownerOf } from "./_resources.ts";

/** The merged catalogue of a hub's servers. */
export interface Catalogue {
  /**
   * Every server's tools under hub names. A server that is not running answers from its
   * stored catalogue; one with none is started to learn it, unless `learn` is `false` or
   * says `false` for it (then it is left out).
   */
  tools(options?: ListAllOptions, learn?: Learn): Promise<Tool[]>;
  /**
   * Merges listings known otherwise (a stored snapshot's names) under hub names, as `tools`
   * merges: the routes and collisions are updated; returns the tools under hub names.
   */
  adopt(listings: readonly Listing<Tool>[]): Tool[];
  /** Every server's prompts under hub names. */
  prompts(options?: ListAllOptions): Promise<Prompt[]>;
  /** Every server's resources (each URI once). */
  resources(options?: ListAllOptions): Promise<Resource[]>;
  /** Every server's resource templates. */
  templates(options?: ListAllOptions): Promise<ResourceTemplate[]>;
  /** Where a tool name leads: the latest listing's route, else by prefix. */
  toolRoute(name: string): HubRoute | undefined;
  /** Where a prompt name leads. */
  promptRoute(name: string): HubRoute | undefined;
  /** The server of a URI: listed (or matching a template) in the latest listings. */
  resourceOwner(uri: string): string | undefined;
  /** Whether resources and templates were listed since the hub started. */
  resourcesListed(): boolean;
  /** The latest listings' collisions. */
  collisions(): HubCollision[];
}

const sameListings = (a: readonly Listing<Tool>[], b: readonly Listing<Tool>[]) =>
  a.length === b.length && a.length > 0 &&
  a.every((listing, i) => listing.server === b[i].server && listing.items === b[i].items);

/** Whether servers with no stored catalogue are started to learn it: all, none, or by name. */
export type Learn = boolean | ((server: string) => boolean);

type ListKind = "tools" | "prompts" | "resources" | "templates";

/**
 * The most hub names (or URI owners) of one kind a hub keeps from earlier listings; past
 * it, they are given afresh from the latest listing (with a warning).
 */
export const MAX_ROUTES = 100_000;

/** How many collisions a summary warning names. */
const SHOWN_COLLISIONS = 3;

/**
 * Creates the catalogue over the hub's servers.
 *
 * @param members The servers, in declaration order.
 * @param naming How names are made.
 * @param warn Where diagnostics go.
 * @param keeper The stored catalogues (loaded on first use), when the hub keeps them.
 * @returns The catalogue.
 */
export function createCatalogue(
  members: readonly Slot[],
  naming: Naming,
  warn: (message: string) => void,
  keeper?: () => Promise<CatalogueStore>,
): Catalogue {
  const names = members.map((member) => member.name);
  let toolRoutes = new Map<string, HubRoute>();
  let promptRoutes = new Map<string, HubRoute>();
  let owners: ReadonlyMap<string, string> = new Map();
  let templateListings: Listing<ResourceTemplate>[] = [];
  let listedResources = false;
  let listedTemplates = false;
  const found: Record<"tool" | "prompt" | "resource", HubCollision[]> = {
    tool: [],
    prompt: [],
    resource: [],
  };
  const reported = new Set<string>();
  let lastListings: Listing<Tool>[] = [];
  let lastMerged: Tool[] = [];

  async function gather<T>(
    kind: ListKind,
    list: (client: McpClient) => Promise<T[]>,
  ): Promise<Listing<T>[]> {
    const listings = await Promise.all(members.map(async (member) => {
      if (!member.running()) return undefined; // A lazy server not running: not started for this.
      await member.settled();
      let client: McpClient;
      try {
        client = member.use();
      } catch {
        return undefined; // Down: status() says why.
      }
      try {
        return { server: member.name, items: await list(client) };
      } catch (error) {
        warn(`Server "${member.name}" left out of the ${kind} listing: ${error}`);
        return undefined;
      }
    }));
    return listings.filter((listing) => listing !== undefined);
  }

  /** Collisions new since the last listing: one warning for them all, naming a few. */
  function collided(kind: "tool" | "prompt" | "resource", collisions: HubCollision[]) {
    found[kind] = collisions;
    const fresh = collisions.filter((c) => {
      const key = `${c.kind}\0${c.name}\0${c.server}`;
      if (reported.has(key)) return false;
      reported.add(key);
      return true;
    });
    const instead = (c: HubCollision) =>
      c.resolvedAs === undefined ? "stays with the first" : `is "${c.resolvedAs}"`;
    if (fresh.length === 1) {
      const [c] = fresh;
      warn(`Two servers list ${c.kind} "${c.name}": server "${c.server}"'s ${instead(c)}`);
    } else if (fresh.length > 1) {
      const named = fresh.slice(0, SHOWN_COLLISIONS)
        .map((c) => `server "${c.server}"'s "${c.name}" ${instead(c)}`).join(", ");
      const more = fresh.length > SHOWN_COLLISIONS
        ? `, and ${fresh.length - SHOWN_COLLISIONS} more`
        : "";
      warn(
        `${fresh.length} ${kind}s are listed by more than one server: ${named}${more} ` +
          `(status().collisions lists them all)`,
      );
    }
  }

  // A whole listing (no caller's view): what a stored catalogue keeps.
  const whole = (options?: ListAllOptions) =>
    options === undefined || (options.principal === undefined && options.assigns === undefined);

  async function live(member: Slot, client: McpClient, options?: ListAllOptions, since?: number) {
    const start = since ?? performance.now();
    const items = await client.listAllTools(options);
    if (keeper !== undefined && whole(options)) {
      await (await keeper()).save(member.name, items, performance.now() - start);
    }
    return items;
  }

  async function toolsOf(
    member: Slot,
    options: ListAllOptions | undefined,
    learn: Learn,
  ): Promise<Listing<Tool> | undefined> {
    const store = keeper === undefined ? undefined : await keeper();
    try {
      if (!member.running()) {
        const stored = await store?.load(member.name);
        if (stored !== undefined) return { server: member.name, items: stored.tools };
        if (store === undefined || !(learn === true || (learn !== false && learn(member.name)))) {
          return undefined;
        }
        // Never seen (or past its ttl): started once to learn it; it stops again when idle.
        const since = performance.now();
        const items = await member.with((client) => live(member, client, options, since));
        return { server: member.name, items };
      }
      await member.settled();
      let client: McpClient;
      try {
        client = member.use();
      } catch {
        // Down: status() says why; its stored catalogue still answers searches.
        const stored = await store?.load(member.name);
        return stored === undefined ? undefined : { server: member.name, items: stored.tools };
      }
      return { server: member.name, items: await live(member, client, options) };
    } catch (error) {
      warn(`Server "${member.name}" left out of the tools listing: ${error}`);
      return undefined;
    }
  }

  /** Merges listings under hub names, keeping the routes given (afresh past MAX_ROUTES). */
  function mergeRouted<T extends { name: string }>(
    kind: "tool" | "prompt",
    listings: readonly Listing<T>[],
    routes: ReadonlyMap<string, HubRoute>,
  ): { items: T[]; routes: Map<string, HubRoute> } {
    let merged = mergeNamed(kind, listings, naming, routes);
    if (merged.routes.size > MAX_ROUTES) {
      warn(`More than ${MAX_ROUTES} ${kind} names: they are given afresh`);
      merged = mergeNamed(kind, listings, naming);
    }
    collided(kind, merged.collisions);
    return merged;
  }

  function mergeTools(listings: readonly Listing<Tool>[]): Tool[] {
    const merged = mergeRouted("tool", listings, toolRoutes);
    toolRoutes = merged.routes;
    return merged.items;
  }

  return {
    async tools(options, learn = true) {
      // The stored catalogues of the servers not running: one read of the store for all.
      if (keeper !== undefined) {
        const stopped = members.filter((m) => !m.running()).map((m) => m.name);
        if (stopped.length > 0) await (await keeper()).prefetch(stopped);
      }
      const listings = (await Promise.all(members.map((m) => toolsOf(m, options, learn))))
        .filter((listing) => listing !== undefined);
      // The same lists as the last merge (stored catalogues, a client's kept listing): the
      // same names, so the last merge's tools (a search does not merge 500 tools again).
      if (sameListings(listings, lastListings)) return [...lastMerged];
      lastMerged = mergeTools(listings);
      lastListings = listings;
      return [...lastMerged];
    },
    adopt: (listings) => mergeTools(listings),
    async prompts(options) {
      const listings = await gather("prompts", (c) => c.listAllPrompts(options));
      const merged = mergeRouted("prompt", listings, promptRoutes);
      promptRoutes = merged.routes;
      return merged.items;
    },
    async resources(options) {
      const listings = await gather("resources", (c) => c.listAllResources(options));
      let merged = mergeResources(listings, owners);
      if (merged.owners.size > MAX_ROUTES) {
        warn(`More than ${MAX_ROUTES} resource URIs: their owners are given afresh`);
        merged = mergeResources(listings);
      }
      owners = merged.owners;
      listedResources = true;
      collided("resource", merged.collisions);
      return merged.items;
    },
    async templates(options) {
      templateListings = await gather("templates", (c) => c.listAllResourceTemplates(options));
      listedTemplates = true;
      return templateListings.flatMap((listing) => listing.items);
    },
    toolRoute: (name) => toolRoutes.get(name) ?? routeByPrefix(name, names, naming),
    promptRoute: (name) => promptRoutes.get(name) ?? routeByPrefix(name, names, naming),
    resourceOwner: (uri) => ownerOf(uri, owners, templateListings),
    resourcesListed: () => listedResources && listedTemplates,
    collisions: () => [...found.tool, ...found.prompt, ...found.resource],
  };
}

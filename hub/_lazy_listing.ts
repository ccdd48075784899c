/**
 * Private: what a lazy hub lists. The meta-tools first, then the tools kept loaded (named
 * in the hub's or an entry's `alwaysLoad`, or marked so in their `_meta`), then the tools
 * its searches found this session (at most {@linkcode MAX_LOADED}). The search loads on the
 * first `search_tools` call.
 *
 * @module
 */

import type { ListAllOptions, Tool } from "../client/types.ts";
import type { Catalogue } from "./_catalogue.ts";
import type { Governed } from "./_governed.ts";
import type { ToolSearch, ToolSearchDeps } from "./_tool_search.ts";
import { META_TOOLS } from "./lazy.ts";
import type { ToolMatch } from "./search.ts";
import type { HubEntryOptions } from "./types.ts";

/** A tool's `_meta` key that keeps it in a lazy hub's listing. */
export const ALWAYS_LOAD_META = "anthropic/alwaysLoad";
/** The most tools found by searches that join a lazy hub's listing. */
const MAX_LOADED = 1_000;

/** What the lazy listing needs from the hub. */
export interface LazyListingDeps {
  catalogue: Catalogue;
  steps: Governed;
  /** Each server's own entry keys, by server name. */
  own: ReadonlyMap<string, HubEntryOptions>;
  /** The hub's `alwaysLoad`: servers and hub tool names. */
  alwaysLoad: ReadonlySet<string>;
  /** Whether names are prefixed, and the separator. */
  prefix: boolean;
  separator: string;
  /** What the search needs, when the first search is made. */
  search: ToolSearchDeps;
}

/** A lazy hub's listing and search. */
export interface LazyListing {
  /** Whether `tool` (under its hub name) stays in the listing. */
  keep(tool: Tool): boolean;
  /** The listing: meta-tools, kept tools, found tools. */
  list(options?: ListAllOptions): Promise<Tool[]>;
  /** Searches; what it finds joins the listing. */
  find(query: string, limit: number, view: ListAllOptions): Promise<ToolMatch[]>;
}

/** Creates the lazy listing of a hub. */
export function createLazyListing(deps: LazyListingDeps): LazyListing {
  const { catalogue, steps, own, alwaysLoad, prefix, separator } = deps;
  const loaded: string[] = [];
  const loadedSet = new Set<string>();

  const keep = (tool: Tool) => {
    const route = catalogue.toolRoute(tool.name);
    if (alwaysLoad.has(tool.name) || (route !== undefined && alwaysLoad.has(route.server))) {
      return true;
    }
    const meta = (tool as { _meta?: unknown })._meta;
    if (
      typeof meta === "object" && meta !== null &&
      (meta as Record<string, unknown>)[ALWAYS_LOAD_META] === true
    ) {
      return true;
    }
    const entry = route === undefined ? undefined : own.get(route.server)?.alwaysLoad;
    return entry === true || (Array.isArray(entry) && entry.includes(route!.name));
  };

  /** Whether a server has tools to keep loaded (then it is started to learn them). */
  const keepsTools = (server: string) => {
    const entry = own.get(server)?.alwaysLoad;
    if (alwaysLoad.has(server) || entry === true || (Array.isArray(entry) && entry.length > 0)) {
      return true;
    }
    const head = `${server}${separator}`;
    return prefix && [...alwaysLoad].some((name) => name.startsWith(head));
  };

  let searching: Promise<ToolSearch> | undefined;

  return {
    keep,
    async list(options) {
      const shown = META_TOOLS.map((tool) => structuredClone(tool));
      // What is known now; only servers named to keep tools loaded are started to learn theirs.
      const all = await steps.tools(options, keepsTools);
      const kept = all.filter(keep);
      const keptNames = new Set(kept.map((tool) => tool.name));
      const byHubName = new Map(all.map((tool) => [tool.name, tool]));
      const found = loaded.flatMap((name) => {
        const tool = byHubName.get(name);
        return tool === undefined || keptNames.has(name) ? [] : [tool];
      });
      return [...shown, ...kept, ...found];
    },
    async find(query, limit, view) {
      // A failed load is tried again by the next search.
      const search = await (searching ??= import("./_tool_search.ts").then(
        (m) => m.createToolSearch(deps.search),
        (error) => {
          searching = undefined;
          throw error;
        },
      ));
      const matches = await search(query, limit, view);
      for (const match of matches) {
        if (loadedSet.has(match.name) || loadedSet.size >= MAX_LOADED) continue;
        loadedSet.add(match.name);
        loaded.push(match.name);
      }
      return matches;
    },
  };
}

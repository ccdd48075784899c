/**
 * Private: a lazy hub's `search_tools` over its catalogue (loaded on the first search).
 * When no server is running, the hub has no hub-wide governance and its stored snapshot
 * (`_snapshot.ts`) is there, fresh and well-formed, a search ranks the snapshot's names with
 * the stored index it names, and reads only the catalogues of the servers whose tools it
 * returns (checked as any stored catalogue is; one that is not the snapshot's sends the
 * search the whole way). Otherwise it searches the whole merged catalogue (every stored
 * catalogue read and checked, servers never seen started to learn theirs), and then keeps
 * the snapshot of what it searched for the next process.
 *
 * @module
 */

import type { ListAllOptions, Tool } from "../client/types.ts";
import type { Catalogue } from "./_catalogue.ts";
import { createFinder } from "./_find.ts";
import type { CatalogueStore } from "./_stored.ts";
import type { IndexedTool, ToolMatch } from "./search.ts";
import {
  agrees,
  checkSnapshot,
  MAX_SNAPSHOT_CHARS,
  type Snapshot,
  snapshotName,
  type SnapshotServer,
} from "./_snapshot.ts";

/** Searches the catalogue as the caller (`view`) may see it. */
export type ToolSearch = (
  query: string,
  limit: number,
  view: ListAllOptions,
) => Promise<ToolMatch[]>;

/** What the search needs from the hub. */
export interface ToolSearchDeps {
  /** The stored catalogues, when the hub keeps them. */
  keeper: (() => Promise<CatalogueStore>) | undefined;
  /** The merged catalogue (its routes). */
  catalogue: Catalogue;
  /** The merged tools a caller may see (governed, servers never seen started). */
  tools(view: ListAllOptions): Promise<Tool[]>;
  /** Whether the hub has hub-wide governance (its listings are then always governed). */
  governed: boolean;
  /** Each server's name and entry as given, in the hub's order. */
  entries: readonly (readonly [string, unknown])[];
  /** Whether no server is running. */
  stopped(): boolean;
  /** Where diagnostics go. */
  warn(message: string): void;
}

const whole = (view: ListAllOptions) => view.principal === undefined && view.assigns === undefined;

/**
 * Creates the hub's search.
 *
 * @param deps What it needs from the hub.
 * @returns The search.
 */
export function createToolSearch(deps: ToolSearchDeps): ToolSearch {
  const { keeper, catalogue, warn } = deps;
  const finder = createFinder(keeper, warn);
  const servers = deps.entries.map(([name]) => name);
  const position = new Map(servers.map((name, i) => [name, i]));
  let naming: Promise<string | undefined> | undefined;
  const nameOf = () => naming ??= snapshotName(deps.entries).catch(() => undefined);
  // The snapshot read (and its names under hub names), and the last one kept (by what it holds).
  let read: { snapshot: Snapshot; entries: IndexedTool[] } | undefined;
  let kept: string | undefined;
  const signature = (index: string, listed: readonly SnapshotServer[]) =>
    `${index} ${listed.map((s) => s.takenAt).join(" ")}`;

  const known = async (store: CatalogueStore, name: string) => {
    if (read !== undefined) return read;
    const raw = await store.readSnapshot(name);
    if (raw === undefined) return undefined;
    const snapshot = checkSnapshot(raw, servers, Date.now());
    if (typeof snapshot === "string") {
      warn(`The stored catalogue snapshot is ignored: it has ${snapshot}`);
      return undefined;
    }
    const listings = snapshot.servers.map((server, i) => ({
      server: servers[i],
      items: server.names.map((own) => ({ name: own }) as Tool),
    }));
    // The merged tools come in the listings' order, one for each name: each one's route is
    // its server and own name (no route looked up again).
    const merged = catalogue.adopt(listings);
    const entries: IndexedTool[] = [];
    let at = 0;
    for (const { server, items } of listings) {
      for (const item of items) entries.push({ tool: merged[at++], server, original: item.name });
    }
    kept = signature(snapshot.index, snapshot.servers);
    return read = { snapshot, entries };
  };

  // From the snapshot: `undefined` when it cannot answer (the search goes the whole way).
  const quick = async (query: string, limit: number) => {
    if (keeper === undefined || deps.governed || !deps.stopped()) return undefined;
    const name = await nameOf();
    if (name === undefined) return undefined;
    const store = await keeper();
    const found = await known(store, name);
    if (found === undefined) return undefined;
    const { snapshot, entries } = found;
    const now = Date.now();
    if (!snapshot.servers.every((server) => now - server.takenAt < server.ttlMs)) {
      return undefined;
    }
    const matches = await finder.stored(entries, snapshot.index, query, limit);
    if (matches === undefined) return undefined;
    // The matched tools' definitions: their servers' catalogues, read in one read.
    const routes = matches.map((match) => catalogue.toolRoute(match.name)!);
    const wanted = [...new Set(routes.map((route) => route.server))];
    const listed = wanted.map((server) => snapshot.servers[position.get(server)!]);
    await store.prefetch(wanted, listed.map((server) => server.key));
    const tools = new Map<string, Map<string, Tool>>();
    for (let i = 0; i < wanted.length; i++) {
      const stored = await store.load(wanted[i]);
      if (stored === undefined || !agrees(stored, listed[i])) {
        read = undefined; // Read again (the whole search may keep a new one meanwhile).
        return undefined;
      }
      tools.set(wanted[i], new Map(stored.tools.map((tool) => [tool.name, tool])));
    }
    return matches.map(({ name, score }, i) => {
      const tool = tools.get(routes[i].server)!.get(routes[i].name)!;
      const match: ToolMatch = { name, inputSchema: tool.inputSchema, score };
      if (typeof tool.description === "string") match.description = tool.description;
      return match;
    });
  };

  // What the whole search searched, kept as the snapshot when every server's tools are its
  // stored catalogue's.
  const keep = async (entries: readonly IndexedTool[]) => {
    const index = finder.key();
    const name = await nameOf();
    if (keeper === undefined || index === undefined || name === undefined) return;
    const store = await keeper();
    const counts = new Map<string | undefined, number>();
    for (const entry of entries) counts.set(entry.server, (counts.get(entry.server) ?? 0) + 1);
    const listed: SnapshotServer[] = [];
    for (const server of servers) {
      const stored = store.peek(server);
      if (
        stored === undefined || !store.fresh(stored) ||
        (counts.get(server) ?? 0) !== stored.tools.length
      ) {
        return;
      }
      const { takenAt, ttlMs, tools } = stored;
      listed.push({
        key: await store.key(server),
        takenAt,
        ttlMs,
        names: tools.map((t) => t.name),
      });
    }
    const made = signature(index, listed);
    if (made === kept) return;
    const value: Snapshot = { v: 1, index, servers: listed };
    if (JSON.stringify(value).length > MAX_SNAPSHOT_CHARS) return;
    kept = made;
    read = undefined;
    await store.writeSnapshot(name, value);
  };

  return async (query, limit, view) => {
    const fast = whole(view) ? await quick(query, limit) : undefined;
    if (fast !== undefined) return fast;
    const tools = await deps.tools(view);
    const entries = tools.map((tool): IndexedTool => {
      const route = catalogue.toolRoute(tool.name);
      return { tool, server: route?.server, original: route?.name };
    });
    const matches = await finder(entries, query, limit);
    if (!deps.governed && whole(view)) await keep(entries);
    return matches;
  };
}

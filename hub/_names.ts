/**
 * Private: the hub's names. Each server's tools (and prompts) are listed as
 * `server<separator>name`, or bare without prefixing; when two servers' items would get
 * the same hub name, the server declared first keeps it and the other's item gets the
 * first free `<name>_2`, `<name>_3`, … — the same result for the same listings, whatever
 * order they arrived in. A name once given keeps leading to the same server's item for the
 * hub's life (listings differ per caller and with who is down; a name must not move). A
 * server name that begins with another's and the separator is refused by the hub, so a
 * prefixed name has one server. Pure.
 *
 * @module
 */

import type { HubCollision, HubRoute } from "./types.ts";

/** How hub names are made. */
export interface Naming {
  /** Prefix with the server's name. */
  prefix: boolean;
  /** What joins the server's name and the item's. */
  separator: string;
}

/** One server's listing, in declaration order of the servers. */
export interface Listing<T> {
  /** The server's name. */
  server: string;
  /** What it listed. */
  items: T[];
}

/** A merged catalogue: the renamed items, where each name leads, and the collisions. */
export interface Merged<T> {
  /** The items under their hub names, servers in declaration order. */
  items: T[];
  /** Hub name → server and the server's own name. */
  routes: Map<string, HubRoute>;
  /** Names two servers wanted. */
  collisions: HubCollision[];
}

/**
 * The hub name an item would have before collisions.
 *
 * @param naming How names are made.
 * @param server The server's name.
 * @param name The item's own name.
 * @returns The hub name.
 */
export function hubName(naming: Naming, server: string, name: string): string {
  return naming.prefix ? `${server}${naming.separator}${name}` : name;
}

/**
 * Merges the servers' listings under hub names. Without prefixing, a colliding item is
 * first tried under its prefixed name. Names already given (`given`, from earlier listings)
 * stay: an item keeps its earlier hub name, and no other item gets it, so what a name leads
 * to never depends on who listed last or on which servers answered that time.
 *
 * @param kind What is listed, for the collisions.
 * @param listings The listings, servers in declaration order.
 * @param naming How names are made.
 * @param given The routes of earlier listings.
 * @returns The merged catalogue; its routes hold `given` as well.
 */
export function mergeNamed<T extends { name: string }>(
  kind: "tool" | "prompt",
  listings: readonly Listing<T>[],
  naming: Naming,
  given: ReadonlyMap<string, HubRoute> = new Map(),
): Merged<T> {
  const routes = new Map(given);
  // server\0name\0n → the hub name of the n-th item of that name a server lists.
  const named = new Map<string, string>();
  const nth = (counts: Map<string, number>, server: string, name: string) => {
    const base = `${server}\0${name}`;
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    return `${base}\0${n}`;
  };
  const givenCounts = new Map<string, number>();
  for (const [name, route] of given) named.set(nth(givenCounts, route.server, route.name), name);
  const counts = new Map<string, number>();
  const collisions: HubCollision[] = [];
  const items: T[] = [];
  // Every wanted name first, so a later server cannot take an earlier one's `_2` (each
  // made once, and taken again in the same order below).
  const wanted = new Set<string>();
  const names: string[] = [];
  for (const { server, items: list } of listings) {
    for (const item of list) {
      const name = hubName(naming, server, item.name);
      names.push(name);
      wanted.add(name);
    }
  }
  // Without earlier names, no item has one to keep: none is counted or looked up.
  const earlier = given.size > 0;
  let at = 0;
  for (const { server, items: list } of listings) {
    for (const item of list) {
      const key = earlier ? nth(counts, server, item.name) : "";
      const name = names[at++];
      let resolved = earlier ? named.get(key) : undefined;
      if (resolved === undefined) {
        resolved = name;
        if (routes.has(name)) {
          const prefixed = hubName({ ...naming, prefix: true }, server, item.name);
          resolved = !naming.prefix && !wanted.has(prefixed) && !routes.has(prefixed)
            ? prefixed
            : free(name, routes, wanted);
        }
        routes.set(resolved, { server, name: item.name });
        if (earlier) named.set(key, resolved);
      }
      if (resolved !== name) {
        collisions.push({ kind, name, server, original: item.name, resolvedAs: resolved });
      }
      items.push(resolved === item.name ? item : { ...item, name: resolved });
    }
  }
  return { items, routes, collisions };
}

function free(name: string, routes: Map<string, HubRoute>, wanted: Set<string>): string {
  for (let n = 2;; n++) {
    const candidate = `${name}_${n}`;
    if (!routes.has(candidate) && !wanted.has(candidate)) return candidate;
  }
}

/**
 * Where a prefixed hub name leads, by its prefix alone (before any listing): the longest
 * server name followed by the separator.
 *
 * @param name The hub name.
 * @param servers The server names.
 * @param naming How names are made.
 * @returns The route, or `undefined`.
 */
export function routeByPrefix(
  name: string,
  servers: readonly string[],
  naming: Naming,
): HubRoute | undefined {
  if (!naming.prefix) return undefined;
  let best: HubRoute | undefined;
  for (const server of servers) {
    const head = `${server}${naming.separator}`;
    if (name.length > head.length && name.startsWith(head)) {
      if (best === undefined || server.length > best.server.length) {
        best = { server, name: name.slice(head.length) };
      }
    }
  }
  return best;
}

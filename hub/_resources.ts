/**
 * Private: which server a resource URI belongs to. Resources keep their URIs (they are
 * addresses, not names): a URI two servers list stays with the server declared first. A
 * URI no server listed goes to the first server with a template it matches. Pure.
 *
 * @module
 */

import type { Resource, ResourceTemplate } from "../client/types.ts";
import type { HubCollision } from "./types.ts";
import type { Listing } from "./_names.ts";

/** The merged resources: the list, and the owner of each URI. */
export interface MergedResources {
  /** Every server's resources, servers in declaration order, each URI once. */
  items: Resource[];
  /** URI → server. */
  owners: Map<string, string>;
  /** URIs two servers listed. */
  collisions: HubCollision[];
}

/**
 * Merges the servers' resource listings.
 *
 * @param listings The listings, servers in declaration order.
 * @returns The merged resources.
 */
export function mergeResources(listings: readonly Listing<Resource>[]): MergedResources {
  const owners = new Map<string, string>();
  const items: Resource[] = [];
  const collisions: HubCollision[] = [];
  for (const { server, items: list } of listings) {
    for (const resource of list) {
      if (owners.has(resource.uri)) {
        if (owners.get(resource.uri) !== server) {
          collisions.push({ kind: "resource", name: resource.uri, server, original: resource.uri });
        }
        continue;
      }
      owners.set(resource.uri, server);
      items.push(resource);
    }
  }
  return { items, owners, collisions };
}

const cache = new Map<string, RegExp>();

/**
 * A URI template (RFC 6570) as a pattern: each `{…}` expression matches one value (no `/`
 * for a simple one; anything for `{+…}` and `{#…}`), the rest literally.
 *
 * @param template The template.
 * @returns The pattern.
 */
export function templatePattern(template: string): RegExp {
  let pattern = cache.get(template);
  if (pattern !== undefined) return pattern;
  let source = "^";
  let at = 0;
  for (const match of template.matchAll(/\{([^}]*)\}/g)) {
    source += escape(template.slice(at, match.index));
    const operator = match[1][0];
    source += operator === "+" || operator === "#" ? "(.*)" : "([^/]*)";
    at = match.index + match[0].length;
  }
  source += `${escape(template.slice(at))}$`;
  pattern = new RegExp(source, "s");
  if (cache.size > 1_000) cache.clear();
  cache.set(template, pattern);
  return pattern;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The server that owns `uri`: the one that listed it, else the first whose template matches.
 *
 * @param uri The URI.
 * @param owners The listed URIs' owners.
 * @param templates The servers' templates, in declaration order.
 * @returns The server's name, or `undefined`.
 */
export function ownerOf(
  uri: string,
  owners: ReadonlyMap<string, string>,
  templates: readonly Listing<ResourceTemplate>[],
): string | undefined {
  const listed = owners.get(uri);
  if (listed !== undefined) return listed;
  for (const { server, items } of templates) {
    if (items.some((t) => templatePattern(t.uriTemplate).test(uri))) return server;
  }
  return undefined;
}

/**
 * Private: which server a resource URI belongs to. Resources keep their URIs (they are
 * addresses, not names): a URI two servers list stays with the server declared first (or
 * with the server an earlier listing gave it, see `_catalogue.ts`). A
 * URI no server listed goes to the first server with a template it matches, matched without
 * backtracking and within bounds (a hostile template or URI cannot make a lookup slow). Pure.
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
 * @param given The owners of earlier listings: a URI keeps its owner.
 * @returns The merged resources; its owners hold `given` as well.
 */
export function mergeResources(
  listings: readonly Listing<Resource>[],
  given: ReadonlyMap<string, string> = new Map(),
): MergedResources {
  const owners = new Map(given);
  const listed = new Set<string>();
  const items: Resource[] = [];
  const collisions: HubCollision[] = [];
  for (const { server, items: list } of listings) {
    for (const resource of list) {
      const owner = owners.get(resource.uri) ?? server;
      if (owner !== server) {
        collisions.push({ kind: "resource", name: resource.uri, server, original: resource.uri });
        continue;
      }
      if (listed.has(resource.uri)) continue;
      listed.add(resource.uri);
      owners.set(resource.uri, server);
      items.push(resource);
    }
  }
  return { items, owners, collisions };
}

/** The longest URI matched against templates; a longer one matches none. */
export const MAX_TEMPLATE_URI = 8_192;
/** The longest template matched; a longer one matches nothing. */
export const MAX_TEMPLATE_LENGTH = 1_024;
/** The most `{…}` expressions of a template matched; one with more matches nothing. */
export const MAX_TEMPLATE_EXPRESSIONS = 16;

// A compiled template: one token per literal character, or a run for an expression (ANY:
// any characters, for `{+…}` and `{#…}`; SEGMENT: any but `/`). `null`: over the bounds.
const ANY = -1;
const SEGMENT = -2;
type Compiled = Int32Array | null;
const cache = new Map<string, Compiled>();

function compile(template: string): Compiled {
  let compiled = cache.get(template);
  if (compiled !== undefined) return compiled;
  compiled = null;
  const tokens: number[] = [];
  let expressions = 0;
  let at = 0;
  if (template.length <= MAX_TEMPLATE_LENGTH) {
    for (const match of template.matchAll(/\{([^}]*)\}/g)) {
      for (let i = at; i < match.index; i++) tokens.push(template.charCodeAt(i));
      const operator = match[1][0];
      tokens.push(operator === "+" || operator === "#" ? ANY : SEGMENT);
      expressions++;
      at = match.index + match[0].length;
    }
    for (let i = at; i < template.length; i++) tokens.push(template.charCodeAt(i));
    if (expressions <= MAX_TEMPLATE_EXPRESSIONS) compiled = Int32Array.from(tokens);
  }
  if (cache.size > 1_000) cache.clear();
  cache.set(template, compiled);
  return compiled;
}

/**
 * Whether `uri` matches a URI template (RFC 6570): each `{…}` expression matches one value
 * (no `/` for a simple one; anything for `{+…}` and `{#…}`), the rest literally. Matched
 * as a set of states stepped once per character (no backtracking), so the time is at most
 * the URI's length times the template's; a URI longer than {@linkcode MAX_TEMPLATE_URI}, or
 * a template over {@linkcode MAX_TEMPLATE_LENGTH} or {@linkcode MAX_TEMPLATE_EXPRESSIONS},
 * matches nothing.
 *
 * @param template The template.
 * @param uri The URI.
 * @returns Whether it matches.
 */
export function templateMatches(template: string, uri: string): boolean {
  if (uri.length > MAX_TEMPLATE_URI) return false;
  const tokens = compile(template);
  if (tokens === null) return false;
  const end = tokens.length;
  // State i: the first i tokens are matched. `seen[i] === step` dedupes a step's states.
  const seen = new Int32Array(end + 1).fill(-1);
  let current: number[] = [];
  let next: number[] = [];
  const add = (list: number[], state: number, step: number) => {
    // A run may match nothing, so reaching it reaches the state after it too.
    for (; state <= end && seen[state] !== step; state++) {
      seen[state] = step;
      list.push(state);
      if (state === end || tokens[state] >= 0) return;
    }
  };
  add(current, 0, 0);
  for (let i = 0; i < uri.length && current.length > 0; i++) {
    const char = uri.charCodeAt(i);
    const step = i + 1;
    for (const state of current) {
      if (state === end) continue;
      const token = tokens[state];
      if (token === char) add(next, state + 1, step);
      else if (token === ANY || (token === SEGMENT && char !== 0x2f)) add(next, state, step);
    }
    [current, next] = [next, []];
  }
  return current.includes(end);
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
    if (items.some((t) => templateMatches(t.uriTemplate, uri))) return server;
  }
  return undefined;
}

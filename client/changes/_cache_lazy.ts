/**
 * The client's cache (`cache.ts`, with the list and result caches of `cache/`) loaded on
 * first use: a client that never lists everything, reads a resource nor meets a store that
 * may already hold something never loads it.
 *
 * Before it loads nothing has been listed, so the synchronous views answer as an empty
 * cache does (`cachedTools()` and `tool()` throw kind `not_found`, reason `not_cached`).
 * A client's own store holds only what this cache kept, so until the cache loads there is
 * nothing in it to warm, invalidate or purge; a store given as the `cache` option may hold
 * another client's listings, so a change the server announces loads the cache at once.
 * Whatever arrives while it loads (a notification, the session's end) is replayed, in
 * order, before any call waiting for the load goes on.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import type { ClientCache, ClientCacheDeps } from "./cache.ts";

/**
 * What {@linkcode lazyClientCache} needs: the cache's own but pagination (which loads with
 * the cache, as with the first page of a listing), and whose store it is.
 */
export interface LazyCacheDeps extends Omit<ClientCacheDeps, "pages"> {
  /** The store is the client's own: nothing is in it until the cache keeps something. */
  ownStore: boolean;
}

/** The notifications the cache acts on. */
const CACHE_EVENTS = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
]);

/**
 * The cache of a client, loaded by the first call that needs it.
 *
 * @param deps What the cache needs (as `createClientCache` takes it), and whose store it is.
 * @returns A cache that behaves as `createClientCache(deps)`.
 *
 * @example Nothing loads until a listing or a read
 * ```ts
 * import { lazyClientCache } from "./_cache_lazy.ts";
 *
 * const cache = lazyClientCache({ ownStore: true } as Parameters<typeof lazyClientCache>[0]);
 * cache.notification("notifications/tools/list_changed", undefined); // nothing cached yet
 * await cache.warm();
 * try {
 *   cache.cachedTools();
 *   throw new Error("expected not_cached");
 * } catch (error) {
 *   if (!(error instanceof Error) || !error.message.includes("No listing yet")) throw error;
 * }
 * ```
 */
export function lazyClientCache(deps: LazyCacheDeps): ClientCache {
  let real: ClientCache | undefined;
  let loading: Promise<ClientCache> | undefined;
  // What arrived while the cache loads, replayed in order once it is in.
  let pending: ((cache: ClientCache) => void)[] = [];
  const load = () =>
    loading ??= Promise.all([import("./cache.ts"), import("../requests/pagination.ts")]).then(
      ([{ createClientCache }, pages]) => {
        const made = createClientCache({ ...deps, pages });
        const replay = pending;
        pending = [];
        for (const event of replay) event(made);
        real = made;
        return made;
      },
      (error) => {
        loading = undefined;
        pending = [];
        throw error;
      },
    );
  // Nothing has been kept yet: the cache's own store is empty, and no listing is in memory.
  const empty = () => loading === undefined && deps.ownStore;
  const later = (event: (cache: ClientCache) => void) => {
    pending.push(event);
    if (loading !== undefined) return;
    load().catch((error) => deps.requester.warn(`Could not load the client's cache: ${error}`));
  };
  const notCached = () =>
    new McpError("No listing yet: call listAllTools() first", {
      kind: "not_found",
      reason: "not_cached",
    });
  return {
    listAll: async (kind, options) => await (await load()).listAll(kind, options),
    cachedTools() {
      if (real !== undefined) return real.cachedTools();
      throw notCached();
    },
    tool(name) {
      if (real !== undefined) return real.tool(name);
      throw notCached();
    },
    readResource: async (uri, options) => await (await load()).readResource(uri, options),
    notification(method, params) {
      if (real !== undefined) return real.notification(method, params);
      if (!CACHE_EVENTS.has(method) || empty()) return;
      later((cache) => cache.notification(method, params));
    },
    async warm() {
      if (real === undefined && empty()) return;
      await (await load()).warm();
    },
    endSession() {
      if (real !== undefined) return real.endSession();
      if (loading !== undefined) pending.push((cache) => cache.endSession());
    },
    identity: async () => await (await load()).identity(),
    async credentialsChanged(before) {
      if (real === undefined && empty()) return;
      await (await load()).credentialsChanged(before);
    },
  };
}

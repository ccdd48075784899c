/**
 * The cache of whole listings: fresh for the server's `ttlMs`, refreshed one at a time with
 * the refresh shared by concurrent callers, forgotten when the credentials change (unless
 * the server marked it `public`), and the last tool listing for `cachedTools()` and
 * `tool(name)`.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { follow } from "../_async.ts";
import { checkOptions } from "../requests/_checks.ts";
import { listAll, type Listing, type ListKind } from "../requests/pagination.ts";
import type { Requester } from "../requests/requests.ts";
import type { ListAllOptions, Tool } from "../types.ts";

/** The cache of one list's whole listing. */
export interface ListCache<T> {
  /**
   * Returns the cached listing while it is fresh (unless `refresh`); otherwise lists every
   * item. One refresh runs at a time and concurrent callers share it; a caller's `signal`
   * and `timeout` only end its own wait, and the refresh still fills the cache.
   */
  listAll(requester: Requester, options?: ListAllOptions): Promise<T[]>;
  /** The cached items; throws kind `not_found` (reason `not_cached`) before the first listing. */
  cached(): T[];
  /** Marks the listing stale (on a list_changed notification, or a new connection). */
  invalidate(): void;
  /** Forgets a listing the server did not mark `public` (the credentials changed). */
  forgetPrivate(): void;
}

/** The last tool listing. */
export interface ToolCache extends ListCache<Tool> {
  /** One cached tool; throws kind `not_found`. */
  tool(name: string): Tool;
}

/** Settings of {@linkcode createListCache}. */
export interface ListCacheOptions {
  /** The clock (injectable for tests). */
  now?: () => number;
  /** How long a caller without its own `timeout` waits for a refresh (default: until it ends). */
  waitTimeout?: number;
}

const METHOD_NAMES: Record<ListKind, string> = {
  tools: "listAllTools",
  prompts: "listAllPrompts",
  resources: "listAllResources",
  resourceTemplates: "listAllResourceTemplates",
};

/**
 * Creates the cache of one list. A listing stays fresh for the `ttlMs` the server gave
 * (modern servers; legacy listings are stale at once) until {@linkcode ListCache.invalidate};
 * a listing over a pagination cap is not cached.
 *
 * @param kind Which list.
 * @param settings The clock and the default wait.
 * @returns The cache.
 */
export function createListCache<T = JsonObject>(
  kind: ListKind,
  settings: ListCacheOptions = {},
): ListCache<T> {
  const now = settings.now ?? Date.now;
  const what = METHOD_NAMES[kind];
  let items: T[] | undefined;
  let scope: Listing["cacheScope"];
  let freshUntil = 0;
  let epoch = 0; // bumped by invalidate(): a refresh that started before is stale at once
  let identity = 0; // bumped by forgetPrivate(): a refresh that started before is not kept
  let inflight: Promise<T[]> | undefined;

  const refresh = (requester: Requester, options: ListAllOptions): Promise<T[]> => {
    const started = { epoch, identity };
    const { timeout, maxTotalTimeout } = options;
    const run = listAll(requester, kind, { timeout, maxTotalTimeout }).then((listing) => {
      const listed = listing.items as T[];
      if (identity === started.identity) {
        items = listed;
        scope = listing.cacheScope;
        freshUntil = listing.ttlMs && epoch === started.epoch ? now() + listing.ttlMs : 0;
      }
      return listed;
    }).finally(() => {
      if (inflight === run) inflight = undefined;
    });
    run.catch(() => {}); // every caller may have stopped waiting
    return run;
  };

  return {
    async listAll(requester, options = {}) {
      const opts = checkOptions(options, ["refresh"]);
      if (opts.refresh !== undefined && typeof opts.refresh !== "boolean") {
        throw new TypeError('option "refresh" must be a boolean');
      }
      if (!opts.refresh && items !== undefined && now() < freshUntil) return [...items];
      inflight ??= refresh(requester, opts);
      const listed = await follow(
        inflight,
        what,
        opts.signal,
        opts.timeout ?? settings.waitTimeout,
      );
      return [...listed];
    },
    cached() {
      if (items === undefined) {
        throw new McpError(`No listing yet: call ${what}() first`, {
          kind: "not_found",
          reason: "not_cached",
        });
      }
      return [...items];
    },
    invalidate() {
      epoch++;
      freshUntil = 0;
    },
    forgetPrivate() {
      identity++;
      if (scope === "public") return;
      items = undefined;
      scope = undefined;
      freshUntil = 0;
    },
  };
}

/**
 * Creates the tool cache of a client: {@linkcode createListCache} for tools, with
 * `tool(name)`.
 *
 * @param now The clock (injectable for tests).
 * @param waitTimeout How long a caller without its own `timeout` waits for a refresh.
 * @returns The cache.
 */
export function createToolCache(now: () => number = Date.now, waitTimeout?: number): ToolCache {
  const cache = createListCache<Tool>("tools", { now, waitTimeout });
  return {
    ...cache,
    tool(name) {
      const found = cache.cached().find((tool) => tool.name === name);
      if (!found) {
        throw new McpError(`The last tool listing has no tool "${name}"`, {
          kind: "not_found",
          reason: "unknown_tool",
        });
      }
      return found;
    },
  };
}

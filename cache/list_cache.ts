/**
 * The cache of one list's whole listing (`tools/list`, `prompts/list`, `resources/list`,
 * `resources/templates/list`) over the {@linkcode ResultCache}: each page is kept on its
 * own with its own `ttlMs`, so a listing is fresh while every page is, in this process or
 * any other sharing the store. On top of the store:
 *
 * - one load at a time, shared by concurrent callers (single-flight within a process; two
 *   processes that refresh at once both fetch, and the last write wins);
 * - the last listing, kept in this process for `cachedTools()` and `tool(name)`, fresh or
 *   not; `warm()` fills it from the store alone (what `ready()` does);
 * - a legacy listing from a server that declares `listChanged` for the list stays fresh
 *   until the matching `list_changed`, a reconnect or the session's end (in this process:
 *   the session is this client's), when the identity is known (an `auth` function without
 *   `credentialId` may name another user next time); other legacy listings follow
 *   `legacyTtlMs`;
 * - `changed()` (a `list_changed`) deletes the stored pages and, when the list was listed
 *   before, loads it again in the background once;
 * - an invalid cursor (`-32602` for a cursor) drops every page and lists again from the
 *   server, once;
 * - with `staleIfError`, a load that fails with a transport error returns the last listing
 *   (and warns that it did).
 *
 * @module
 */

import { isMcpError, McpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { policyOf, type ResultCache } from "./result_cache.ts";

/** One page: where it came from, for the store. */
type PageReader = (cursor: string | undefined) => Promise<JsonObject>;

/** What a list cache needs from its client. */
export interface ListCacheDeps<O> {
  /** The wire method, e.g. `tools/list`. */
  method: string;
  /** The public method, for errors (`listAllTools`). */
  what: string;
  /** The client's result cache. */
  results: ResultCache;
  /** Lists every item with the client's pagination (caps, intake), reading pages through `page`. */
  paginate(page: PageReader, options: O): Promise<JsonObject[]>;
  /** Asks the server for one raw page. */
  fetch(cursor: string | undefined, options: O): Promise<JsonObject>;
  /** The era of the connection. */
  era(): "modern" | "legacy" | undefined;
  /** Whether the server declared `listChanged` for this list. */
  listChanged(): boolean;
  /** How long a legacy listing is kept (the client's `legacyTtlMs`). */
  legacyTtlMs: number;
  /** Diagnostics. */
  warn(message: string): void;
}

/** How one `listAll` call uses the cache. */
export interface ListAllCall {
  /** Ignore fresh pages and ask the server. */
  refresh?: boolean;
  /** Return the last listing when the load fails with a transport error. */
  staleIfError?: boolean;
}

/** The cache of one list. */
export interface ListCache<T, O> {
  /**
   * A fresh listing without asking the server: this session's (legacy `listChanged`), or
   * every page fresh in the store; `undefined` otherwise (and while a load runs).
   */
  fresh(options: O): Promise<T[] | undefined>;
  /** The listing: fresh pages from the store, else from the server (shared by concurrent callers). */
  listAll(call: ListAllCall, options: O): Promise<T[]>;
  /** The last listing; throws kind `not_found` (reason `not_cached`) before the first. */
  cached(): T[];
  /** Fills the last listing from the store alone, when it holds a fresh one. */
  warm(options: O): Promise<void>;
  /** The list changed: drop the stored pages and list again in the background. */
  changed(options: O): void;
  /**
   * A new connection or the session's end: a legacy listing is no longer fresh, and a load
   * in flight keeps nothing (stored pages stay: their `ttlMs` decides).
   */
  endSession(): void;
  /** The credentials changed: forget the last listing unless it was public. */
  forgetPrivate(): void;
}

/** The error a store-only read throws on a miss. */
const MISS = Symbol("miss");

function invalidCursor(error: unknown, cursor: string | undefined): boolean {
  return cursor !== undefined && isMcpError(error) && error.kind === "server" &&
    error.code === -32602;
}

/**
 * Creates the cache of one list.
 *
 * @param deps The list, the result cache and the client's pagination.
 * @returns The cache.
 */
export function createListCache<T, O>(deps: ListCacheDeps<O>): ListCache<T, O> {
  const { method, results } = deps;
  let items: T[] | undefined;
  let publicListing = false;
  let sessionFresh = false; // legacy + listChanged: fresh until a change
  let epoch = 0; // bumped by a change: a load that started before keeps nothing fresh
  let identity = 0; // bumped by forgetPrivate: a load that started before is not kept
  let inflight: Promise<T[]> | undefined;
  let forgetting: Promise<void> | undefined; // deletions of stored pages still running
  let queued = false;
  const params = (cursor: string | undefined) => cursor === undefined ? undefined : { cursor };

  /** One listing: pages from the store (when `useStore`) or the server; writes done before it resolves. */
  const load = async (options: O, useStore: boolean, storeOnly = false): Promise<T[]> => {
    if (forgetting) await forgetting;
    const started = { epoch, identity };
    const sentAs = await results.stamp(); // a save after new credentials is dropped
    const fetched: [string | undefined, JsonObject][] = [];
    let storedPages = 0;
    let scopes = true;
    const page: PageReader = async (cursor) => {
      if (useStore) {
        const hit = await results.lookup(method, params(cursor));
        if (hit !== undefined) {
          storedPages++;
          if (hit.cacheScope !== "public") scopes = false;
          return hit;
        }
        if (storeOnly) throw MISS;
      }
      let result: JsonObject;
      try {
        result = await deps.fetch(cursor, options);
      } catch (error) {
        // A cursor the server no longer knows: every stored page goes, and a listing that
        // followed a stored page's cursor starts again from the server.
        if (invalidCursor(error, cursor)) {
          if (storedPages > 0) throw { restart: error };
          await results.forget(method);
        }
        throw error;
      }
      if (result.cacheScope !== "public") scopes = false;
      fetched.push([cursor, result]);
      return result;
    };
    let listed: JsonObject[];
    try {
      listed = await deps.paginate(page, options);
    } catch (error) {
      if (typeof error === "object" && error !== null && "restart" in error) {
        await results.forget(method);
        return load(options, false);
      }
      throw error;
    }
    const era = deps.era();
    for (const [cursor, result] of fetched) {
      if (epoch !== started.epoch || identity !== started.identity) break;
      const policy = policyOf(result, era, deps.legacyTtlMs);
      await results.save(method, params(cursor), result, policy, sentAs);
    }
    if (identity === started.identity) {
      items = listed as T[];
      publicListing = scopes;
      // Only a listing this session fetched is fresh until the session's next change.
      // Never without a known identity: an `auth` function may name someone else next time.
      sessionFresh = era === "legacy" && epoch === started.epoch && storedPages === 0 &&
        sentAs.identity !== undefined && deps.listChanged();
    }
    return listed as T[];
  };

  const shared = (options: O, useStore: boolean): Promise<T[]> => {
    if (inflight) return inflight;
    const run = load(options, useStore).finally(() => {
      if (inflight === run) inflight = undefined;
    });
    inflight = run;
    run.catch(() => {}); // every caller may have stopped waiting
    return run;
  };

  const forgetPages = () => {
    epoch++;
    sessionFresh = false;
    const running = (forgetting ?? Promise.resolve()).then(() => results.forget(method));
    forgetting = running;
    running.finally(() => {
      if (forgetting === running) forgetting = undefined;
    });
  };

  return {
    async fresh(options) {
      if (sessionFresh && items !== undefined) return [...items];
      if (inflight) return undefined;
      try {
        return [...await load(options, true, true)];
      } catch {
        return undefined; // a page is not in the store: list
      }
    },
    async listAll(call, options) {
      if (!call.refresh && sessionFresh && items !== undefined) return [...items];
      try {
        return [...await shared(options, !call.refresh)];
      } catch (error) {
        const stale = items;
        if (!call.staleIfError || stale === undefined) throw error;
        if (!(isMcpError(error) && error.kind === "transport")) throw error;
        deps.warn(
          `${deps.what}: serving the last listing, as the refresh failed (${error.message})`,
        );
        return [...stale];
      }
    },
    cached() {
      if (items === undefined) {
        throw new McpError(`No listing yet: call ${deps.what}() first`, {
          kind: "not_found",
          reason: "not_cached",
        });
      }
      return [...items];
    },
    async warm(options) {
      if (items !== undefined || inflight) return;
      try {
        await load(options, true, true);
      } catch {
        // Not all pages were in the store: the first listAll lists.
      }
    },
    changed(options) {
      forgetPages();
      if (items === undefined || queued) return;
      queued = true;
      const after = inflight ?? Promise.resolve([]);
      after.catch(() => {}).then(() => {
        queued = false;
        return shared(options, true);
      }).catch((error) =>
        deps.warn(`${deps.what}: the refresh after list_changed failed: ${error}`)
      );
    },
    endSession() {
      epoch++;
      sessionFresh = false;
    },
    forgetPrivate() {
      identity++;
      sessionFresh = false;
      if (publicListing) return;
      items = undefined;
    },
  };
}

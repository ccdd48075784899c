/**
 * Lists: one page at a time (with intake of each entry), whole listings that follow
 * `nextCursor` under caps (100 pages, 10 000 items, a repeated cursor or one over 1 KiB), and
 * the cache of whole listings: fresh for the server's `ttlMs`, refreshed one at a time with
 * the refresh shared by concurrent callers, and the last tool listing for `cachedTools()`
 * and `tool(name)`.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import { checkOptions, invalid, type Requester, requestOptions } from "./requests.ts";
import type { ListAllOptions, ListOptions, Tool } from "./types.ts";

/** The list methods: wire method, result key, and the intake check of one item. */
export const LISTS = {
  tools: {
    method: "tools/list",
    key: "tools",
    keep: (item: JsonObject) => typeof item.name === "string" && isObject(item.inputSchema),
  },
  prompts: {
    method: "prompts/list",
    key: "prompts",
    keep: (item: JsonObject) => typeof item.name === "string",
  },
  resources: {
    method: "resources/list",
    key: "resources",
    keep: (item: JsonObject) => typeof item.uri === "string",
  },
  resourceTemplates: {
    method: "resources/templates/list",
    key: "resourceTemplates",
    keep: (item: JsonObject) => typeof item.uriTemplate === "string",
  },
} as const;

/** A list kind. */
export type ListKind = keyof typeof LISTS;

/** One page of a list: the items and the next cursor. */
export interface RawPage {
  /** The items that passed intake. */
  items: JsonObject[];
  /** The next cursor, if any. */
  nextCursor?: string;
  /** The server's `ttlMs` (modern). */
  ttlMs?: number;
  /** The server's `cacheScope` (modern), when it gave one. */
  cacheScope?: "public" | "private";
}

/**
 * Fetches one page of a list.
 *
 * @param requester The connection.
 * @param kind Which list.
 * @param options The cursor and request options.
 */
export async function listPage(
  requester: Requester,
  kind: ListKind,
  options?: ListOptions,
): Promise<RawPage> {
  const opts = checkOptions(options);
  const { method, key, keep } = LISTS[kind];
  if (opts.cursor !== undefined && typeof opts.cursor !== "string") {
    throw new TypeError('option "cursor" must be a string');
  }
  const params = opts.cursor === undefined ? undefined : { cursor: opts.cursor };
  const result = await requester.request(method, params, requestOptions(opts));
  const list = result[key];
  if (!Array.isArray(list)) throw invalid(method, `"${key}" is not an array`);
  const items = list.filter((item): item is JsonObject => isObject(item) && keep(item));
  if (items.length < list.length) {
    requester.warn(`Left out ${list.length - items.length} malformed entries of ${method}`);
  }
  const next = result.nextCursor;
  if (next !== undefined && next !== null && typeof next !== "string") {
    throw invalid(method, "nextCursor is not a string");
  }
  const ttlMs = typeof result.ttlMs === "number" ? result.ttlMs : undefined;
  const page: RawPage = { items, nextCursor: typeof next === "string" ? next : undefined, ttlMs };
  if (result.cacheScope === "public" || result.cacheScope === "private") {
    page.cacheScope = result.cacheScope;
  }
  return page;
}

/** The pagination caps. */
export const PAGINATION_CAPS = Object.freeze({ pages: 100, items: 10_000, cursorBytes: 1024 });

const encoder = new TextEncoder();

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function cycle(message: string, reason: string, data?: unknown): McpError {
  return new McpError(message, { kind: "pagination_cycle", reason, data });
}

/** A whole listing with the shortest `ttlMs` of its pages (modern), if any. */
export interface Listing {
  /** Every item. */
  items: JsonObject[];
  /** The smallest `ttlMs` over the pages, when every page had one. */
  ttlMs?: number;
  /** `public` when every page said so, `private` when any page did, else absent. */
  cacheScope?: "public" | "private";
}

/**
 * Lists every item of a list, following `nextCursor`.
 *
 * @param requester The connection.
 * @param kind Which list.
 * @param options Request options (the timeout applies per page).
 * @returns Every item.
 * @throws {McpError} Kind `pagination_cycle` over a cap.
 */
export async function listAll(
  requester: Requester,
  kind: ListKind,
  options: ListAllOptions = {},
): Promise<Listing> {
  const { refresh: _refresh, ...pageOptions } = options;
  const seen = new Set<string>();
  const items: JsonObject[] = [];
  let ttlMs = Infinity;
  let everyPageHasTtl = true;
  let scope: Listing["cacheScope"] | null = null; // null: no page yet
  let cursor: string | undefined;
  for (let pages = 1;; pages++) {
    const page = await listPage(requester, kind, { ...pageOptions, cursor });
    items.push(...page.items);
    if (page.ttlMs === undefined) everyPageHasTtl = false;
    else ttlMs = Math.min(ttlMs, page.ttlMs);
    if (page.cacheScope === "private" || scope === "private") scope = "private";
    else if (page.cacheScope === undefined) scope = undefined;
    else if (scope === null) scope = "public";
    if (items.length > PAGINATION_CAPS.items) {
      throw cycle(
        `The ${kind} listing has more than ${PAGINATION_CAPS.items} items`,
        "too_many_items",
      );
    }
    const next = page.nextCursor;
    if (next === undefined) {
      const listing: Listing = { items, ttlMs: everyPageHasTtl ? ttlMs : undefined };
      if (scope !== null && scope !== undefined) listing.cacheScope = scope;
      return listing;
    }
    if (pages >= PAGINATION_CAPS.pages) {
      throw cycle(
        `The ${kind} listing has more than ${PAGINATION_CAPS.pages} pages`,
        "too_many_pages",
      );
    }
    if (encoder.encode(next).length > PAGINATION_CAPS.cursorBytes) {
      throw cycle(`The ${kind} listing sent a cursor over 1 KiB`, "cursor_too_long");
    }
    if (seen.has(next)) {
      throw cycle(`The ${kind} listing repeated a cursor`, "repeated_cursor", { cursor: next });
    }
    seen.add(next);
    cursor = next;
  }
}

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

/** Waits for `shared` until `signal` aborts or `timeout` passes, whichever comes first. */
function follow<T>(
  shared: Promise<T>,
  what: string,
  signal: AbortSignal | undefined,
  timeout: number | undefined,
): Promise<T> {
  const timed = timeout !== undefined && Number.isFinite(timeout);
  if (signal === undefined && !timed) return shared;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    function onAbort() {
      if (settled) return;
      finish();
      reject(
        new McpError(`${what} was cancelled`, {
          kind: "cancelled",
          reason: "aborted",
          cause: signal?.reason,
        }),
      );
    }
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    shared.then(
      (value) => {
        if (settled) return;
        finish();
        resolve(value);
      },
      (error) => {
        if (settled) return;
        finish();
        reject(error);
      },
    );
    if (!timed) return;
    // Arming a timer may run pending microtasks (Deno's test harness does): re-check.
    const armed = setTimeout(() => {
      if (settled) return;
      finish();
      reject(
        new McpError(`${what} gave up waiting after ${timeout} ms (the refresh goes on)`, {
          kind: "timeout",
          reason: "request_timeout",
        }),
      );
    }, timeout);
    if (settled) clearTimeout(armed);
    else timer = armed;
  });
}

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
      const opts = checkOptions(options);
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

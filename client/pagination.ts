/**
 * Lists: one page at a time (with intake of each entry), whole listings that follow
 * `nextCursor` under caps (100 pages, 10 000 items, a repeated cursor or one over 1 KiB), and
 * the last tool listing for `cachedTools()` and `tool(name)`.
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
  return { items, nextCursor: typeof next === "string" ? next : undefined, ttlMs };
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
  let cursor: string | undefined;
  for (let pages = 1;; pages++) {
    const page = await listPage(requester, kind, { ...pageOptions, cursor });
    items.push(...page.items);
    if (page.ttlMs === undefined) everyPageHasTtl = false;
    else ttlMs = Math.min(ttlMs, page.ttlMs);
    if (items.length > PAGINATION_CAPS.items) {
      throw cycle(
        `The ${kind} listing has more than ${PAGINATION_CAPS.items} items`,
        "too_many_items",
      );
    }
    const next = page.nextCursor;
    if (next === undefined) return { items, ttlMs: everyPageHasTtl ? ttlMs : undefined };
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

/** The last tool listing. */
export interface ToolCache {
  /** Lists every tool, or returns the cached list while it is fresh (unless `refresh`). */
  listAll(requester: Requester, options?: ListAllOptions): Promise<Tool[]>;
  /** The cached tools; throws kind `not_found` before the first listing. */
  cached(): Tool[];
  /** One cached tool; throws kind `not_found`. */
  tool(name: string): Tool;
  /** Marks the listing stale (on `notifications/tools/list_changed`). */
  invalidate(): void;
}

/**
 * Creates the tool cache of a client. A listing stays fresh for the `ttlMs` the server
 * gave (modern servers; legacy listings are stale at once) until a list_changed
 * notification arrives.
 *
 * @param now The clock (injectable for tests).
 * @returns The cache.
 */
export function createToolCache(now: () => number = Date.now): ToolCache {
  let tools: Tool[] | undefined;
  let freshUntil = 0;
  const notCached = () =>
    new McpError("No tool listing yet: call listAllTools() first", {
      kind: "not_found",
      reason: "not_cached",
    });
  return {
    async listAll(requester, options = {}) {
      if (!options.refresh && tools !== undefined && now() < freshUntil) return [...tools];
      const listing = await listAll(requester, "tools", options);
      tools = listing.items as Tool[];
      freshUntil = listing.ttlMs ? now() + listing.ttlMs : 0;
      return [...tools];
    },
    cached() {
      if (tools === undefined) throw notCached();
      return [...tools];
    },
    tool(name) {
      if (tools === undefined) throw notCached();
      const found = tools.find((tool) => tool.name === name);
      if (!found) {
        throw new McpError(`The last tool listing has no tool "${name}"`, {
          kind: "not_found",
          reason: "unknown_tool",
        });
      }
      return found;
    },
    invalidate() {
      freshUntil = 0;
    },
  };
}

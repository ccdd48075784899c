/**
 * Lists: one page at a time (with intake of each entry), and whole listings that follow
 * `nextCursor` under caps (100 pages, 10 000 items, 16 MiB of items as JSON text, a repeated
 * cursor or one over 1 KiB): past one, the listing fails with kind `pagination_cycle`.
 * Their cache is `cache/list_cache.ts`.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import { jsonLength } from "../../protocol/json_length.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { checkOptions, invalid, requestOptions } from "./_checks.ts";
import { isObject } from "../../protocol/json.ts";
import type { Requester } from "./requests.ts";
import type { ListAllOptions, ListOptions } from "../types.ts";

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
  // `principal` and `assigns` are for a governed client's filter; a plain one ignores them.
  const opts = checkOptions(options, ["cursor", "principal", "assigns"]);
  const { method } = LISTS[kind];
  if (opts.cursor !== undefined && typeof opts.cursor !== "string") {
    throw new TypeError('option "cursor" must be a string');
  }
  const params = opts.cursor === undefined ? undefined : { cursor: opts.cursor };
  return pageOf(requester, kind, await requester.request(method, params, requestOptions(opts)));
}

/**
 * Reads one raw page of a list: the items that pass intake, the cursor and cache fields.
 *
 * @param requester Where malformed entries are reported.
 * @param kind Which list.
 * @param result The page as the server sent it.
 */
export function pageOf(
  requester: Pick<Requester, "warn">,
  kind: ListKind,
  result: JsonObject,
): RawPage {
  const { method, key, keep } = LISTS[kind];
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
export const PAGINATION_CAPS = Object.freeze({
  pages: 100,
  items: 10_000,
  cursorBytes: 1024,
  /** The items of all pages together, as JSON text: 16 MiB. */
  bytes: 16 * 1024 * 1024,
});

const encoder = new TextEncoder();

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
 * @param read Reads one raw page (default: asks the server), e.g. through the cache.
 * @returns Every item.
 * @throws {McpError} Kind `pagination_cycle` over a cap.
 */
export async function listAll(
  requester: Requester,
  kind: ListKind,
  options: ListAllOptions = {},
  read?: (cursor: string | undefined) => Promise<JsonObject>,
): Promise<Listing> {
  const { refresh: _refresh, staleIfError: _stale, ...pageOptions } = options;
  const seen = new Set<string>();
  const items: JsonObject[] = [];
  let ttlMs = Infinity;
  let everyPageHasTtl = true;
  let scope: Listing["cacheScope"] | null = null; // null: no page yet
  let cursor: string | undefined;
  let bytes = 0;
  for (let pages = 1;; pages++) {
    const page = read === undefined
      ? await listPage(requester, kind, { ...pageOptions, cursor })
      : pageOf(requester, kind, await read(cursor));
    items.push(...page.items);
    for (const item of page.items) bytes += jsonLength(item);
    if (bytes > PAGINATION_CAPS.bytes) {
      throw cycle(
        `The ${kind} listing is larger than ${PAGINATION_CAPS.bytes / 1024 / 1024} MiB`,
        "listing_too_large",
      );
    }
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

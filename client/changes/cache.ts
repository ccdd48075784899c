/**
 * The client's side of the cache (`cache/`): the four list caches and the `resources/read`
 * cache of one client, wired to its requests, pagination, notifications, connection and
 * credentials. The rules (keys, scope, freshness, single-flight) live in `cache/`; this file
 * checks the callers' options and follows each caller's own `signal` and `timeout`. A
 * result is saved under the identity its request was sent as, or not at all.
 *
 * @module
 */

import { type CacheTarget, localName } from "../../cache/digest.ts";
import { createListCache, type ListCache } from "../../cache/list_cache.ts";
import { createResultCache, policyOf } from "../../cache/result_cache.ts";
import type { CacheStore } from "../../cache/store.ts";
import { McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { follow } from "./_follow.ts";
import { isObject } from "../../protocol/json.ts";
import { checkCallOptions, nonEmpty, requestOptions } from "../requests/_checks.ts";
import type { fromRetry } from "../requests/mrtr.ts";
import type { listAll, ListKind, LISTS } from "../requests/pagination.ts";
import type { checkOptions, readResource, Requester } from "../requests/requests.ts";
import type { ListAllOptions, ReadResourceOptions, ReadResourceResult, Tool } from "../types.ts";

/** What the client's cache needs. */
export interface ClientCacheDeps {
  /** The store (the `cache` option, or the client's own memory store). */
  store: CacheStore;
  /** How long legacy listings are kept without `listChanged` (the `legacyTtlMs` option). */
  legacyTtlMs: number;
  /** The connection. */
  requester: Requester;
  /** The transport (it names the server and the credentials; see `Transport.cacheTarget`). */
  transport: { cacheTarget?(): Promise<CacheTarget> };
  /** The server's capabilities, when ready. */
  capabilities(): Record<string, unknown> | undefined;
  /** How long a caller without its own `timeout` waits for a shared load. */
  waitTimeout: number;
  /**
   * Pagination (`requests/pagination.ts`), handed over by the client rather than imported:
   * a bundle that loads this cache on first use then shares no module with it but those it
   * shares with the rest of the lazy code.
   */
  pages: { listAll: typeof listAll; LISTS: typeof LISTS };
  /**
   * The request path's reads (`requests/requests.ts`, `requests/mrtr.ts`), handed over by the
   * client rather than imported: the cache then shares none of the request path's modules with
   * the start, which would split them off the start's bundle.
   */
  reads: {
    checkOptions: typeof checkOptions;
    readResource: typeof readResource;
    fromRetry: typeof fromRetry;
  };
}

/** The client's cache. */
export interface ClientCache {
  /** `listAll*` of one list, through the cache. */
  listAll(kind: ListKind, options?: ListAllOptions): Promise<JsonObject[]>;
  /** The last tool listing. */
  cachedTools(): Tool[];
  /** One tool of the last listing. */
  tool(name: string): Tool;
  /** `readResource`, through the cache. */
  readResource(uri: string, options?: ReadResourceOptions): Promise<ReadResourceResult>;
  /** A server notification: list changes and resource updates invalidate. */
  notification(method: string, params: JsonObject | undefined): void;
  /** Fills the last tool listing from the store when it holds a fresh one. */
  warm(): Promise<void>;
  /** A new connection, or the session's end. */
  endSession(): void;
  /** The identity the credentials have now. */
  identity(): Promise<string | undefined>;
  /** The credentials changed from those of `before`: private results go first. */
  credentialsChanged(before: string | undefined): Promise<void>;
}

type PageOptions = Pick<ListAllOptions, "timeout" | "maxTotalTimeout">;

const WHAT: Record<ListKind, string> = {
  tools: "listAllTools",
  prompts: "listAllPrompts",
  resources: "listAllResources",
  resourceTemplates: "listAllResourceTemplates",
};

const READ = "resources/read";

function flag(options: Record<string, unknown>, key: string): boolean {
  const value = options[key];
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError(`option "${key}" must be a boolean`);
  }
  return value === true;
}

/**
 * Creates the cache of a client.
 *
 * @param deps The store, the connection and the transport.
 * @returns The cache.
 */
export function createClientCache(deps: ClientCacheDeps): ClientCache {
  const { requester, transport } = deps;
  const { listAll, LISTS } = deps.pages;
  const results = createResultCache({
    store: deps.store,
    target: () =>
      transport.cacheTarget?.() ??
        Promise.resolve({ server: localName(transport), identity: "local" }),
    warn: requester.warn,
  });
  const era = () => {
    const now = requester.era();
    return now === "modern" || now === "legacy" ? now : undefined;
  };
  const listCache = (kind: ListKind) =>
    createListCache<JsonObject, PageOptions>({
      method: LISTS[kind].method,
      what: WHAT[kind],
      results,
      paginate: async (page, options) => (await listAll(requester, kind, options, page)).items,
      fetch: (cursor, options) =>
        requester.request(
          LISTS[kind].method,
          cursor === undefined ? undefined : { cursor },
          requestOptions(options),
        ),
      era,
      listChanged() {
        const declared = deps.capabilities()?.[kind === "resourceTemplates" ? "resources" : kind];
        return isObject(declared) && declared.listChanged === true;
      },
      legacyTtlMs: deps.legacyTtlMs,
      warn: requester.warn,
    });
  const lists: Record<ListKind, ListCache<JsonObject, PageOptions>> = {
    tools: listCache("tools"),
    prompts: listCache("prompts"),
    resources: listCache("resources"),
    resourceTemplates: listCache("resourceTemplates"),
  };
  const background: PageOptions = {};
  let updates = 0; // resources/updated seen: a read that started before keeps nothing

  return {
    async listAll(kind, options) {
      const opts = deps.reads.checkOptions(options, [
        "refresh",
        "staleIfError",
        "principal",
        "assigns",
      ]);
      const call = {
        refresh: flag(opts as Record<string, unknown>, "refresh"),
        staleIfError: flag(opts as Record<string, unknown>, "staleIfError"),
      };
      const { timeout, maxTotalTimeout } = opts;
      // A hit costs no wait of the caller's to follow (the store's operations are bounded).
      if (!call.refresh) {
        const hit = await lists[kind].fresh({ timeout, maxTotalTimeout });
        if (hit !== undefined) return hit;
      }
      const shared = lists[kind].listAll(call, { timeout, maxTotalTimeout });
      return follow(shared, WHAT[kind], opts.signal, opts.timeout ?? deps.waitTimeout);
    },
    cachedTools: () => lists.tools.cached() as unknown as Tool[],
    tool(name) {
      const found = lists.tools.cached().find((tool) => tool.name === name);
      if (!found) {
        throw new McpError(`The last tool listing has no tool "${name}"`, {
          kind: "not_found",
          reason: "unknown_tool",
        });
      }
      return found as unknown as Tool;
    },
    async readResource(uri, options) {
      nonEmpty("uri", uri);
      if (options !== undefined && !isObject(options)) {
        throw new TypeError("options must be an object");
      }
      const { cache: mode = "use", ...rest } = options ?? {};
      if (mode !== "use" && mode !== "refresh" && mode !== "bypass") {
        throw new TypeError('option "cache" must be "use", "refresh" or "bypass"');
      }
      checkCallOptions(rest);
      const params = { uri };
      if (mode === "use") {
        const hit = await results.lookup(READ, params);
        if (hit !== undefined && Array.isArray(hit.contents)) {
          return { ...hit } as ReadResourceResult;
        }
      }
      const seen = updates;
      const sentAs = mode === "bypass" ? undefined : await results.stamp();
      const result = await deps.reads.readResource(requester, uri, rest);
      // Never a retry's result (MRTR), nor one an update made stale on its way.
      if (mode !== "bypass" && !deps.reads.fromRetry(result) && seen === updates) {
        await results.save(
          READ,
          params,
          result as JsonObject,
          policyOf(result as JsonObject, era()),
          sentAs,
        );
      }
      return result;
    },
    notification(method, params) {
      switch (method) {
        case "notifications/tools/list_changed":
          return lists.tools.changed(background);
        case "notifications/prompts/list_changed":
          return lists.prompts.changed(background);
        case "notifications/resources/list_changed":
          lists.resources.changed(background);
          return lists.resourceTemplates.changed(background);
        case "notifications/resources/updated":
          if (typeof params?.uri === "string") {
            updates++;
            results.forget(READ, { uri: params.uri }).catch(() => {});
          }
      }
    },
    warm: () => lists.tools.warm(background),
    endSession() {
      for (const list of Object.values(lists)) list.endSession();
    },
    identity: () => results.identity(),
    async credentialsChanged(before) {
      results.retarget();
      const after = await results.identity();
      if (before !== undefined && after !== undefined && before === after) return;
      for (const list of Object.values(lists)) list.forgetPrivate();
      await results.purgePrivate(before);
    },
  };
}

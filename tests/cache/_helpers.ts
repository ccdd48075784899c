// Shared set-up for the cache tests: a client cache over a stand-in requester, and clients
// that share one store.
import { memoryStore } from "../../cache/memory.ts";
import type { CacheStore } from "../../cache/store.ts";
import { type ClientCache, createClientCache } from "../../client/changes/cache.ts";
import { listAll, LISTS } from "../../client/requests/pagination.ts";
import { fromRetry } from "../../client/requests/mrtr.ts";
import { checkOptions, readResource, type Requester } from "../../client/requests/requests.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import type { Transport } from "../../transports/transport.ts";

/** A requester answering `answer(method, params)`, counting requests by method. */
export function fakeRequester(
  answer: (method: string, params: JsonObject | undefined) => JsonObject | Promise<JsonObject>,
  era: "modern" | "legacy" = "modern",
): Requester & { calls: string[]; warnings: string[] } {
  const calls: string[] = [];
  const warnings: string[] = [];
  return {
    calls,
    warnings,
    request: async (method, params) => {
      calls.push(method);
      return await answer(method, params);
    },
    ready: () => Promise.resolve(),
    era: () => era,
    setLogLevel: () => {},
    warn: (message) => warnings.push(message),
  };
}

/** A client cache over `requester`, for server `server` as `identity`. */
export function cacheOver(
  requester: Requester,
  options: {
    store?: CacheStore;
    identity?: string | (() => string | undefined);
    server?: string;
    listChanged?: boolean;
    legacyTtlMs?: number;
  } = {},
): ClientCache {
  const transport: Transport = {
    kind: "in_process",
    open: () => Promise.reject(new Error("not opened in these tests")),
    cacheTarget: () =>
      Promise.resolve({
        server: options.server ?? "server",
        identity: typeof options.identity === "function"
          ? options.identity()
          : "identity" in options
          ? options.identity
          : "me",
      }),
  };
  return createClientCache({
    store: options.store ?? memoryStore(),
    legacyTtlMs: options.legacyTtlMs ?? 0,
    requester,
    transport,
    capabilities: () => ({ tools: { listChanged: options.listChanged ?? false } }),
    waitTimeout: 60_000,
    pages: { listAll, LISTS },
    reads: READS,
  });
}

/** The request path's reads, as the client hands them to its cache. */
export const READS = { checkOptions, readResource, fromRetry };

/** One page of tools named `names`, with cache fields. */
export function toolsPage(names: string[], extra: JsonObject = {}): JsonObject {
  return { tools: names.map((name) => ({ name, inputSchema: {} })), ...extra };
}

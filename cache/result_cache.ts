/**
 * The result cache of one client (SEP-2549, protocol.md §1.8): complete results of the
 * cacheable methods, keyed by the server, the scope, the method and the params that change
 * the result (never `_meta`), each kept for the server's `ttlMs`, in a store that never fails
 * a call (every operation bounded in time; an error or a timeout makes it a miss or a skipped
 * write, with one warning until the store works again: a Redis that is down degrades the
 * client to no cache).
 *
 * - `cacheScope: "public"` results go under the server's public partition, shared by every
 *   identity and every process using the store. `"private"` results (and results without a
 *   scope) go under the credentials' identity; without a known identity (an `auth` function
 *   or a custom `fetch` with no `credentialId`, OAuth before its tokens, a stdio server that
 *   inherits the whole environment) they are neither stored nor served.
 * - Legacy results carry no `ttlMs`: they are kept for the `legacyTtlMs` the caller passes
 *   (default 0: not at all), under the identity.
 * - A store that fails makes every operation a miss (one warning; see
 *   {@linkcode guardStore}).
 * - A save names the {@linkcode ResultCache.stamp} taken when its request was sent: when the
 *   credentials changed since (a `retarget`, or a live target's identity moved), the result
 *   is dropped, so no answer meant for one identity is kept under the next one.
 * - A `live` target (an OAuth identity, known once tokens are) is asked on every operation.
 *
 * Keys: `["v1", server, "public", method, params]` and
 * `["v1", server, "private", identity, method, params]`, every part a digest or a name.
 *
 * @module
 */

import type { JsonObject } from "../protocol/jsonrpc.ts";
import { type CacheTarget, canonicalJson, digest } from "./digest.ts";
import type { CacheKey, CacheStore } from "./store.ts";
import { clearTimer, startTimer } from "../clock/timer.ts";

/** How a call uses the cache: `use` a fresh entry, `refresh` it, or `bypass` the cache. */
export type CacheMode = "use" | "refresh" | "bypass";

/** How long a result may be kept, and by whom. */
export interface CachePolicy {
  /** Milliseconds (0: not kept). */
  ttlMs: number;
  /** Who may be served it. */
  scope: "public" | "private";
}

/** The settings of {@linkcode createResultCache}. */
export interface ResultCacheOptions {
  /** The store. */
  store: CacheStore;
  /** The server and the credentials' identity (asked again after {@linkcode ResultCache.retarget}). */
  target(): Promise<CacheTarget>;
  /** Where the store's failures are reported (once). */
  warn(message: string): void;
}

/** Who a request was sent as: taken by {@linkcode ResultCache.stamp}, checked by a save. */
export interface SentAs {
  /** The credentials' generation (bumped by each `retarget`). */
  generation: number;
  /** The identity then. */
  identity: string | undefined;
}

/** The result cache of a client. */
export interface ResultCache {
  /** A fresh result of `method` with `params`, or `undefined`. */
  lookup(method: string, params: JsonObject | undefined): Promise<JsonObject | undefined>;
  /** Keeps a complete result as `policy` says; resolves once written. */
  save(
    method: string,
    params: JsonObject | undefined,
    result: JsonObject,
    policy: CachePolicy | undefined,
    sentAs?: SentAs,
  ): Promise<void>;
  /** Who a request sent now is sent as (pass it to `save`). */
  stamp(): Promise<SentAs>;
  /** Forgets the result of `method` with `params` (every result of `method` without them). */
  forget(method: string, params?: JsonObject): Promise<void>;
  /** The identity now (asked of the target). */
  identity(): Promise<string | undefined>;
  /** Deletes every private result stored under `identity` for this server. */
  purgePrivate(identity: string | undefined): Promise<void>;
  /** The credentials changed: ask the target again. */
  retarget(): void;
}

/**
 * The policy of a complete result: a modern one's `ttlMs` (missing or negative: 0) and
 * `cacheScope` (missing: private); a legacy one's `legacyTtlMs`, private.
 *
 * @param result The result.
 * @param era The era it came in.
 * @param legacyTtlMs How long a legacy result is kept.
 * @returns The policy, or `undefined` when it is not to be kept.
 */
export function policyOf(
  result: JsonObject,
  era: "modern" | "legacy" | undefined,
  legacyTtlMs = 0,
): CachePolicy | undefined {
  if (era === "legacy") {
    return legacyTtlMs > 0 ? { ttlMs: legacyTtlMs, scope: "private" } : undefined;
  }
  if (era !== "modern") return undefined;
  const ttlMs = typeof result.ttlMs === "number" && result.ttlMs > 0 ? result.ttlMs : 0;
  if (ttlMs === 0 || !Number.isFinite(ttlMs)) return undefined;
  return { ttlMs, scope: result.cacheScope === "public" ? "public" : "private" };
}

/**
 * Creates a client's result cache.
 *
 * @param options The store, the target and the warning sink.
 * @returns The cache.
 */
export function createResultCache(options: ResultCacheOptions): ResultCache {
  const store = guardStore(options.store, options.warn);
  let target: Promise<CacheTarget> | undefined;
  let known: CacheTarget | undefined; // the target, once resolved (a hit then costs no await)
  let generation = 0; // bumped by retarget: a save of a request sent before is dropped
  const current = (): Promise<CacheTarget> | CacheTarget => {
    if (known !== undefined) return known;
    const asked = target ??= options.target();
    asked.then((t) => {
      if (target === asked) {
        if (t.live === true) target = undefined;
        else known = t;
      }
    }, () => {});
    return asked;
  };
  // Which partition a method's results were last found or kept in: looked up first.
  const lastScope = new Map<string, "public" | "private">();
  // Digests of params seen, so a hit costs no hashing.
  const names = new Map<string, Promise<string>>();
  const paramsName = (params: JsonObject | undefined): Promise<string> | string => {
    if (params === undefined) return "-";
    const { _meta: _, ...rest } = params;
    const text = canonicalJson(rest);
    if (text === "{}") return "-";
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= 1_000) names.clear();
      name = digest(text);
      names.set(text, name);
    }
    return name;
  };
  const publicKey = (t: CacheTarget, method: string, p: string): CacheKey => [
    "v1",
    t.server,
    "public",
    method,
    p,
  ];
  const privateKey = (t: CacheTarget, id: string, method: string, p: string): CacheKey => [
    "v1",
    t.server,
    "private",
    id,
    method,
    p,
  ];
  const asResult = (value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as JsonObject
      : undefined;

  return {
    async lookup(method, params) {
      const t = known ?? await current();
      const name = paramsName(params);
      const p = typeof name === "string" ? name : await name;
      if (t.identity === undefined) return asResult(await store.get(publicKey(t, method, p)));
      const id = t.identity;
      const key = (scope: "public" | "private") =>
        scope === "public" ? publicKey(t, method, p) : privateKey(t, id, method, p);
      // The server keeps a list's scope across pages: the last one found is tried first.
      const first = lastScope.get(method) ?? "public";
      const second = first === "public" ? "private" : "public";
      const found = asResult(await store.get(key(first)));
      if (found !== undefined) return found;
      const other = asResult(await store.get(key(second)));
      if (other !== undefined) lastScope.set(method, second);
      return other;
    },
    async save(method, params, result, policy, sentAs) {
      if (policy === undefined || policy.ttlMs <= 0) return;
      if (sentAs !== undefined && sentAs.generation !== generation) return;
      const t = await current();
      if (
        sentAs !== undefined && (sentAs.generation !== generation || t.identity !== sentAs.identity)
      ) {
        return; // the credentials changed while the request was out
      }
      lastScope.set(method, policy.scope);
      const p = await paramsName(params);
      if (policy.scope === "public") {
        return store.set(publicKey(t, method, p), result, policy.ttlMs);
      }
      if (t.identity === undefined) return; // never served: not kept
      await store.set(privateKey(t, t.identity, method, p), result, policy.ttlMs);
    },
    async forget(method, params) {
      const t = await current();
      const p = params === undefined ? undefined : await paramsName(params);
      const keys: CacheKey[] = [publicKey(t, method, p ?? "")];
      if (t.identity !== undefined) keys.push(privateKey(t, t.identity, method, p ?? ""));
      await Promise.all(
        keys.map((key) =>
          p === undefined ? store.deletePrefix(key.slice(0, -1)) : store.delete(key)
        ),
      );
    },
    identity: async () => (await current()).identity,
    async stamp() {
      const at = generation;
      const { identity } = await current();
      return { generation: at, identity };
    },
    async purgePrivate(identity) {
      if (identity === undefined) return;
      const t = await current();
      await store.deletePrefix(["v1", t.server, "private", identity]);
    },
    retarget() {
      generation++;
      target = undefined;
      known = undefined;
    },
  };
}

/** The longest a store operation may take before it counts as failed. */
export const STORE_TIMEOUT = 5_000;

/** A {@linkcode CacheStore} whose operations resolve `undefined` instead of failing. */
export interface GuardedStore {
  get(key: CacheKey): Promise<unknown>;
  set(key: CacheKey, value: unknown, ttlMs: number): Promise<void>;
  delete(key: CacheKey): Promise<void>;
  deletePrefix(prefix: CacheKey): Promise<void>;
}

/**
 * Guards a store.
 *
 * @param store The user's store.
 * @param warn Where the one warning goes.
 * @param timeout The bound of each operation.
 * @returns The guarded store.
 */
export function guardStore(
  store: CacheStore,
  warn: (message: string) => void,
  timeout = STORE_TIMEOUT,
): GuardedStore {
  let failing = false;
  const failed = (op: string, error: unknown) => {
    if (!failing) {
      const why = error instanceof Error ? error.message : String(error);
      warn(`The cache store failed (${op}: ${why}); going on without the cache until it works`);
    }
    failing = true;
  };
  const run = <T>(op: string, call: () => Promise<T>): Promise<T | undefined> =>
    new Promise<T | undefined>((resolve) => {
      let done = false;
      let timer: ReturnType<typeof startTimer> | undefined;
      const finish = (value: T | undefined) => {
        if (done) return;
        done = true;
        clearTimer(timer);
        resolve(value);
      };
      let attempt: Promise<T>;
      try {
        attempt = Promise.resolve(call());
      } catch (error) {
        attempt = Promise.reject(error);
      }
      attempt.then((value) => {
        failing = false;
        finish(value);
      }, (error) => {
        failed(op, error);
        finish(undefined);
      });
      // An operation already done (the memory store) settles first and needs no timer.
      queueMicrotask(() => {
        if (done) return;
        timer = startTimer(() => {
          if (done) return;
          failed(op, new Error(`timed out after ${timeout} ms`));
          finish(undefined);
        }, timeout);
      });
    });
  return {
    get: (key) => run("get", () => store.get(key)),
    set: (key, value, ttlMs) => run("set", () => store.set(key, value, ttlMs)).then(() => {}),
    delete: (key) => run("delete", () => store.delete(key)).then(() => {}),
    deletePrefix: (prefix) => run("deletePrefix", () => store.deletePrefix(prefix)).then(() => {}),
  };
}

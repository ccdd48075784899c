/**
 * Private: a store that never fails a call. Every operation is bounded in time; an error or
 * a timeout makes the operation a miss (or a skipped write), with one warning until the
 * store works again: a Redis that is down degrades the client to no cache.
 *
 * @module
 */

import { clearTimer, startTimer } from "../clock/timer.ts";
import type { CacheKey, CacheStore } from "./store.ts";

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

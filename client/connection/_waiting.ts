/**
 * What waits for the connection: requests queued until it is ready (each with its own
 * timeout and signal) and `ready()` callers.
 *
 * Every timer here is armed after its entry is registered, and dropped again when the entry
 * settled meanwhile: arming a timer may run pending microtasks (Deno's test harness does),
 * so the connection can become ready in the middle of `setTimeout`.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { startTimer, type Timer } from "../../clock/timer.ts";
import { cancelledError } from "../_errors.ts";
import type { RequestOptions } from "../types.ts";
import { counted } from "../../transports/census.ts";

/** A request waiting for the connection. */
export interface Queued<O extends RequestOptions> {
  /** The method. */
  method: string;
  /** The params, as the caller gave them. */
  params: JsonObject | undefined;
  /** The caller's options. */
  options: O;
  /** When it was queued (its timeout counts from here). */
  queuedAt: number;
}

/** The queue and the ready waiters of one connection. */
export interface WaitRoom<O extends RequestOptions> {
  /** Queues a request until {@linkcode WaitRoom.release}; `timeout` and the signal apply. */
  enqueue(
    method: string,
    params: JsonObject | undefined,
    options: O,
    timeout: number,
  ): Promise<JsonObject>;
  /** Hands every queued request to `send`, in order, and settles each with its outcome. */
  release(send: (item: Queued<O>) => Promise<JsonObject>): void;
  /** Rejects every queued request. */
  rejectAll(error: McpError): void;
  /** Resolves when {@linkcode WaitRoom.settle} is called without an error. */
  wait(timeout?: number): Promise<void>;
  /** Resolves (or, with an error, rejects) every waiter. */
  settle(error?: McpError): void;
}

interface Entry<O extends RequestOptions> extends Queued<O> {
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
  cleanup(): void;
}

/**
 * Creates the wait room of a connection.
 *
 * @param lastError The connection's last failure (the cause of a wait that timed out).
 * @param explain The message of a `ready()` wait that timed out.
 * @returns The wait room.
 */
export function createWaitRoom<O extends RequestOptions>(
  lastError: () => McpError | undefined,
  explain: (timeout: number) => string = (timeout) =>
    `The client was not ready within ${timeout} ms`,
): WaitRoom<O> {
  const queue = new Set<Entry<O>>();
  const waiters = new Set<{ resolve(): void; reject(error: McpError): void }>();
  counted("room.queued", () => queue.size + waiters.size);

  const notReady = (message: string) =>
    new McpError(message, { kind: "timeout", reason: "not_ready", cause: lastError() });

  return {
    enqueue(method, params, options, timeout) {
      return new Promise<JsonObject>((resolve, reject) => {
        const signal = options.signal;
        let timer: Timer | undefined;
        const entry: Entry<O> = {
          method,
          params,
          options,
          queuedAt: Date.now(),
          resolve,
          reject,
          cleanup: () => {
            timer?.clear();
            signal?.removeEventListener("abort", onAbort);
          },
        };
        const drop = (error: McpError) => {
          if (!queue.delete(entry)) return;
          entry.cleanup();
          reject(error);
        };
        const onAbort = () => drop(cancelledError(method, signal));
        queue.add(entry);
        signal?.addEventListener("abort", onAbort, { once: true });
        if (signal?.aborted) return onAbort();
        if (!Number.isFinite(timeout)) return;
        const armed = startTimer(
          () =>
            drop(notReady(`${method} timed out after ${timeout} ms waiting for the connection`)),
          timeout,
        );
        if (queue.has(entry)) timer = armed;
        else armed.clear();
      });
    },
    release(send) {
      const entries = [...queue];
      queue.clear();
      for (const entry of entries) {
        entry.cleanup();
        send(entry).then(entry.resolve, entry.reject);
      }
    },
    rejectAll(error) {
      const entries = [...queue];
      queue.clear();
      for (const entry of entries) {
        entry.cleanup();
        entry.reject(error);
      }
    },
    wait(timeout) {
      return new Promise((resolve, reject) => {
        let timer: Timer | undefined;
        const waiter = {
          resolve: () => {
            timer?.clear();
            resolve();
          },
          reject: (error: McpError) => {
            timer?.clear();
            reject(error);
          },
        };
        waiters.add(waiter);
        if (timeout === undefined || !Number.isFinite(timeout)) return;
        const armed = startTimer(() => {
          if (waiters.delete(waiter)) {
            reject(notReady(explain(timeout)));
          }
        }, timeout);
        if (waiters.has(waiter)) timer = armed;
        else armed.clear();
      });
    },
    settle(error) {
      const settled = [...waiters];
      waiters.clear();
      for (const waiter of settled) error ? waiter.reject(error) : waiter.resolve();
    },
  };
}

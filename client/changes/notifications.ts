/**
 * Server notifications for the client's users: listeners, and async iterators that end when
 * their signal aborts or the client closes. Progress goes to the request's `onProgress`.
 *
 * @module
 */

import { jsonLength } from "../../protocol/json_length.ts";
import type { ServerNotification } from "../types.ts";

/** How many notifications an iterator buffers before dropping the oldest. */
export const ITERATOR_BUFFER = 1_000;

/**
 * How many bytes of notifications (their JSON text) an iterator buffers before dropping the
 * oldest: 4 MiB. One notification larger than that is dropped itself, with the warning.
 */
export const ITERATOR_BUFFER_BYTES = 4 * 1024 * 1024;

/** Fans server notifications out (or, for a hub of servers, notifications of its shape). */
export interface NotificationHub<T = ServerNotification> {
  /** Delivers one notification to every listener and iterator. */
  publish(notification: T): void;
  /**
   * Adds a listener; returns the function that removes it. The same listener added twice is
   * one listener (it hears each notification once; either function removes it).
   */
  subscribe(listener: (notification: T) => void): () => void;
  /** An iterator over notifications from now on. */
  iterate(options?: { signal?: AbortSignal }): AsyncIterableIterator<T>;
  /** Ends every iterator (the client closed), and each of its pending `next()`. Listeners stay. */
  end(): void;
}

/**
 * Creates a hub.
 *
 * @param warn Where listener failures and drops are reported.
 * @param ended Whether the client is closed now: an iterator made then is over at once
 * (default: never closed).
 * @returns The hub.
 */
export function createNotificationHub<T = ServerNotification>(
  warn: (message: string) => void,
  ended: () => boolean = () => false,
): NotificationHub<T> {
  const listeners = new Set<(notification: T) => void>();
  const iterators = new Set<(notification: T | undefined) => void>();

  const iterate = (options: { signal?: AbortSignal } = {}) => {
    const buffer: T[] = [];
    const sizes: number[] = []; // of each buffered notification, in the same order
    let bytes = 0;
    // Every next() not yet answered, oldest first: each settles, in order.
    const waiting: ((result: IteratorResult<T>) => void)[] = [];
    let done = false;
    const finish = (drop = true) => {
      if (drop) {
        buffer.length = 0;
        sizes.length = 0;
        bytes = 0;
      }
      if (done) return;
      done = true;
      iterators.delete(push);
      options.signal?.removeEventListener("abort", onAbort);
      for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined });
    };
    const onAbort = () => finish();
    function push(notification: T | undefined) {
      if (notification === undefined) return finish(false);
      const resolve = waiting.shift();
      if (resolve) return resolve({ done: false, value: notification });
      const size = jsonLength(notification);
      buffer.push(notification);
      sizes.push(size);
      bytes += size;
      let dropped = false;
      while (buffer.length > ITERATOR_BUFFER || (bytes > ITERATOR_BUFFER_BYTES && buffer.length)) {
        buffer.shift();
        bytes -= sizes.shift() ?? 0;
        dropped = true;
      }
      if (dropped) {
        warn("A notifications() iterator fell behind; dropped the oldest notification");
      }
    }
    // Made after the client closed, or with an aborted signal: already over.
    if (ended() || options.signal?.aborted) done = true;
    else {
      iterators.add(push);
      options.signal?.addEventListener("abort", onAbort, { once: true });
    }
    const iterator: AsyncIterableIterator<T> = {
      next() {
        const value = buffer.shift();
        if (value !== undefined) {
          bytes -= sizes.shift() ?? 0;
          return Promise.resolve({ done: false, value });
        }
        if (done) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve) => waiting.push(resolve));
      },
      return() {
        finish();
        return Promise.resolve({ done: true, value: undefined });
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  };

  return {
    publish(notification) {
      for (const listener of [...listeners]) {
        try {
          listener(notification);
        } catch (error) {
          warn(`A notification listener threw: ${error}`);
        }
      }
      for (const push of [...iterators]) push(notification);
    },
    subscribe(listener) {
      if (typeof listener !== "function") throw new TypeError("listener must be a function");
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    iterate,
    end() {
      for (const push of [...iterators]) push(undefined);
    },
  };
}

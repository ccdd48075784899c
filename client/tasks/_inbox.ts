/**
 * Private: the waits between polls of one task. A wait ends after the poll interval, when the
 * caller stops, or at once when a notification about the task arrives (the modern
 * `notifications/tasks` carries the whole task; the legacy `notifications/tasks/status` its
 * status), so pushed news is taken without waiting for the next poll.
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { clearTimer, startTimer, type Timer } from "../../clock/timer.ts";
import type { TaskContext } from "./_context.ts";

/** The waits of one task. */
export interface Inbox {
  /**
   * Waits up to `ms`: resolves with the params of a notification about the task (one that came
   * since the last wait, or during this one), or `undefined` when the time is up or `signal`
   * aborts. Never rejects.
   */
  next(ms: number, signal: AbortSignal): Promise<JsonObject | undefined>;
  /** Stops listening. */
  close(): void;
}

/**
 * Listens for notifications about `taskId`.
 *
 * @param ctx The client.
 * @param taskId The task.
 * @returns The inbox.
 */
export function createInbox(ctx: TaskContext, taskId: string): Inbox {
  let latest: JsonObject | undefined;
  let wake: (() => void) | undefined;
  const unwatch = ctx.watch((notification) => {
    if (notification.params.taskId !== taskId) return;
    if (
      notification.method !== "notifications/tasks" &&
      notification.method !== "notifications/tasks/status"
    ) {
      return;
    }
    latest = notification.params;
    wake?.();
  });
  return {
    next(ms, signal) {
      if (latest !== undefined || signal.aborted) return Promise.resolve(take());
      return new Promise((resolve) => {
        const armed: { timer?: Timer; done?: boolean } = {};
        const done = () => {
          armed.done = true;
          wake = undefined;
          clearTimer(armed.timer);
          signal.removeEventListener("abort", done);
          resolve(take());
        };
        wake = done;
        signal.addEventListener("abort", done, { once: true });
        // Arming a timer may run pending microtasks: the wait may be over already.
        const timer = startTimer(done, ms);
        if (armed.done) timer.clear();
        else armed.timer = timer;
      });
    },
    close() {
      wake?.();
      unwatch();
    },
  };

  function take(): JsonObject | undefined {
    const taken = latest;
    latest = undefined;
    return taken;
  }
}

/**
 * Private: answers that come after their request gave up (it timed out or its caller
 * aborted), for the requests that asked to hear one (`onLateAnswer`). Such an answer may name
 * something the server made meanwhile (a task), which the caller then undoes. Each is waited
 * for {@linkcode LATE_ANSWER_WAIT} ms at most, and at most {@linkcode LATE_ANSWER_CAP} at once
 * (the oldest goes first), so a server that never answers costs nothing lasting.
 *
 * @module
 */

import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { startTimer, type Timer } from "../../clock/timer.ts";

/** How long a given-up request still hears its answer, in ms. */
export const LATE_ANSWER_WAIT = 5_000;
/** How many given-up requests hear their answers at once. */
export const LATE_ANSWER_CAP = 64;

/** The given-up requests of one session that still hear their answers. */
export interface LateAnswers {
  /** Request `id` gave up: its answer, if it comes soon, goes to `hear`. */
  keep(id: number, hear: (result: JsonObject) => void): void;
  /** An answer for no request in flight: handed on (`true`) when one waits for it. */
  take(id: number, result: JsonObject | undefined): boolean;
  /** Stops waiting for all of them. */
  clear(): void;
}

/**
 * Creates the waits of one session.
 *
 * @returns The waits.
 */
export function lateAnswers(): LateAnswers {
  const waiting = new Map<number, { hear: (result: JsonObject) => void; timer: Timer }>();
  const drop = (id: number) => {
    waiting.get(id)?.timer.clear();
    waiting.delete(id);
  };
  return {
    keep(id, hear) {
      drop(id);
      if (waiting.size >= LATE_ANSWER_CAP) drop(waiting.keys().next().value!);
      const timer = startTimer(() => waiting.delete(id), LATE_ANSWER_WAIT);
      timer.unref();
      waiting.set(id, { hear, timer });
    },
    take(id, result) {
      const entry = waiting.get(id);
      if (entry === undefined) return false;
      drop(id);
      if (result === undefined) return true; // an error answer: nothing was made
      try {
        entry.hear(result);
      } catch {
        // The listener failing changes nothing for the session.
      }
      return true;
    },
    clear() {
      for (const id of [...waiting.keys()]) drop(id);
    },
  };
}

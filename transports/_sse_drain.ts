/**
 * Private: the drains of event-stream bodies left early (see `SseReader.close`), behind one
 * shared timer, and cancelling a reader without waiting for it.
 *
 * @module
 */

import { startTimer, type Timer } from "../clock/timer.ts";

/** How long the rest of a body left early is drained before it is cancelled. */
const DRAIN_MS = 1_000;

/** Cancels a body's reader without waiting (and without an unhandled rejection). */
export function cancelReader(reader: ReadableStreamGenericReader): void {
  try {
    reader.cancel().catch(() => {});
  } catch {
    // Refused outright (an edge runtime's body of another request): the drain's byte
    // bound still ends it.
  }
}

/**
 * The bodies being drained, each with when its drain began, behind one shared timer: a
 * timer per drain would cost more than the drain (every POST answered with an event stream
 * is drained once its response is in). The timer cancels each drain still running
 * `DRAIN_MS` after it began, and re-arms only while drains remain. It is not cleared when
 * the last drain ends (the next one, usually a moment later, reuses it) and holds no process
 * open: a drain's own pending read does that.
 */
export const draining = new Map<ReadableStreamGenericReader, number>();
let sweeper: Timer | undefined;

function sweep(): void {
  sweeper = undefined;
  const now = Date.now();
  let next = Infinity;
  for (const [reader, began] of draining) {
    if (now - began >= DRAIN_MS) {
      draining.delete(reader);
      cancelReader(reader);
    } else if (began + DRAIN_MS < next) next = began + DRAIN_MS;
  }
  if (next !== Infinity) arm(next - now);
}

function arm(ms: number): void {
  sweeper = startTimer(sweep, ms);
  // Deno, Bun and Node timers can be unreferenced; edge runtimes end with the request.
  sweeper.unref();
}

export function watchDrain(reader: ReadableStreamGenericReader): void {
  draining.set(reader, Date.now());
  if (sweeper === undefined) arm(DRAIN_MS);
}

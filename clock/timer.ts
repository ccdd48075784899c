/**
 * Private: the one way the package arms a timer. A runtime's `setTimeout` holds at most
 * 2³¹−1 ms (about 24.8 days) and turns any longer delay into 1 ms, so a request with
 * `timeout: 1e10` would fail at once and a deadline clock armed that far ahead would
 * re-arm in a busy loop. {@linkcode startTimer} waits a longer delay in steps of at most
 * {@linkcode MAX_TIMER_DELAY} (it fires when it should, and a step that fires early only
 * arms the next step); an infinite delay arms nothing and never fires. Every timer of the
 * package goes through it, and every timeout signal through {@linkcode timeoutSignal}.
 *
 * Delays a server chooses (`Retry-After`, an SSE `retry:`) are bounded with
 * {@linkcode serverDelay} before any timer sees them.
 *
 * It imports nothing, so any layer can use it.
 *
 * @module
 */

/** The longest delay one runtime timer can hold, in milliseconds (2³¹−1). */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

/** The longest `Retry-After` honoured unless the client says otherwise (one minute). */
export const DEFAULT_MAX_RETRY_AFTER = 60_000;

/**
 * How long a connection must stay up before its reconnect (or restart) backoff starts over
 * (ten seconds): a server that fails right after each handshake keeps backing off and is
 * given up on per `attempts`, instead of being started again every first delay for ever.
 */
export const STABLE_CONNECTION = 10_000;

/** The count of failed attempts kept across a connection that did not stay up. */
export interface AttemptCount {
  /** Failed attempts now (0 while up). */
  readonly attempts: number;
  /** One more failed attempt; returns the count. */
  failed(): number;
  /** The connection is up: the count reads 0, remembering what it was. */
  up(): void;
  /**
   * The connection was lost: the count starts over only when it stayed up for
   * {@linkcode STABLE_CONNECTION} ms, else it goes on from before it came up.
   */
  lost(): void;
  /** Starts over from 0 (a reconnect asked for). */
  reset(): void;
}

/**
 * Counts failed connection attempts so that a server failing right after each handshake
 * keeps backing off: coming up reads as 0, but losing the connection within
 * {@linkcode STABLE_CONNECTION} ms resumes the count from before.
 *
 * @param now The clock (default `Date.now`).
 * @returns The count, 0 at first.
 *
 * @example
 * ```ts
 * import { attemptCount } from "./timer.ts";
 *
 * const count = attemptCount();
 * count.failed();
 * count.failed();
 * count.up();
 * count.lost(); // at once: not stable
 * if (count.attempts !== 2) throw new Error("unexpected");
 * ```
 */
export function attemptCount(now: () => number = Date.now): AttemptCount {
  let attempts = 0;
  let upSince: { at: number; attempts: number } | undefined;
  return {
    get attempts() {
      return attempts;
    },
    failed: () => ++attempts,
    up() {
      upSince = { at: now(), attempts };
      attempts = 0;
    },
    lost() {
      if (upSince !== undefined && now() - upSince.at < STABLE_CONNECTION) {
        attempts = upSince.attempts;
      }
      upSince = undefined;
    },
    reset() {
      attempts = 0;
      upSince = undefined;
    },
  };
}

/** The shortest wait before reconnecting an event stream, whatever the server asks. */
export const MIN_STREAM_DELAY = 100;

/** A timer armed by {@linkcode startTimer}. */
export interface Timer {
  /** Stops it; its callback will not run. Safe to call more than once. */
  clear(): void;
  /**
   * Lets the process exit while only this timer is pending (Deno, Bun and Node timers).
   *
   * @returns `false` where the runtime's timers cannot be unreferenced.
   */
  unref(): boolean;
  /** Holds the process open again until the timer fires. */
  ref(): void;
}

type Id = ReturnType<typeof setTimeout>;

interface Referable {
  ref(): unknown;
  unref(): unknown;
}

function referable(id: Id | undefined): Referable | undefined {
  const candidate = id as unknown as Partial<Referable> | undefined;
  return typeof candidate === "object" && candidate !== null &&
      typeof candidate.unref === "function" && typeof candidate.ref === "function"
    ? candidate as Referable
    : undefined;
}

/**
 * A delay a runtime timer can hold: `NaN` and negative delays are 0, longer ones
 * {@linkcode MAX_TIMER_DELAY}.
 *
 * @param ms The wanted delay.
 * @returns Milliseconds in `[0, MAX_TIMER_DELAY]`.
 */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return ms > MAX_TIMER_DELAY ? MAX_TIMER_DELAY : ms;
}

/**
 * Runs `callback` once after `ms` milliseconds, however long that is: past
 * {@linkcode MAX_TIMER_DELAY} it waits in steps; `Infinity` never fires; `NaN` and negative
 * delays count as 0.
 *
 * @param callback What to run.
 * @param ms The delay.
 * @returns The timer.
 */
export function startTimer(callback: () => void, ms: number): Timer {
  let id: Id | undefined;
  let referenced = true;
  // Only a delay past one timer's reach needs to know when it is due.
  const due = ms > MAX_TIMER_DELAY && ms !== Infinity ? Date.now() + ms : 0;
  const arm = (delay: number) => {
    id = setTimeout(step, delay);
    if (!referenced) referable(id)?.unref();
  };
  function step() {
    id = undefined;
    if (due !== 0) {
      const left = due - Date.now();
      if (left > 0) return arm(timerDelay(left));
    }
    callback();
  }
  if (ms !== Infinity) arm(timerDelay(ms));
  return {
    clear() {
      if (id !== undefined) clearTimeout(id);
      id = undefined;
    },
    unref() {
      if (id === undefined) {
        referenced = false;
        return true;
      }
      const timer = referable(id);
      if (timer === undefined) return false;
      referenced = false;
      timer.unref();
      return true;
    },
    ref() {
      referenced = true;
      referable(id)?.ref();
    },
  };
}

/**
 * Clears `timer` when there is one.
 *
 * @param timer The timer, or `undefined`.
 */
export function clearTimer(timer: Timer | undefined): void {
  timer?.clear();
}

/**
 * A signal that aborts with a `TimeoutError` after `ms` milliseconds, like
 * `AbortSignal.timeout` but for any delay (an infinite one never aborts). It holds no
 * process open.
 *
 * @param ms The delay.
 * @returns The signal.
 */
export function timeoutSignal(ms: number): AbortSignal {
  if (ms <= MAX_TIMER_DELAY) return AbortSignal.timeout(Math.max(0, ms));
  const controller = new AbortController();
  startTimer(
    () => controller.abort(new DOMException("The operation timed out.", "TimeoutError")),
    ms,
  ).unref();
  return controller.signal;
}

/**
 * A delay a server asked for (`Retry-After`, an SSE `retry:`), bounded: never below
 * `floor` (a server cannot make the client spin) nor above `ceiling` (nor stall it for
 * ever). Unreadable values count as `floor`.
 *
 * @param ms What the server asked for.
 * @param floor The shortest wait.
 * @param ceiling The longest wait.
 * @returns Milliseconds in `[floor, max(floor, ceiling)]`.
 */
export function serverDelay(ms: number, floor: number, ceiling: number): number {
  if (!(ms > floor)) return floor;
  return ms > ceiling ? Math.max(floor, ceiling) : ms;
}

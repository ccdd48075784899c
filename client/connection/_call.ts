/**
 * Private: one request in flight ({@linkcode Call}: its pending entry, deadline, cancellation
 * and abort controller in one object), the session's shared deadline timer
 * ({@linkcode deadlineClock}), and the answers that come after their request gave up (it
 * timed out or its caller aborted), for the requests that asked to hear one
 * (`onLateAnswer`): such an answer may name something the server made meanwhile (a task),
 * which the caller then undoes. Each is waited for {@linkcode LATE_ANSWER_WAIT} ms at most,
 * and at most {@linkcode LATE_ANSWER_CAP} at once (the oldest goes first), so a server that
 * never answers costs nothing lasting.
 *
 * @module
 */

import { cancelledError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { startTimer, type Timer } from "../../clock/timer.ts";
import type { Progress } from "../types.ts";

/**
 * The default `maxTotalTimeout`, as a multiple of the request's timeout (10 minutes with the
 * default `requestTimeout` of 60 s): progress cannot keep a call open for ever.
 */
export const TOTAL_TIMEOUT_FACTOR = 10;

/** What a call takes from its request's options. */
export interface CallOptions {
  /** Milliseconds before it fails with kind `timeout` (`Infinity`: never). */
  timeout: number;
  /**
   * The ceiling when progress keeps restarting the timeout (default
   * {@linkcode TOTAL_TIMEOUT_FACTOR} × `timeout`; `Infinity`: none).
   */
  maxTotalTimeout?: number;
  /** The caller's signal. */
  signal?: AbortSignal;
  /** Receives the request's progress. */
  onProgress?: (progress: Progress) => void;
  /** Announce cancellation with `notifications/cancelled` where the era uses it. */
  cancellable?: boolean;
  /** Hears the answer that comes after the call timed out or was aborted. */
  onLateAnswer?: (result: JsonObject) => void;
}

/** When a timed request expires; {@linkcode deadlineClock} watches it. */
export interface Deadline {
  /** On the clock: added and not yet removed. */
  watched: boolean;
  /** Epoch milliseconds of expiry; moves later on progress. */
  at: number;
  /** Whether `at` is the `maxTotalTimeout` ceiling rather than the per-request timeout. */
  ceiling: boolean;
  /** Fails the request with kind `timeout`. */
  expire(): void;
}

/**
 * The deadlines of one session behind a single timer, armed at the earliest deadline it knows
 * of. Progress only moves a deadline later (a number), so the timer may fire early: it then
 * expires what is due and re-arms at the earliest remaining deadline. A deadline further
 * away than a runtime timer reaches is waited for in steps (`startTimer`), so the clock
 * never fires early in a loop.
 *
 * The clock keeps no collection of its own: it counts what is watched and, when the timer
 * fires, looks through `candidates` (the session's requests in flight) for the watched ones.
 * Adding and removing a deadline is then a counter, not a hash-table entry per request.
 *
 * When the last deadline goes, the timer is parked rather than cleared: unreferenced, so it
 * holds nothing open, and taken back by the next request whose deadline is no earlier. One
 * request after another then costs no timer at all. Where timers cannot be unreferenced
 * (plain numeric ids), parking clears it. `stop()` clears it for good.
 */
export function deadlineClock(candidates: () => Iterable<Deadline>) {
  let watched = 0;
  let timer: Timer | undefined;
  let timerAt = Infinity;
  let parked = false;

  const disarm = () => {
    timer?.clear();
    timer = undefined;
    timerAt = Infinity;
    parked = false;
  };

  const arm = (at: number) => {
    if (at >= timerAt) {
      if (parked) {
        parked = false;
        timer?.ref();
      }
      return;
    }
    if (at === Infinity) return;
    disarm();
    timerAt = at;
    const armed = startTimer(fire, at - Date.now());
    // Arming a timer may run pending microtasks (Deno's test harness does): when they
    // disarmed or re-armed the clock meanwhile, this timer is stale.
    if (timerAt !== at || timer !== undefined) armed.clear();
    else timer = armed;
  };

  const park = () => {
    if (timer?.unref()) parked = true;
    else disarm();
  };

  function fire() {
    timer = undefined;
    timerAt = Infinity;
    parked = false;
    const now = Date.now();
    const due: Deadline[] = [];
    let next = Infinity;
    for (const deadline of candidates()) {
      if (!deadline.watched) continue;
      if (deadline.at <= now) due.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    if (due.length === 0) return arm(next);
    for (const deadline of due) deadline.expire();
    // Expiring may have settled or added requests: look again.
    next = Infinity;
    for (const deadline of candidates()) {
      if (deadline.watched && deadline.at < next) next = deadline.at;
    }
    arm(next);
  }

  return {
    /** Watches `deadline` (which must be among the candidates until it is removed). */
    add(deadline: Deadline): void {
      if (deadline.watched) return;
      deadline.watched = true;
      watched++;
      arm(deadline.at);
    },
    remove(deadline: Deadline): void {
      if (!deadline.watched) return;
      deadline.watched = false;
      if (--watched === 0) park();
    },
    stop: disarm,
  };
}

/** What a {@linkcode Call} needs from its session. */
export interface CallCore {
  /** The requests in flight by id. */
  pending: Record<number, Call>;
  clock: ReturnType<typeof deadlineClock>;
  /** Whether the call's cancellation is announced with `notifications/cancelled` now. */
  cancels(call: Call): boolean;
  notify(method: string, params?: JsonObject): Promise<void>;
  /** The call, sent, timed out or was aborted: it may still hear its answer. */
  gaveUp(call: Call): void;
}

/**
 * One request in flight: its pending entry and its deadline in one object (methods on the
 * prototype, not a closure each, since a busy client makes many of these).
 */
export class Call implements Deadline {
  /** Settled: later outcomes are ignored. */
  settled = false;
  /** Epoch milliseconds of expiry (when `watched`). */
  at = 0;
  ceiling = false;
  /** On the session's deadline clock. */
  watched = false;
  /** The caller's signal's listener, when there is a signal. */
  onAbort: (() => void) | undefined;
  /** The send's controller, once a link asked for it. */
  private sendController: AbortController | undefined;
  /** What the call failed with. */
  private failure: McpError | undefined;
  readonly started = Date.now();
  readonly ceilingAt: number;

  constructor(
    readonly core: CallCore,
    readonly id: number,
    readonly method: string,
    readonly opts: CallOptions,
    readonly progressToken: number | undefined,
    readonly resolve: (result: JsonObject) => void,
    readonly reject: (error: McpError) => void,
    readonly timeout: number = opts.timeout,
    maxTotalTimeout: number | undefined = opts.maxTotalTimeout,
  ) {
    this.ceilingAt = this.started + (maxTotalTimeout ?? TOTAL_TIMEOUT_FACTOR * timeout);
  }

  /**
   * The send's controller (at most one per request): made when the link first asks for it,
   * as HTTP does to abort its fetch. Stdio and in-process links never ask, so their requests
   * make none. A call is the `SendOptions` of its own send.
   */
  get controller(): AbortController {
    if (this.sendController === undefined) {
      this.sendController = new AbortController();
      // Asked for only after the call failed: hand out an aborted one.
      if (this.failure !== undefined) this.sendController.abort(this.failure);
    }
    return this.sendController;
  }

  /** The send controller's signal, aborted when the call fails (`SendOptions.signal`). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get onProgress(): ((progress: Progress) => void) | undefined {
    return this.opts.onProgress;
  }

  succeed(result: JsonObject): void {
    if (this.settled) return;
    this.settle();
    this.resolve(result);
  }

  fail(error: McpError): void {
    if (this.settled) return;
    this.settle();
    this.failure = error;
    this.sendController?.abort(error);
    this.reject(error);
  }

  /** Moves the deadline to `timeout` from now (capped by the ceiling); `false` when past. */
  place(): boolean {
    const now = Date.now();
    const next = now + this.timeout;
    this.ceiling = this.ceilingAt <= next;
    this.at = this.ceiling ? this.ceilingAt : next;
    return this.at > now;
  }

  /** Progress arrived: the deadline starts again (up to the ceiling). */
  touch(): void {
    if (!this.watched || this.settled) return;
    if (!this.place()) this.expire();
  }

  /** Fails with kind `timeout`; `sent`: the server has the request, so it hears of it. */
  expire(sent = true): void {
    const waited = Date.now() - this.started;
    this.fail(
      new McpError(`${this.method} timed out after ${waited} ms`, {
        kind: "timeout",
        reason: this.ceiling ? "max_total_timeout" : "request_timeout",
      }),
    );
    if (!sent) return;
    this.cancelRemote("Request timed out");
    this.core.gaveUp(this);
  }

  aborted(): void {
    const signal = this.opts.signal;
    this.fail(cancelledError(this.method, signal));
    this.cancelRemote(abortText(signal?.reason));
    this.core.gaveUp(this);
  }

  private settle(): void {
    this.settled = true;
    delete this.core.pending[this.id];
    this.core.clock.remove(this);
    if (this.onAbort !== undefined) this.opts.signal?.removeEventListener("abort", this.onAbort);
  }

  private cancelRemote(reason: string): void {
    if (!this.core.cancels(this)) return;
    this.core.notify("notifications/cancelled", { requestId: this.id, reason }).catch(() => {});
  }
}

function abortText(reason: unknown): string {
  if (reason instanceof Error && reason.message) return reason.message;
  if (typeof reason === "string" && reason) return reason;
  return "Cancelled by the caller";
}

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

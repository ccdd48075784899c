/**
 * One session per transport link: request ids, the pending map, per-request timeouts and
 * cancellation, and progress routing. It knows nothing of eras; the connection tells it how
 * to decorate params and whether cancellation travels as a notification.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import {
  isErrorResponse,
  isNotification,
  isRequest,
  isResult,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../protocol/jsonrpc.ts";
import type { SendOptions } from "../transports/transport.ts";
import { asMcpError, cancelledError } from "./_errors.ts";
import type { Progress, RequestOptions } from "./types.ts";

/** How a session reaches its link and the connection around it. */
export interface SessionOptions {
  /** Sends one message on the link. */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /** Adds what the era needs (the `_meta` envelope) to a request's params. */
  prepare(
    method: string,
    params: JsonObject | undefined,
    progressToken?: number,
  ): JsonObject | undefined;
  /** Whether a cancelled request is announced with `notifications/cancelled`. */
  cancelByNotification(): boolean;
  /** A notification from the server (progress excluded). */
  onNotification(notification: JsonRpcNotification): void;
  /** A request from the server; answer it with {@linkcode Session.respond}. */
  onRequest(request: JsonRpcRequest): void;
}

/** Per-request settings of {@linkcode Session.request}. */
export interface SessionRequestOptions extends RequestOptions {
  /** Milliseconds before the request fails with kind `timeout` (`Infinity`: never). */
  timeout: number;
  /** Send the params as given, without `prepare` (the probe and the handshake). */
  bare?: boolean;
  /** Attach a `progressToken` (default `true`). */
  progress?: boolean;
  /** Announce cancellation with `notifications/cancelled` where the era uses it (default `true`). */
  cancellable?: boolean;
}

/** One link's request bookkeeping. */
export interface Session {
  /** Sends a request and resolves with its result object. */
  request(
    method: string,
    params: JsonObject | undefined,
    options: SessionRequestOptions,
  ): Promise<JsonObject>;
  /** Sends a notification. */
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Answers a request of the server. */
  respond(response: JsonRpcResponse): Promise<void>;
  /** Handles one message from the link. */
  handle(message: JsonRpcMessage): void;
  /** Fails every pending request with `error`, and every later one too. */
  failAll(error: McpError): void;
  /** A fresh request id (for requests sent outside `request`, such as the HTTP probe). */
  nextId(): number;
  /** How many requests are waiting for an answer. */
  pending(): number;
}

interface Pending {
  method: string;
  progressToken?: number;
  onProgress?: (progress: Progress) => void;
  succeed(result: JsonObject): void;
  fail(error: McpError): void;
  touch(): void;
}

/** When a timed request expires; {@linkcode deadlineClock} watches it. */
interface Deadline {
  /** Epoch milliseconds of expiry; moves later on progress. */
  at: number;
  /** Whether `at` is the `maxTotalTimeout` ceiling rather than the per-request timeout. */
  ceiling: boolean;
  /** Fails the request with kind `timeout`. */
  expire(): void;
}

/** A timer that can stop holding the process open (Deno, Bun and Node timers can). */
interface RefTimer {
  ref(): unknown;
  unref(): unknown;
}

function isRefTimer(timer: unknown): timer is RefTimer {
  return typeof timer === "object" && timer !== null &&
    typeof (timer as RefTimer).unref === "function" &&
    typeof (timer as RefTimer).ref === "function";
}

/**
 * The deadlines of one session behind a single timer, armed at the earliest deadline it knows
 * of. Progress only moves a deadline later (a number), so the timer may fire early: it then
 * expires what is due and re-arms at the earliest remaining deadline.
 *
 * When the last deadline goes, the timer is parked rather than cleared: unreferenced, so it
 * holds nothing open, and taken back by the next request whose deadline is no earlier. One
 * request after another then costs no timer at all. Where timers cannot be unreferenced
 * (plain numeric ids), parking clears it. `stop()` clears it for good.
 */
function deadlineClock() {
  const watched = new Set<Deadline>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;
  let parked = false;

  const disarm = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    timerAt = Infinity;
    parked = false;
  };

  const arm = (at: number) => {
    if (at >= timerAt) {
      if (parked) {
        parked = false;
        (timer as unknown as RefTimer).ref();
      }
      return;
    }
    if (at === Infinity) return;
    disarm();
    timerAt = at;
    const armed = setTimeout(fire, Math.max(0, at - Date.now()));
    // Arming a timer may run pending microtasks (Deno's test harness does): when they
    // disarmed or re-armed the clock meanwhile, this timer is stale.
    if (timerAt !== at || timer !== undefined) clearTimeout(armed);
    else timer = armed;
  };

  const park = () => {
    if (isRefTimer(timer)) {
      parked = true;
      timer.unref();
    } else disarm();
  };

  function fire() {
    timer = undefined;
    timerAt = Infinity;
    parked = false;
    const now = Date.now();
    const due: Deadline[] = [];
    let next = Infinity;
    for (const deadline of watched) {
      if (deadline.at <= now) due.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    if (due.length === 0) return arm(next);
    for (const deadline of due) deadline.expire();
    // Expiring may have settled or added requests: look again.
    next = Infinity;
    for (const deadline of watched) if (deadline.at < next) next = deadline.at;
    arm(next);
  }

  return {
    add(deadline: Deadline): void {
      watched.add(deadline);
      arm(deadline.at);
    },
    remove(deadline: Deadline): void {
      if (watched.delete(deadline) && watched.size === 0) park();
    },
    stop: disarm,
  };
}

/** What a {@linkcode Call} needs from its session. */
interface CallCore {
  pending: Map<number, Pending>;
  clock: ReturnType<typeof deadlineClock>;
  /** Whether the call's cancellation is announced with `notifications/cancelled` now. */
  cancels(call: Call): boolean;
  notify(method: string, params?: JsonObject): Promise<void>;
}

/**
 * One request in flight: its pending entry and its deadline in one object (methods on the
 * prototype, not a closure each, since a busy client makes many of these).
 */
class Call implements Pending, Deadline {
  /** Settled: later outcomes are ignored. */
  settled = false;
  /** Epoch milliseconds of expiry (when `watched`). */
  at = 0;
  ceiling = false;
  /** On the session's deadline clock. */
  watched = false;
  /** The caller's signal's listener, when there is a signal. */
  onAbort: (() => void) | undefined;
  /** Aborts the send (one controller per request, handed to the link). */
  readonly controller = new AbortController();
  readonly started = Date.now();
  readonly ceilingAt: number;

  constructor(
    readonly core: CallCore,
    readonly id: number,
    readonly method: string,
    readonly opts: SessionRequestOptions,
    readonly progressToken: number | undefined,
    readonly resolve: (result: JsonObject) => void,
    readonly reject: (error: McpError) => void,
  ) {
    this.ceilingAt = opts.maxTotalTimeout === undefined
      ? Infinity
      : this.started + opts.maxTotalTimeout;
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
    this.controller.abort(error);
    this.reject(error);
  }

  /** Moves the deadline to `timeout` from now (capped by the ceiling); `false` when past. */
  place(): boolean {
    const now = Date.now();
    const next = now + this.opts.timeout;
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
    if (sent) this.cancelRemote("Request timed out");
  }

  aborted(): void {
    const signal = this.opts.signal;
    this.fail(cancelledError(this.method, signal));
    this.cancelRemote(abortText(signal?.reason));
  }

  private settle(): void {
    this.settled = true;
    this.core.pending.delete(this.id);
    if (this.watched) this.core.clock.remove(this);
    if (this.onAbort !== undefined) this.opts.signal?.removeEventListener("abort", this.onAbort);
  }

  private cancelRemote(reason: string): void {
    if (!this.core.cancels(this)) return;
    this.core.notify("notifications/cancelled", { requestId: this.id, reason }).catch(() => {});
  }
}

function asTransportError(error: unknown): McpError {
  return asMcpError(error, "The transport could not send the message", "send_failed");
}

function abortText(reason: unknown): string {
  if (reason instanceof Error && reason.message) return reason.message;
  if (typeof reason === "string" && reason) return reason;
  return "Cancelled by the caller";
}

/**
 * Creates the session of one link.
 *
 * @param options The link and the connection's callbacks.
 * @returns The session.
 */
export function createSession(options: SessionOptions): Session {
  const pending = new Map<number, Pending>();
  let ended: McpError | undefined;
  let lastId = 0;
  const clock = deadlineClock();
  const core: CallCore = {
    pending,
    clock,
    cancels: (call) => call.opts.cancellable !== false && !ended && options.cancelByNotification(),
    notify: (method, params) => notify(method, params),
  };

  const notify = (method: string, params?: JsonObject): Promise<void> => {
    if (ended) return Promise.reject(ended);
    const message: JsonRpcNotification = params === undefined
      ? { jsonrpc: "2.0", method }
      : { jsonrpc: "2.0", method, params };
    return options.send(message).catch((error) => {
      throw asTransportError(error);
    });
  };

  const request = (
    method: string,
    params: JsonObject | undefined,
    opts: SessionRequestOptions,
  ): Promise<JsonObject> => {
    if (ended) return Promise.reject(ended);
    const signal = opts.signal;
    if (signal?.aborted) {
      return Promise.reject(cancelledError(method, signal));
    }
    const id = ++lastId;
    const timed = Number.isFinite(opts.timeout);
    // A timed request always carries a token, so that the server's progress can extend it.
    const wantsToken = opts.progress !== false && (opts.onProgress !== undefined || timed);
    const progressToken = wantsToken ? id : undefined;
    let call!: Call;
    const promise = new Promise<JsonObject>((resolve, reject) => {
      call = new Call(core, id, method, opts, progressToken, resolve, reject);
    });
    pending.set(id, call);
    if (signal !== undefined) {
      call.onAbort = () => call.aborted();
      signal.addEventListener("abort", call.onAbort, { once: true });
    }
    if (timed) {
      if (!call.place()) {
        call.expire(false); // already past its deadline: never sent
        return promise;
      }
      call.watched = true;
      clock.add(call);
    }

    let sent: JsonObject | undefined;
    try {
      sent = opts.bare ? params : options.prepare(method, params, progressToken);
    } catch (error) {
      call.fail(asTransportError(error));
      return promise;
    }
    const message: JsonRpcRequest = sent === undefined
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params: sent };
    const controller = call.controller;
    options.send(message, { signal: controller.signal, controller }).catch((error) =>
      call.fail(asTransportError(error))
    );
    return promise;
  };

  const progress = (params: JsonObject | undefined) => {
    const token = params?.progressToken;
    if (typeof token !== "number") return;
    const entry = pending.get(token);
    if (!entry || entry.progressToken !== token) return;
    entry.touch();
    try {
      entry.onProgress?.(params as unknown as Progress);
    } catch {
      // A throwing progress callback must not break the session.
    }
  };

  return {
    request,
    notify,
    respond(response) {
      if (ended) return Promise.reject(ended);
      return options.send(response).catch((error) => {
        throw asTransportError(error);
      });
    },
    handle(message) {
      if (isResult(message)) {
        if (typeof message.id === "number") pending.get(message.id)?.succeed(message.result);
        return;
      }
      if (isErrorResponse(message)) {
        const entry = typeof message.id === "number" ? pending.get(message.id) : undefined;
        const { code, message: text, data } = message.error;
        entry?.fail(
          new McpError(`${entry.method} failed: ${text} (${code})`, { kind: "server", code, data }),
        );
        return;
      }
      if (isRequest(message)) return options.onRequest(message);
      if (isNotification(message)) {
        if (message.method === "notifications/progress") return progress(message.params);
        options.onNotification(message);
      }
    },
    failAll(error) {
      ended ??= error;
      for (const entry of [...pending.values()]) entry.fail(error);
      clock.stop();
    },
    nextId: () => ++lastId,
    pending: () => pending.size,
  };
}

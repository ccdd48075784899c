/**
 * Private: the one owner of a connection's state. The state machine's variables (where it
 * is, the attempts, the last error, the current link, what was negotiated, the renewal in
 * progress) are read by the connection, the connect loop and the dispatcher, and written
 * only here, through the named transitions below; the others call them. The steps those
 * modules share (dropping a link, sending within a request's timeout) are in `_steps.ts`.
 *
 * The state owns what waits for the connection too: requests queued until it is ready (each
 * with its own timeout and signal) and `ready()` callers. Every timer there is armed after
 * its entry is registered, and dropped again when the entry settled meanwhile: arming a timer
 * may run pending microtasks (Deno's test harness does), so the connection can become ready
 * in the middle of `setTimeout`.
 *
 * @module
 */

import { attemptCount, startTimer, type Timer } from "../../clock/timer.ts";
import { cancelledError, McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcId, JsonRpcNotification } from "../../protocol/jsonrpc.ts";
import type { LogLevel } from "../../protocol/meta.ts";
import type { Era } from "../../protocol/versions.ts";
import type { TraceScope } from "../../tracing/hooks.ts";
import type { ResolvedOptions } from "../_resolve_options.ts";
import type { ClientState, RequestOptions } from "../types.ts";
import { capabilitiesFor } from "../handler/capabilities.ts";
import type { LinkHandle, Negotiated } from "./_link.ts";
import { counted } from "../../transports/census.ts";

/** Request options the client's own methods add. */
export interface ConnectionRequestOptions extends RequestOptions {
  /** Attach a `progressToken` (default `true`). */
  progress?: boolean;
  /** The request's span, when the client traces (its id and retries are recorded on it). */
  trace?: TraceScope;
  /**
   * Hears the request's answer when it comes after the request timed out or its caller
   * aborted (within a few seconds): for a request whose answer may name something the server
   * made, which the caller then undoes (a late task is cancelled).
   */
  onLateAnswer?: (result: JsonObject) => void;
}

/** What the connection tells the client about. */
export interface ConnectionEvents {
  /** A server notification (progress excluded). */
  notification(notification: JsonRpcNotification): void;
  /** The client closed (by `close()` or by giving up). */
  closed(): void;
  /** The connection became ready: on a new link, or on a renewed legacy session. */
  ready?(info: { era: Era; renewed: boolean }): void;
}

/** Internal bookkeeping a request carries through the queue and its retries. */
export interface Outgoing extends ConnectionRequestOptions {
  /** When the caller made the request: its timeout counts from here. */
  startedAt?: number;
  /** Retries made after retryable HTTP statuses. */
  statusRetries?: number;
  /** Sent again after the legacy session was renewed. */
  renewed?: boolean;
}

/** What `stream` waits to learn: the id its request goes out with. */
export interface Capture {
  /** The request's method. */
  method: string;
  /** Receives its id. */
  onId(id: JsonRpcId): void;
}

/** One connection's state: read-only fields, written by its transitions alone. */
export interface ConnectionState {
  /** The client's validated options. */
  readonly options: ResolvedOptions;
  /** Where notifications, readiness and the end go. */
  readonly events: ConnectionEvents;
  /** Requests and `ready()` callers waiting for the connection. */
  readonly room: WaitRoom<Outgoing>;
  /** Links of connection attempts that are not current (yet). */
  readonly attemptLinks: Set<LinkHandle>;
  /** Where the state machine is. */
  readonly state: ClientState;
  /**
   * Failed connection attempts since the client was last ready (0 while ready). A link
   * lost within `STABLE_CONNECTION` ms (`clock/timer.ts`) of its handshake resumes the count from
   * before it, so the backoff and `reconnect.attempts` hold against a server that dies
   * right after each handshake.
   */
  readonly attempts: number;
  /** When connecting started (the client was created, or `reconnect()` was asked). */
  readonly startedAt: number;
  /** The last failure of the connection. */
  readonly lastError?: McpError;
  /** What requests fail with while closed. */
  readonly closedError?: McpError;
  /** The last handshake's outcome. */
  readonly negotiated?: Negotiated;
  /** The modern version the first modern handshake settled on: never downgrade from it. */
  readonly pinnedModern?: string;
  /** The ready link. */
  readonly current?: LinkHandle;
  /** The capabilities the client declared in the last handshake. */
  readonly capabilities: JsonObject;
  /** The log level for modern `_meta` (and to restore on a legacy server). */
  readonly logLevel?: LogLevel;
  /** Aborts the connect loop that runs. */
  readonly run: AbortController;
  /** A legacy session being renewed on `handle`: requests wait in the room meanwhile. */
  readonly renewal?: { readonly handle: LinkHandle; readonly done: Promise<void> };
  /** Counts renewed legacy sessions. */
  readonly sessionGeneration: number;
  /** Set around `stream`'s synchronous send, to learn the request's id. */
  readonly capture?: Capture;

  /** `handle` negotiated `outcome`: it is the current link, and the state is `ready`. */
  becomeReady(handle: LinkHandle, outcome: Negotiated): void;
  /** A connection attempt failed with `error`. */
  attemptFailed(error: McpError): void;
  /** Counts one more attempt; returns the count. */
  countAttempt(): number;
  /**
   * `handle` failed with `error`. When it was the current link it is current no more and
   * `true` comes back; otherwise nothing changes.
   */
  detach(handle: LinkHandle, error: McpError): boolean;
  /** Forgets `handle` (an attempt's link or the current one) without an error. */
  forget(handle: LinkHandle): void;
  /** The link was lost: `reconnecting` until a new one is ready. */
  lose(): void;
  /** Closed for good: by `close()` (`reason` undefined) or after giving up with `error`. */
  close(closedError: McpError, error?: McpError): void;
  /** `reconnect()`: connecting again from a clean count. */
  restart(): void;
  /** Stops the connect loop that runs and returns a new run's controller. */
  newRun(): AbortController;
  /** Stops the connect loop and forgets any renewal. */
  stopRun(): void;
  /** A renewal of `handle`'s session is under way (or returns the one that is). */
  renewing(handle: LinkHandle, renew: () => Promise<void>): Promise<void>;
  /** The renewal of `handle` ended; with `outcome` when it succeeded on the current link. */
  renewalEnded(handle: LinkHandle, outcome?: Negotiated): void;
  /** The log level for `_meta`. */
  setLogLevel(level: LogLevel): void;
  /** Learn the id of the next `method` request sent (see `takeCapture`). */
  captureNext(capture: Capture | undefined): void;
  /** The capture waiting for a `method` request, taken off (one use). */
  takeCapture(method: string): Capture | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The state of a new connection: `connecting`, with nothing negotiated.
 *
 * @param options The validated client options.
 * @param events Where notifications and the end go.
 * @returns The state.
 */
export function createConnectionState(
  options: ResolvedOptions,
  events: ConnectionEvents,
): ConnectionState {
  const count = attemptCount();
  const s: Mutable<ConnectionState> = {
    options,
    events,
    room: createWaitRoom<Outgoing>(() => s.lastError, (timeout) => notReadyText(s, timeout)),
    attemptLinks: new Set<LinkHandle>(),
    state: "connecting",
    get attempts() {
      return count.attempts;
    },
    startedAt: Date.now(),
    capabilities: {},
    run: new AbortController(),
    sessionGeneration: 0,

    becomeReady(handle, outcome) {
      s.current = handle;
      s.attemptLinks.delete(handle);
      settled(outcome);
      if (outcome.era === "modern") s.pinnedModern ??= outcome.version;
      s.state = "ready";
      count.up();
      s.lastError = undefined;
    },
    attemptFailed(error) {
      s.lastError = error;
    },
    countAttempt: () => count.failed(),
    detach(handle, error) {
      s.attemptLinks.delete(handle);
      if (handle !== s.current) return false;
      s.current = undefined;
      s.lastError = error;
      return true;
    },
    forget(handle) {
      s.attemptLinks.delete(handle);
      if (s.current === handle) s.current = undefined;
    },
    lose() {
      // A link lost before it was stable goes on counting where the attempts left off.
      count.lost();
      s.state = "reconnecting";
    },
    close(closedError, error) {
      s.state = "closed";
      s.closedError = closedError;
      if (error !== undefined) s.lastError = error;
    },
    restart() {
      s.startedAt = Date.now();
      s.state = s.negotiated ? "reconnecting" : "connecting";
      count.reset();
      s.lastError = undefined;
      s.closedError = undefined;
    },
    newRun() {
      s.run.abort();
      return s.run = new AbortController();
    },
    stopRun() {
      s.run.abort();
      s.renewal = undefined;
    },
    renewing(handle, renew) {
      if (s.renewal?.handle !== handle) s.renewal = { handle, done: renew() };
      return s.renewal.done;
    },
    renewalEnded(handle, outcome) {
      if (s.renewal?.handle === handle) s.renewal = undefined;
      if (outcome === undefined || handle !== s.current) return;
      settled(outcome);
      s.sessionGeneration++;
    },
    setLogLevel(level) {
      s.logLevel = level;
    },
    captureNext(capture) {
      s.capture = capture;
    },
    takeCapture(method) {
      const capture = s.capture;
      if (capture === undefined || capture.method !== method) return undefined;
      s.capture = undefined;
      return capture;
    },
  };
  const settled = (outcome: Negotiated) => {
    s.negotiated = outcome;
    s.capabilities = capabilitiesFor(options, outcome.era, outcome.version);
  };
  return s;
}

/** `1 attempt`, `3 attempts`. */
function attemptsText(count: number): string {
  return count === 1 ? "1 attempt" : `${count} attempts`;
}

/**
 * Why a `ready()` wait timed out, first line first: how long, how many attempts, the last
 * failure, and what the server wrote that may explain it (lines on stdout that are not
 * JSON-RPC, the stderr tail), as the transport reports it (sanitised and redacted).
 */
function notReadyText(s: ConnectionState, timeout: number): string {
  const made = s.attempts + 1;
  const handles = [...s.attemptLinks, ...(s.current === undefined ? [] : [s.current])];
  const seen = handles.map((handle) => handle.link?.diagnose?.()).find((text) => !!text);
  const last = s.lastError;
  let text = `The server was not ready within ${timeout} ms (${attemptsText(made)})`;
  if (last === undefined && seen === undefined) {
    text += ": it did not answer the handshake. If it is slow to start, raise readyTimeout; " +
      'stderr: "inherit" shows what it prints';
  }
  if (last !== undefined) text += `; the last attempt failed: ${last.message}`;
  if (seen !== undefined) text += `; ${seen}`;
  return text;
}

/**
 * The error a first connect that gave up rejects with: the last failure, said to have come
 * after `attempts` attempts over `ms` milliseconds when there was more than one.
 *
 * @param error The last failure.
 * @param attempts How many attempts were made.
 * @param ms How long connecting took.
 * @returns The error.
 */
export function lastAttemptError(error: McpError, attempts: number, ms: number): McpError {
  if (attempts <= 1) return error;
  const seconds = (ms / 1000).toFixed(1);
  return new McpError(
    `Gave up connecting after ${attemptsText(attempts)} in ${seconds} s: ${error.message}`,
    { kind: error.kind, reason: error.reason, code: error.code, data: error.data, cause: error },
  );
}

/**
 * The closed-for-good error after giving up connecting with `error`.
 *
 * @param error The last failure.
 * @returns The error requests fail with from then on.
 */
export function gaveUpError(error: McpError): McpError {
  return new McpError(`The client is closed: it gave up connecting (${error.message})`, {
    kind: "closed",
    reason: "gave_up",
    cause: error,
  });
}

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

/**
 * Counts `abort` listeners on AbortSignals: wraps `EventTarget.prototype.addEventListener`
 * and `removeEventListener` (and so `AbortSignal`'s, which inherits them) before any client
 * module loads. A listener is live from its add until its remove, until a `once` listener
 * fires, or until its signal is garbage collected. `snapshot()` forces a collection first
 * (Deno: run with `--v8-flags=--expose-gc`; Bun: `Bun.gc`), so what it reports is what
 * stays reachable — e.g. listeners piling up on one long-lived signal.
 *
 * Listeners a runtime attaches internally (`AbortSignal.any`, `fetch`) do not go through
 * these methods and are not counted (Node's undici adds public ones, Deno and Bun do not).
 * So `fetch` is wrapped too, to see how many requests share one signal: a long-lived signal
 * handed to every `fetch` is where the official client's listeners pile up under Node.
 *
 * @module
 */

import { gc, sleep } from "./_lib.ts";

type Listener = EventListenerOrEventListenerObject;

/** What is attached to one signal: listener → capture flags (1 bubble, 2 capture). */
const attached = new WeakMap<AbortSignal, Map<Listener, number>>();
/** Every signal that ever got a listener, weakly. */
const signals = new Set<WeakRef<AbortSignal>>();
/** How many `fetch` calls got each signal. */
const fetchUses = new WeakMap<AbortSignal, number>();
let maxFetchesPerSignal = 0;
let fetchesWithoutSignal = 0;
let adds = 0;
let removes = 0;
let installed = false;

function captureOf(options: boolean | AddEventListenerOptions | EventListenerOptions | undefined) {
  return (typeof options === "boolean" ? options : options?.capture === true) ? 2 : 1;
}

function drop(signal: AbortSignal, listener: Listener, flag: number): void {
  const map = attached.get(signal);
  const flags = map?.get(listener);
  if (map === undefined || flags === undefined || (flags & flag) === 0) return;
  removes++;
  if (flags === flag) map.delete(listener);
  else map.set(listener, flags & ~flag);
}

/** Installs the counting wrappers (once). */
export function installListenerCounter(): void {
  if (installed) return;
  installed = true;
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  const remove = proto.removeEventListener;
  const track = (signal: AbortSignal, listener: Listener, options: unknown) => {
    const opts = options as boolean | AddEventListenerOptions | undefined;
    const flag = captureOf(opts);
    let map = attached.get(signal);
    if (map === undefined) {
      map = new Map();
      attached.set(signal, map);
      signals.add(new WeakRef(signal));
    }
    const flags = map.get(listener) ?? 0;
    if ((flags & flag) !== 0) return;
    adds++;
    map.set(listener, flags | flag);
    if (typeof opts === "object" && opts.once === true) {
      // A once listener goes away when it fires.
      add.call(signal, "abort", () => drop(signal, listener, flag), { once: true });
    }
    const stop = typeof opts === "object" ? opts.signal : undefined;
    if (stop !== undefined) {
      // A listener added with { signal } goes away when that signal aborts.
      add.call(stop, "abort", () => drop(signal, listener, flag), { once: true });
    }
  };
  proto.addEventListener = function (
    this: EventTarget,
    type: string,
    listener: Listener | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (type === "abort" && listener !== null && this instanceof AbortSignal && !this.aborted) {
      track(this, listener, options);
    }
    return add.call(this, type, listener, options);
  };
  proto.removeEventListener = function (
    this: EventTarget,
    type: string,
    listener: Listener | null,
    options?: boolean | EventListenerOptions,
  ): void {
    if (type === "abort" && listener !== null && this instanceof AbortSignal) {
      drop(this, listener, captureOf(options));
    }
    return remove.call(this, type, listener, options);
  };
  const fetch = globalThis.fetch;
  globalThis.fetch = function (input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal === undefined || signal === null) fetchesWithoutSignal++;
    else {
      const uses = (fetchUses.get(signal) ?? 0) + 1;
      fetchUses.set(signal, uses);
      if (uses > maxFetchesPerSignal) maxFetchesPerSignal = uses;
    }
    return fetch(input, init);
  } as typeof globalThis.fetch;
}

/** The listener census after a forced collection. */
export interface ListenerSnapshot {
  /** Live listeners on signals still reachable and not aborted. */
  live: number;
  /** The most live listeners on one signal. */
  maxPerSignal: number;
  /** Signals still reachable that hold at least one live listener. */
  signals: number;
  /** Listeners added / removed so far (all signals). */
  adds: number;
  removes: number;
  /** Whether a collection could be forced (else unreachable signals may still count). */
  collected: boolean;
  /** The most `fetch` calls that were given one and the same signal. */
  maxFetchesPerSignal: number;
  /** `fetch` calls given no signal at all. */
  fetchesWithoutSignal: number;
}

/** Collects garbage (when possible) and counts live listeners. */
export async function snapshot(): Promise<ListenerSnapshot> {
  let collected = false;
  for (let i = 0; i < 3; i++) {
    await sleep(10);
    collected = gc() || collected;
  }
  await sleep(10);
  let live = 0;
  let maxPerSignal = 0;
  let holding = 0;
  for (const ref of signals) {
    const signal = ref.deref();
    if (signal === undefined) {
      signals.delete(ref);
      continue;
    }
    if (signal.aborted) continue;
    let count = 0;
    for (const flags of attached.get(signal)?.values() ?? []) count += flags === 3 ? 2 : 1;
    if (count > 0) holding++;
    live += count;
    maxPerSignal = Math.max(maxPerSignal, count);
  }
  return {
    live,
    maxPerSignal,
    signals: holding,
    adds,
    removes,
    collected,
    maxFetchesPerSignal,
    fetchesWithoutSignal,
  };
}

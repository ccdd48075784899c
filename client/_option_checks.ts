/**
 * Private: the checks of single `createClient` option values (a `TypeError` naming the key)
 * and of the nested ones: `handler`, the backoff objects `retry` and `reconnect`, and the
 * tracing options `tracer`, `meter` and `recordArguments`.
 *
 * @module
 */

import type { ClientHandler } from "../protocol/capabilities.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import type { Transport } from "../transports/transport.ts";
import { DEFAULT_MAX_RETRY_AFTER } from "../clock/timer.ts";
import type { TraceHooks } from "../tracing/hooks.ts";
import { lazyTracing } from "../tracing/lazy.ts";
import type { Backoff } from "./_async.ts";
import { isObject } from "../protocol/json.ts";
import type { ClientOptions } from "./types.ts";

/** Retry settings after validation. */
export interface ResolvedRetry extends Backoff {
  /** Retries after the first attempt. */
  attempts: number;
  /** The longest `Retry-After` the client waits for, in milliseconds. */
  maxRetryAfter: number;
}

/** Throws the `TypeError` naming the bad option. */
export function bad(key: string, what: string): never {
  throw new TypeError(`createClient: option "${key}" ${what}`);
}

/** A positive number of milliseconds (`Infinity` when allowed), or the fallback. */
export function positive(
  key: string,
  value: unknown,
  fallback: number,
  allowInfinity = false,
): number {
  if (value === undefined) return fallback;
  const ok = typeof value === "number" && value > 0 &&
    (Number.isFinite(value) || (allowInfinity && value === Infinity));
  if (!ok) bad(key, "must be a positive number of milliseconds");
  return value as number;
}

/** A boolean option (default `false`). */
export function flag(key: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") bad(key, "must be a boolean");
  return value as boolean;
}

const HANDLER_KEYS = ["sampling", "elicitation", "listRoots"];

/**
 * The `handler` option: an object of known function members; with the `elicitation` option's
 * answer rules, its `elicitation` runs them first (their module loads with the first
 * elicitation, which checks them).
 */
export function handler(
  value: unknown,
  rules?: unknown,
  client?: () => { name?: string; warn(message: string): void },
): ClientHandler | undefined {
  if (rules !== undefined) {
    return {
      ...handler(value),
      elicitation: async (params, ctx) =>
        (await import("./handler/answer_rules.ts")).default(
          rules,
          params,
          ctx,
          client!(),
          value as ClientHandler | undefined,
        ),
    };
  }
  if (value === undefined) return undefined;
  if (!isObject(value)) bad("handler", "must be an object");
  checkKeys(value, HANDLER_KEYS, 'createClient option "handler"');
  for (const key of HANDLER_KEYS) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined && typeof member !== "function") {
      bad("handler", `member "${key}" must be a function`);
    }
  }
  return value as ClientHandler;
}

/** A numeric member of an options object: its default and its range. */
type Member = [fallback: number, ok: (n: number) => boolean];

/**
 * Checks an object of numeric members (every member known, each in its range) and fills in
 * the defaults.
 */
function members<K extends string>(
  option: string,
  value: unknown,
  known: Record<K, Member>,
): Record<K, number> {
  if (value !== undefined && !isObject(value)) bad(option, "must be an object or false");
  const given = checkKeys(
    (value ?? {}) as Record<string, unknown>,
    Object.keys(known),
    `createClient option "${option}"`,
  );
  const out = {} as Record<K, number>;
  for (const [key, [fallback, ok]] of Object.entries<Member>(known)) {
    const n = given[key];
    if (n !== undefined && (typeof n !== "number" || !Number.isFinite(n) || !ok(n))) {
      bad(option, `member "${key}" is out of range`);
    }
    out[key as K] = n === undefined ? fallback : n as number;
  }
  return out;
}

/** The members of a backoff option (`retry`, `reconnect`), with their defaults. */
function backoff(attempts: number, initialDelay: number, maxDelay: number) {
  return {
    attempts: [attempts, (n) => Number.isInteger(n) && n >= 0],
    initialDelay: [initialDelay, (n) => n >= 0],
    maxDelay: [maxDelay, (n) => n >= 0],
    factor: [2, (n) => n >= 1],
    jitter: [0.2, (n) => n >= 0 && n <= 1],
  } satisfies Record<string, Member>;
}

/** The `retry` option with its defaults, or `false`. */
export function retry(value: unknown): ResolvedRetry | false {
  if (value === false) return false;
  const known = {
    ...backoff(2, 250, 5_000),
    maxRetryAfter: [DEFAULT_MAX_RETRY_AFTER, (n) => n >= 0] as Member,
  };
  return members("retry", value, known);
}

/** The `reconnect` option with its defaults, or `false`. */
export function reconnect(value: unknown): (Backoff & { attempts: number }) | false {
  if (value === false) return false;
  return members("reconnect", value, backoff(5, 200, 10_000));
}

/** The tracing of the `tracer`, `meter` and `recordArguments` options, if a tracer is given. */
export function tracing(
  options: ClientOptions,
  transport: Transport,
  warn: (message: string) => void,
): TraceHooks | undefined {
  const { tracer, meter } = options as { tracer?: unknown; meter?: unknown };
  const recordArguments = flag("recordArguments", options.recordArguments);
  if (meter !== undefined) {
    const m = meter as Record<string, unknown>;
    if (
      !isObject(meter) || typeof m.createHistogram !== "function" ||
      typeof m.createCounter !== "function"
    ) {
      bad("meter", "must be an OpenTelemetry Meter (createHistogram, createCounter)");
    }
    if (tracer === undefined) bad("meter", "needs a tracer beside it");
  }
  if (tracer === undefined) return undefined;
  if (!isObject(tracer) || typeof tracer.startSpan !== "function") {
    bad("tracer", "must be an OpenTelemetry Tracer (startSpan)");
  }
  return lazyTracing({
    tracer: options.tracer!,
    meter: options.meter,
    recordArguments,
    transport,
    warn,
  });
}

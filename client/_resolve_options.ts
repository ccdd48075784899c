/**
 * Validates `createClient` options (a `TypeError` naming the bad key) and fills in defaults.
 *
 * @module
 */

import type { ClientHandler } from "../protocol/capabilities.ts";
import type { Implementation } from "../protocol/meta.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { era, SUPPORTED_VERSIONS } from "../protocol/versions.ts";
import type { Transport } from "../transports/transport.ts";
import { DEFAULT_MAX_RETRY_AFTER } from "../clock/timer.ts";
import { memoryStore } from "../cache/memory.ts";
import type { CacheStore } from "../cache/store.ts";
import type { TraceHooks } from "../tracing/hooks.ts";
import { createTracing } from "../tracing/tracing.ts";
import type { Backoff } from "./_async.ts";
import { isObject } from "./_json.ts";
import type { ClientOptions, ProtocolChoice } from "./types.ts";

/** The client's name and version when `clientInfo` is not given. */
export const DEFAULT_CLIENT_INFO: Implementation = Object.freeze({
  name: "conduit-mcp",
  version: "0.1.0",
});

/** Options after validation, with every default filled in. */
export interface ResolvedOptions {
  /** The transport. */
  transport: Transport;
  /** The protocol choice. */
  protocol: ProtocolChoice;
  /** The offered versions, preferred first. */
  versions: string[];
  /** The client's identity. */
  clientInfo: Implementation;
  /** The input handler. */
  handler?: ClientHandler;
  /**
   * The callers of the legacy tasks being awaited, by task id: a server request tagged with a
   * task's related-task `_meta` reaches the handler with its caller's `assigns`.
   */
  taskCallers?: Map<string, { assigns?: Record<string, unknown> }>;
  /** The default request timeout. */
  requestTimeout: number;
  /** The probe timeout. */
  probeTimeout: number;
  /** Reconnect settings, or `false`. */
  reconnect: (Backoff & { attempts: number }) | false;
  /** Retries of requests answered with a retryable HTTP status, or `false`. */
  retry: ResolvedRetry | false;
  /** Let `instructionsForLlm()` return the server's instructions. */
  includeInstructions: boolean;
  /** Leave out the line naming the server in `instructionsForLlm()`. */
  trusted: boolean;
  /** Declare `sampling.tools`. */
  samplingTools: boolean;
  /** Declare `sampling.context`. */
  samplingContext: boolean;
  /** Declare `roots.listChanged` (legacy) when the handler implements `listRoots`. */
  rootsListChanged: boolean;
  /** Declare URL-mode elicitation. */
  elicitationUrl: boolean;
  /** The most `input_required` rounds one call answers. */
  maxRounds: number;
  /** The cache store (default: a memory store of this client's own). */
  cache: CacheStore;
  /** How long legacy listings without `listChanged` are kept. */
  legacyTtlMs: number;
  /** Where diagnostics go. */
  warn(message: string): void;
  /** The jitter source. */
  random(): number;
  /** The tracing, when a `tracer` is given (each call site then costs one branch). */
  trace?: TraceHooks;
}

/** Retry settings after validation. */
export interface ResolvedRetry extends Backoff {
  /** Retries after the first attempt. */
  attempts: number;
  /** The longest `Retry-After` the client waits for, in milliseconds. */
  maxRetryAfter: number;
}

const KEYS = new Set([
  "transport",
  "protocol",
  "versions",
  "clientInfo",
  "handler",
  "requestTimeout",
  "probeTimeout",
  "reconnect",
  "samplingTools",
  "samplingContext",
  "rootsListChanged",
  "elicitationUrl",
  "maxRounds",
  "onWarning",
  "retry",
  "includeInstructions",
  "trusted",
  "cache",
  "legacyTtlMs",
  "tracer",
  "meter",
  "recordArguments",
]);

function bad(key: string, what: string): never {
  throw new TypeError(`createClient: option "${key}" ${what}`);
}

function positive(key: string, value: unknown, fallback: number, allowInfinity = false): number {
  if (value === undefined) return fallback;
  const ok = typeof value === "number" && value > 0 &&
    (Number.isFinite(value) || (allowInfinity && value === Infinity));
  if (!ok) bad(key, "must be a positive number of milliseconds");
  return value as number;
}

function flag(key: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") bad(key, "must be a boolean");
  return value as boolean;
}

function rounds(value: unknown): number {
  if (value === undefined) return 8;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    bad("maxRounds", "must be a positive integer");
  }
  return value as number;
}

function versions(value: unknown): string[] {
  if (value === undefined) return [...SUPPORTED_VERSIONS];
  if (!Array.isArray(value) || value.length === 0) bad("versions", "must be a non-empty array");
  for (const version of value as unknown[]) {
    if (era(version) === "unknown") {
      bad("versions", `holds ${JSON.stringify(version)}, not a version date`);
    }
    if (!spoken(version as string)) bad("versions", unspoken(version));
  }
  if (new Set(value).size !== value.length) bad("versions", "holds a version twice");
  return [...value as string[]];
}

function protocol(value: unknown, offered: string[]): ProtocolChoice {
  if (value === undefined) return "auto";
  if (value === "auto") return value;
  if (value === "modern" || value === "legacy") {
    if (!offered.some((version) => era(version) === value)) {
      bad("versions", `offers no ${value} version for protocol "${value}"`);
    }
    return value;
  }
  if (era(value) === "unknown") {
    bad("protocol", 'must be "auto", "modern", "legacy" or a version such as "2025-11-25"');
  }
  if (!spoken(value as string)) bad("protocol", unspoken(value));
  return value as string;
}

/** A version the client speaks: one it lists, or a later modern one (same wire rules). */
function spoken(version: string): boolean {
  return SUPPORTED_VERSIONS.includes(version) || era(version) === "modern";
}

function unspoken(version: unknown): string {
  return `names ${JSON.stringify(version)}, a version the client does not speak ` +
    `(it speaks ${SUPPORTED_VERSIONS.join(", ")})`;
}

function clientInfo(value: unknown): Implementation {
  if (value === undefined) return DEFAULT_CLIENT_INFO;
  if (!isObject(value) || typeof value.name !== "string" || typeof value.version !== "string") {
    bad("clientInfo", "must be an object with string name and version");
  }
  return value as Implementation;
}

const HANDLER_KEYS = ["sampling", "elicitation", "listRoots"];

function handler(value: unknown): ClientHandler | undefined {
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

function retry(value: unknown): ResolvedOptions["retry"] {
  if (value === false) return false;
  const known = {
    ...backoff(2, 250, 5_000),
    maxRetryAfter: [DEFAULT_MAX_RETRY_AFTER, (n) => n >= 0] as Member,
  };
  return members("retry", value, known);
}

function reconnect(value: unknown): ResolvedOptions["reconnect"] {
  if (value === false) return false;
  return members("reconnect", value, backoff(5, 200, 10_000));
}

function cacheStore(value: unknown): CacheStore {
  if (value === undefined) return memoryStore();
  const methods = ["get", "set", "delete", "deletePrefix"];
  if (!isObject(value) || !methods.every((m) => typeof value[m] === "function")) {
    bad("cache", "must be a store (memoryStore(), denoKvStore(kv) or redisStore(command))");
  }
  return value as unknown as CacheStore;
}

function legacyTtl(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
    bad("legacyTtlMs", "must be a number of milliseconds (0 or more)");
  }
  return value as number;
}

/**
 * Validates options and fills in defaults.
 *
 * @param options What the caller passed.
 * @returns The resolved options.
 * @throws {TypeError} Naming the first bad key.
 */
export function resolveOptions(options: ClientOptions): ResolvedOptions {
  if (!isObject(options)) throw new TypeError("createClient: options must be an object");
  checkKeys(options, KEYS, "createClient options");
  const transport = options.transport as unknown;
  if (
    !isObject(transport) || typeof transport.open !== "function" ||
    !["stdio", "http", "in_process"].includes(transport.kind as string)
  ) {
    bad("transport", "must be a transport (stdio(…), streamableHttp(…) or inProcess(…))");
  }
  const offered = versions(options.versions);
  const onWarning = options.onWarning as unknown;
  if (onWarning !== undefined && typeof onWarning !== "function") {
    bad("onWarning", "must be a function");
  }
  const resolved: ResolvedOptions = {
    transport: transport as unknown as Transport,
    protocol: protocol(options.protocol, offered),
    versions: offered,
    clientInfo: clientInfo(options.clientInfo),
    handler: handler(options.handler),
    taskCallers: new Map(),
    requestTimeout: positive("requestTimeout", options.requestTimeout, 60_000, true),
    probeTimeout: positive("probeTimeout", options.probeTimeout, 5_000),
    reconnect: reconnect(options.reconnect),
    samplingTools: flag("samplingTools", options.samplingTools),
    samplingContext: flag("samplingContext", options.samplingContext),
    // The client can send notifications/roots/list_changed whenever it has roots to list,
    // so it declares that it may (the seed's Client page); `false` opts out.
    rootsListChanged: options.rootsListChanged === undefined
      ? true
      : flag("rootsListChanged", options.rootsListChanged),
    elicitationUrl: options.elicitationUrl === undefined
      ? true
      : flag("elicitationUrl", options.elicitationUrl),
    maxRounds: rounds(options.maxRounds),
    retry: retry(options.retry),
    includeInstructions: flag("includeInstructions", options.includeInstructions),
    trusted: flag("trusted", options.trusted),
    cache: cacheStore(options.cache),
    legacyTtlMs: legacyTtl(options.legacyTtlMs),
    warn: (message) => {
      try {
        (onWarning as ((message: string) => void) | undefined)?.(message);
      } catch {
        // A throwing warning sink must not break the client.
      }
    },
    random: Math.random,
  };
  const trace = tracing(options, transport as unknown as Transport, resolved.warn);
  if (trace !== undefined) resolved.trace = trace;
  return resolved;
}

/** The tracing of the `tracer`, `meter` and `recordArguments` options, if a tracer is given. */
function tracing(
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
  return createTracing({
    tracer: options.tracer!,
    meter: options.meter,
    recordArguments,
    transport,
    warn,
  });
}

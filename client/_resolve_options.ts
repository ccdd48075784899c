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
import type { CacheStore } from "../cache/store.ts";
import { lazyStore } from "../cache/lazy_store.ts";
import type { TraceHooks } from "../tracing/hooks.ts";
import { checkGovernanceOptions, GOVERNANCE_KEYS } from "../governance/check.ts";
import type { GovernanceOptions } from "../governance/options.ts";
import { CLIENT_OPTION_NAMES } from "./option_names.ts";
import type { Backoff } from "./_async.ts";
import { isObject } from "../protocol/json.ts";
import { shapeDefaults, type ShapeSettings } from "./shaping.ts";
import {
  bad,
  flag,
  handler,
  positive,
  reconnect,
  type ResolvedRetry,
  retry,
  tracing,
} from "./_option_checks.ts";
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
   * The callers of the legacy tasks this client started, by task id: a server request tagged
   * with a task's related-task `_meta` reaches the handler with the `assigns` and `principal`
   * of the call that started it (never of another caller awaiting the same id).
   */
  taskCallers?: Map<string, { assigns?: Record<string, unknown>; principal?: string }>;
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
  /**
   * The cache store (default: a memory store of this client's own, whose code loads with its
   * first operation).
   */
  cache: CacheStore;
  /** The store is the client's own (no `cache` option): it holds only what this client kept. */
  ownCache: boolean;
  /** How long legacy listings without `listChanged` are kept. */
  legacyTtlMs: number;
  /** Where diagnostics go. */
  warn(message: string): void;
  /** The jitter source. */
  random(): number;
  /** The tracing, when a `tracer` is given (each call site then costs one branch). */
  trace?: TraceHooks;
  /** The defaults of calls made with `shape: "llm"`: the budget and the spill setting. */
  shape: ShapeSettings;
  /** The server's name for governance, when given. */
  name?: string;
  /**
   * The governance options, checked, when any is given (decided once, here): the stages are
   * made from them when the governed methods load.
   */
  governance?: GovernanceOptions;
}

export type { ResolvedRetry } from "./_option_checks.ts";

const KEYS = new Set(CLIENT_OPTION_NAMES);

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

function cacheStore(value: unknown): CacheStore {
  if (value === undefined) {
    return lazyStore(async () => (await import("../cache/memory.ts")).memoryStore(), true);
  }
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
  const profile = options.profile as unknown;
  if (profile !== undefined) {
    if (typeof profile !== "string" || profile === "") bad("profile", "must be a non-empty string");
    const own = (transport as { profile?: unknown }).profile;
    if (own !== undefined && own !== profile) {
      bad("profile", `differs from the transport's OAuth profile "${String(own)}"`);
    }
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
    // The answer rules are checked, and loaded, with the first elicitation.
    handler: handler(options.handler, options.elicitation, () => resolved),
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
    ownCache: options.cache === undefined,
    legacyTtlMs: legacyTtl(options.legacyTtlMs),
    warn: (message) => {
      try {
        // Without onWarning, warnings go to stderr (console.warn): the client is not silent.
        if (onWarning === undefined) console.warn(`@conduit/mcp: ${message}`);
        else (onWarning as (message: string) => void)(message);
      } catch {
        // A throwing warning sink must not break the client.
      }
    },
    random: Math.random,
    shape: shapeDefaults(options.shape),
  };
  const trace = tracing(options, transport as unknown as Transport, resolved.warn);
  if (trace !== undefined) resolved.trace = trace;
  if (options.name !== undefined) {
    if (typeof options.name !== "string" || options.name === "") {
      bad("name", "must be a non-empty string");
    }
    resolved.name = options.name;
  }
  if (GOVERNANCE_KEYS.some((key) => (options as Record<string, unknown>)[key] !== undefined)) {
    const { tools, validate, policy, hooks, pin } = options;
    const governance = {
      tools,
      validate,
      policy,
      hooks,
      pin,
      store: resolved.cache,
      warn: resolved.warn,
    };
    checkGovernanceOptions(governance as Record<string, unknown>);
    resolved.governance = governance;
  }
  return resolved;
}

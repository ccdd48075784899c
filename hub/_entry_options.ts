/**
 * Private: the hub's options checked (`checkHubOptions`, before any client starts), and the
 * hub's own keys of a server entry (`start`, `idleMs`, `alwaysLoad`), checked and taken off
 * before the rest becomes the server's client options.
 *
 * @module
 */

import type { CacheStore } from "../cache/store.ts";
import { shapeDefaults, type ShapeSettings } from "../client/shaping.ts";
import { checkMaxChars } from "../governance/shape.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import type { Backoff } from "./_member.ts";
import { clientOptionsFor } from "./_target.ts";
import type {
  HubEntryOptions,
  HubOptions,
  HubReconnectOptions,
  HubServer,
  HubStart,
} from "./types.ts";

/** The keys of an entry the hub reads itself. */
export const ENTRY_KEYS: readonly string[] = ["start", "idleMs", "alwaysLoad"];

/**
 * Checks a `start` value.
 *
 * @param value The value.
 * @param where The option's name, for the error.
 * @returns The value.
 * @throws {TypeError} When it is not `"eager"` or `"lazy"`.
 */
export function checkStart(value: unknown, where: string): HubStart | undefined {
  if (value === undefined || value === "eager" || value === "lazy") return value;
  throw new TypeError(`${where} must be "eager" or "lazy"`);
}

/**
 * Checks an `idleMs` value.
 *
 * @param value The value.
 * @param where The option's name, for the error.
 * @returns The value.
 * @throws {TypeError} When it is not a positive number (or `Infinity`).
 */
export function checkIdle(value: unknown, where: string): number | undefined {
  if (value === undefined || (typeof value === "number" && value > 0)) return value;
  throw new TypeError(`${where} must be a positive number of milliseconds (or Infinity)`);
}

/**
 * Splits an entry into the hub's keys and what goes to the client.
 *
 * @param name The server's name.
 * @param entry The entry.
 * @returns The hub's keys (checked) and the entry without them.
 * @throws {TypeError} Naming the server and the bad key.
 */
export function splitEntry(
  name: string,
  entry: HubServer,
): { own: HubEntryOptions; entry: HubServer } {
  if (typeof entry !== "object" || entry === null || entry instanceof URL || "open" in entry) {
    return { own: {}, entry };
  }
  const record = entry as unknown as Record<string, unknown>;
  if (!ENTRY_KEYS.some((key) => key in record)) return { own: {}, entry };
  const { start, idleMs, alwaysLoad, ...rest } = record;
  const where = `hub servers.${name}`;
  const own: HubEntryOptions = {};
  const checkedStart = checkStart(start, `${where}.start`);
  if (checkedStart !== undefined) own.start = checkedStart;
  const checkedIdle = checkIdle(idleMs, `${where}.idleMs`);
  if (checkedIdle !== undefined) own.idleMs = checkedIdle;
  if (alwaysLoad !== undefined) {
    const ok = typeof alwaysLoad === "boolean" ||
      (Array.isArray(alwaysLoad) && alwaysLoad.every((n) => typeof n === "string" && n !== ""));
    if (!ok) {
      throw new TypeError(`${where}.alwaysLoad must be true, false or an array of tool names`);
    }
    own.alwaysLoad = alwaysLoad as boolean | string[];
  }
  return { own, entry: rest as unknown as HubServer };
}

/** The hub's own options' keys. */
const KEYS = [
  "servers",
  "prefix",
  "separator",
  "lazy",
  "reconnect",
  "governance",
  "onWarning",
  "start",
  "idleMs",
  "cache",
  "catalogueTtlMs",
  "alwaysLoad",
  "shape",
];
/** How long a lazily started server stays up without calls, unless told. */
export const DEFAULT_IDLE_MS = 300_000;
/** How long a stored catalogue is used before its server is asked again, unless told. */
export const DEFAULT_CATALOGUE_TTL_MS = 86_400_000;
const BACKOFF: Backoff = {
  attempts: Infinity,
  initialDelay: 1_000,
  maxDelay: 30_000,
  factor: 2,
  jitter: 0.2,
};

function backoffOf(value: HubReconnectOptions | false | undefined): Backoff | false {
  if (value === false) return false;
  if (value === undefined) return BACKOFF;
  if (typeof value !== "object" || value === null) {
    throw new TypeError("hub reconnect must be an object or false");
  }
  checkKeys(value, Object.keys(BACKOFF), "hub reconnect options");
  const resolved = { ...BACKOFF, ...value };
  for (const key of Object.keys(BACKOFF) as (keyof Backoff)[]) {
    const n = resolved[key];
    if (typeof n !== "number" || Number.isNaN(n) || n < 0) {
      throw new TypeError(`hub reconnect.${key} must be a number >= 0`);
    }
  }
  if (resolved.jitter > 1) throw new TypeError("hub reconnect.jitter must be between 0 and 1");
  return resolved;
}

function checkStore(value: unknown): CacheStore | undefined {
  if (value === undefined) return undefined;
  const store = value as Record<string, unknown>;
  if (
    typeof value !== "object" || value === null || typeof store.get !== "function" ||
    typeof store.set !== "function" || typeof store.delete !== "function"
  ) {
    throw new TypeError("hub cache must be a store (memoryStore(), denoKvStore(kv), …)");
  }
  return value as CacheStore;
}

function checkNames(value: unknown, where: string): Set<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value) || !value.every((n) => typeof n === "string" && n !== "")) {
    throw new TypeError(`${where} must be an array of server or tool names`);
  }
  return new Set(value);
}

/**
 * A server's error as the hub reports it: a `TypeError` names the server (once).
 *
 * @param name The server's name.
 * @param error The error.
 * @returns The error to throw.
 */
export function namedError(name: string, error: unknown): unknown {
  if (!(error instanceof TypeError) || error.message.startsWith("hub servers.")) return error;
  return new TypeError(`hub servers.${name}: ${error.message}`);
}

/** One server of the hub, its entry checked. */
export interface PlannedServer {
  /** Its name. */
  name: string;
  /** The hub's keys of its entry. */
  own: HubEntryOptions;
  /** Its client's options (with its transport), named. */
  options: ReturnType<typeof clientOptionsFor> & { name: string };
}

/** The hub's options, checked, with their defaults. */
export interface HubSettings {
  /** Every server, in declaration order. */
  planned: PlannedServer[];
  /** Each server's `maxResultChars`. */
  budgets: Map<string, number>;
  /** Whether names are prefixed, and the separator. */
  prefix: boolean;
  separator: string;
  /** Whether the hub lists the meta-tools. */
  lazy: boolean;
  /** When a server without its own `start` starts. */
  start: HubStart;
  /** The idle timeout of lazy servers. */
  idleMs: number;
  /** The stored catalogues' ttl. */
  ttlMs: number;
  /** The store for catalogues, when given. */
  cache: CacheStore | undefined;
  /** Servers and tools kept in the lazy listing. */
  alwaysLoad: Set<string>;
  /** Where warnings go (stderr without `onWarning`). */
  warn(message: string): void;
  /** The restart backoff, or `false`. */
  backoff: Backoff | false;
  /** The hub's `shape` defaults. */
  shape: ShapeSettings;
}

/**
 * Checks a hub's options and every server entry, before any client starts.
 *
 * @param options The options.
 * @returns The settings.
 * @throws {TypeError} Naming the bad option, or the server and its bad key.
 */
export function checkHubOptions(options: HubOptions): HubSettings {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("hub options must be an object");
  }
  checkKeys(options, KEYS, "hub options");
  const { servers, prefix = true, separator = "__", lazy = false, onWarning } = options;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new TypeError("hub servers must be an object of servers by name");
  }
  if (typeof separator !== "string" || separator === "") {
    throw new TypeError("hub separator must be a non-empty string");
  }
  if (onWarning !== undefined && typeof onWarning !== "function") {
    throw new TypeError("hub onWarning must be a function");
  }
  const start = checkStart(options.start, "hub start") ?? (lazy ? "lazy" : "eager");
  const idleMs = checkIdle(options.idleMs, "hub idleMs") ?? DEFAULT_IDLE_MS;
  const ttlMs = checkIdle(options.catalogueTtlMs, "hub catalogueTtlMs") ??
    DEFAULT_CATALOGUE_TTL_MS;
  const cache = checkStore(options.cache);
  const alwaysLoad = checkNames(options.alwaysLoad, "hub alwaysLoad");
  // As a client's: without onWarning, warnings go to stderr.
  const warn = onWarning ?? ((message: string) => console.warn(`@conduit/mcp: ${message}`));
  const backoff = backoffOf(options.reconnect);
  const shape = shapeDefaults(options.shape, "hub");
  const budgets = new Map<string, number>();
  const planned = Object.entries(servers).map(([name, given]): PlannedServer => {
    if (name === "") throw new TypeError("hub servers: a server name must not be empty");
    try {
      const { own, entry } = splitEntry(name, given);
      // Each server's own governance sees its hub name as `ctx.server`.
      const { maxResultChars, ...clientOptions } = clientOptionsFor(name, entry) as
        & ReturnType<typeof clientOptionsFor>
        & { maxResultChars?: unknown };
      if (maxResultChars !== undefined) {
        budgets.set(name, checkMaxChars(maxResultChars, `hub servers.${name}.maxResultChars`));
      }
      return { name, own, options: { name, ...clientOptions } };
    } catch (error) {
      throw namedError(name, error);
    }
  });
  // `a` and `a__b` would both claim `a__b__c`: a prefixed name must have one server.
  // (Each name's heads before a separator are looked up, not every pair of names compared.)
  const names = new Set(planned.map((p) => p.name));
  for (const { name: shadowedName } of planned) {
    for (
      let at = shadowedName.indexOf(separator);
      at !== -1;
      at = shadowedName.indexOf(separator, at + 1)
    ) {
      const name = shadowedName.slice(0, at);
      if (at > 0 && names.has(name)) {
        throw new TypeError(
          `hub servers.${shadowedName}: a server name must not begin with another's ("${name}") and the separator "${separator}"`,
        );
      }
    }
  }
  return {
    planned,
    budgets,
    prefix: prefix !== false,
    separator,
    lazy,
    start,
    idleMs,
    ttlMs,
    cache,
    alwaysLoad,
    warn,
    backoff,
    shape,
  };
}

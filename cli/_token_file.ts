/**
 * Where `login` keeps OAuth tokens: one JSON file (`tokens.json`, mode 0600) under the
 * user's config directory, read and written through the library's `kvTokenStore` (the file
 * is a small key-value store). The directory is `$CONDUIT_MCP_CONFIG_DIR`, else
 * `$XDG_CONFIG_HOME/conduit-mcp`, else `~/.config/conduit-mcp`.
 *
 * @module
 */

import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type KvKeyPart, type KvLike, kvTokenStore, type TokenStore } from "../oauth/mod.ts";

/**
 * The CLI's config directory, from the environment.
 *
 * @example
 * ```ts
 * import { configDir } from "./_token_file.ts";
 *
 * const env: Record<string, string> = { HOME: "/home/ada", XDG_CONFIG_HOME: "/cfg" };
 * if (configDir((n) => env[n]) !== "/cfg/conduit-mcp") throw new Error();
 * ```
 */
export function configDir(env: (name: string) => string | undefined): string {
  const dir = findConfigDir(env);
  if (dir === undefined) throw new TypeError("no home directory: set CONDUIT_MCP_CONFIG_DIR");
  return dir;
}

/** The CLI's config directory, or `undefined` where the environment names none. */
export function findConfigDir(env: (name: string) => string | undefined): string | undefined {
  const own = env("CONDUIT_MCP_CONFIG_DIR");
  if (own) return own;
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg) return join(xdg, "conduit-mcp");
  const home = env("HOME") ?? env("USERPROFILE");
  return home ? join(home, ".config", "conduit-mcp") : undefined;
}

interface Entry {
  value: unknown;
  expiresAt?: number;
}

/** A key-value file: every call reads it, every write replaces it atomically. */
export interface KvFile extends KvLike {
  /** Every key and value that has not expired. */
  entries(): [KvKeyPart[], unknown][];
}

/** The key-value file at `path` (created on the first write, mode 0600). */
export function kvFile(path: string, now: () => number = Date.now): KvFile {
  const load = (): Record<string, Entry> => {
    try {
      const data = JSON.parse(readFileSync(path, "utf8"));
      return typeof data === "object" && data !== null ? data : {};
    } catch {
      return {};
    }
  };
  const save = (data: Record<string, Entry>) => {
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    writeFileSync(temp, JSON.stringify(data, null, 2) + "\n", { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  };
  const live = (entry: Entry | undefined) =>
    entry !== undefined && (entry.expiresAt === undefined || entry.expiresAt > now());
  return {
    get(key) {
      const entry = load()[JSON.stringify(key)];
      return Promise.resolve({ value: live(entry) ? entry!.value : null });
    },
    set(key, value, options) {
      const data = load();
      const entry: Entry = { value };
      if (options?.expireIn !== undefined) entry.expiresAt = now() + options.expireIn;
      data[JSON.stringify(key)] = entry;
      save(data);
      return Promise.resolve();
    },
    delete(key) {
      const data = load();
      if (delete data[JSON.stringify(key)]) save(data);
      return Promise.resolve();
    },
    entries() {
      return Object.entries(load()).filter(([, entry]) => live(entry)).map((
        [key, entry],
      ) => [JSON.parse(key) as KvKeyPart[], entry.value]);
    },
  };
}

/** Whom stored tokens name (never the tokens themselves). */
export interface StoredAccount {
  /** The authorization server. */
  issuer: string;
  /** The account (`sub`), when the tokens said. */
  subject?: string;
  /** The client the tokens were issued to. */
  clientId?: string;
  /** The granted scopes. */
  scope?: string;
  /** When the access token expires (ms since the epoch). */
  expiresAt?: number;
  /** Whether a refresh token is kept (a later command can renew the access token). */
  refreshable: boolean;
}

/** The token file and its store. */
export interface TokenFile {
  /** The library's token store over the file. */
  store: TokenStore;
  /** Whether tokens for the server at `url` (and `profile`) are stored. */
  has(url: URL, profile?: string): boolean;
  /** Forgets the tokens for the server at `url` (and `profile`); returns how many sets went. */
  forget(url: URL, profile?: string): Promise<number>;
  /** The accounts stored for the server at `url` (and `profile`). */
  accounts(url: URL, profile?: string): StoredAccount[];
}

const PREFIX = ["conduit_mcp", "oauth"];

/** Whether a stored token's `resource` is the server at `url` (same origin and path). */
function sameServer(resource: unknown, url: URL): boolean {
  if (typeof resource !== "string") return false;
  try {
    const r = new URL(resource);
    const path = (p: string) => p.replace(/\/+$/, "");
    return r.origin === url.origin && path(r.pathname) === path(url.pathname);
  } catch {
    return false;
  }
}

/**
 * The token file under `dir`.
 *
 * @param dir The config directory.
 * @returns The store and its helpers.
 */
export function tokenFile(dir: string): TokenFile {
  const file = kvFile(join(dir, "tokens.json"));
  const store = kvTokenStore(file, { prefix: PREFIX });
  // Keys: [...PREFIX, "tokens", principal, issuer, resource] and, for a profile,
  // [..., "profile", name].
  const base = PREFIX.length + 4;
  const matches = (key: KvKeyPart[], url: URL, profile: string | undefined) =>
    key[PREFIX.length] === "tokens" && sameServer(key[base - 1], url) &&
    (profile === undefined
      ? key.length === base
      : key.length === base + 2 && key[base] === "profile" && key[base + 1] === profile);
  const tokenEntries = (url: URL, profile: string | undefined) =>
    file.entries().filter(([key]) => matches(key, url, profile));
  return {
    store,
    has: (url, profile) => tokenEntries(url, profile).length > 0,
    async forget(url, profile) {
      const entries = tokenEntries(url, profile);
      for (const [key] of entries) await file.delete(key);
      return entries.length;
    },
    accounts: (url, profile) =>
      tokenEntries(url, profile).map(([, value]) => {
        const t = (typeof value === "object" && value !== null ? value : {}) as Record<
          string,
          unknown
        >;
        const text = (v: unknown) => typeof v === "string" ? v : undefined;
        const account: StoredAccount = {
          issuer: text(t.issuer) ?? "",
          refreshable: typeof t.refreshToken === "string",
        };
        if (text(t.subject) !== undefined) account.subject = text(t.subject);
        if (text(t.clientId) !== undefined) account.clientId = text(t.clientId);
        if (text(t.scope) !== undefined) account.scope = text(t.scope);
        if (typeof t.expiresAt === "number") account.expiresAt = t.expiresAt;
        return account;
      }),
  };
}

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
  const own = env("CONDUIT_MCP_CONFIG_DIR");
  if (own) return own;
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg) return join(xdg, "conduit-mcp");
  const home = env("HOME") ?? env("USERPROFILE");
  if (!home) throw new TypeError("no home directory: set CONDUIT_MCP_CONFIG_DIR");
  return join(home, ".config", "conduit-mcp");
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

/** The token file and its store. */
export interface TokenFile {
  /** The library's token store over the file. */
  store: TokenStore;
  /** Whether tokens for the server at `url` are stored. */
  has(url: URL): boolean;
  /** Forgets the tokens for the server at `url`; returns how many sets were removed. */
  forget(url: URL): Promise<number>;
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
  const tokenKeys = (url: URL) =>
    file.entries().map(([key]) => key).filter((key) =>
      key.length === PREFIX.length + 4 && key[PREFIX.length] === "tokens" &&
      sameServer(key[key.length - 1], url)
    );
  return {
    store,
    has: (url) => tokenKeys(url).length > 0,
    async forget(url) {
      const keys = tokenKeys(url);
      for (const key of keys) await file.delete(key);
      return keys.length;
    },
  };
}

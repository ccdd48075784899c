/**
 * The CLI's catalogue store: the library's store contract over one JSON file in the config
 * directory (`catalogues.json`, mode 0600), read once per run and replaced atomically on
 * each write, so `conduit-mcp search` answers from the catalogues an earlier run learnt.
 *
 * @module
 */

import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { CacheStore } from "../mod.ts";

interface Entry {
  /** The value. */
  v: unknown;
  /** Expiry (epoch ms), absent for never. */
  e?: number;
}

const keyOf = (key: readonly string[]) => JSON.stringify(key);

/**
 * The store over the file at `path`.
 *
 * @param path The file (created on the first write).
 * @returns The store.
 *
 * @example
 * ```ts ignore
 * const store = catalogueFile("/tmp/catalogues.json");
 * await store.set(["a"], { n: 1 }, 60_000);
 * ```
 */
export function catalogueFile(path: string): CacheStore {
  let data: Record<string, Entry> | undefined;
  const load = () => {
    if (data !== undefined) return data;
    try {
      const read = JSON.parse(readFileSync(path, "utf8"));
      data = typeof read === "object" && read !== null && !Array.isArray(read) ? read : {};
    } catch {
      data = {};
    }
    return data!;
  };
  const save = () => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const temp = `${path}.${crypto.randomUUID()}.tmp`;
    writeFileSync(temp, JSON.stringify(load()), { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  };
  return {
    get(key) {
      const entry = load()[keyOf(key)];
      const live = entry !== undefined && (entry.e === undefined || entry.e > Date.now());
      return Promise.resolve(live ? entry.v : undefined);
    },
    set(key, value, ttlMs) {
      load()[keyOf(key)] = ttlMs === Infinity ? { v: value } : { v: value, e: Date.now() + ttlMs };
      save();
      return Promise.resolve();
    },
    delete(key) {
      if (delete load()[keyOf(key)]) save();
      return Promise.resolve();
    },
    deletePrefix(prefix) {
      const all = load();
      for (const key of Object.keys(all)) {
        const parts = JSON.parse(key) as string[];
        if (prefix.every((part, i) => parts[i] === part)) delete all[key];
      }
      save();
      return Promise.resolve();
    },
  };
}

// A Deno KV file for a test (under Deno), or under Bun, which has no Deno KV, a stand-in
// over a map with KV's value-size limit: the same store code runs over either.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CacheKvLike } from "../../cache/deno_kv.ts";

/**
 * Runs `use` with a Deno KV file (removed after), or a stand-in under Bun.
 *
 * @param use What to run; told which it was given.
 */
export async function withKv(
  use: (kv: CacheKvLike, kind: "deno kv" | "kv stand-in") => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "conduit-kv-"));
  const deno = (globalThis as {
    Deno?: { openKv?: (path: string) => Promise<CacheKvLike & { close(): void }> };
  }).Deno;
  try {
    if (typeof deno?.openKv === "function") {
      const kv = await deno.openKv(join(dir, "test.db"));
      try {
        await use(kv, "deno kv");
      } finally {
        kv.close();
      }
      return;
    }
    const map = new Map<string, { key: string[]; value: unknown }>();
    await use({
      get: (key) => Promise.resolve({ value: map.get(JSON.stringify(key))?.value ?? null }),
      set(key, value) {
        if (JSON.stringify(value).length > 65_536) throw new Error("value too large");
        map.set(JSON.stringify(key), { key, value });
        return Promise.resolve();
      },
      delete: (key) => Promise.resolve(void map.delete(JSON.stringify(key))),
      list: async function* ({ prefix }) {
        for (const { key } of map.values()) {
          if (prefix.every((part, i) => key[i] === part)) yield { key };
        }
      },
    }, "kv stand-in");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Spilled results over the one store contract ({@linkcode CacheStore}): a result too big for
 * a model's budget is kept whole, in chunks, under an owner (a digest of the caller's
 * identity) and an unguessable handle. Any store works (memory, Deno KV, Redis, a folder of
 * files); chunks stay under Deno KV's value limit, and each is written on its own, so a big
 * result is never serialised in one piece.
 *
 * Keys: `["spill", "v1", owner, handle, "m"]` (what the result is, and when it expires) and
 * `["spill", "v1", owner, handle, kind, i]` (chunk `i` of the text, `t`, or of the JSON,
 * `j`). The entry naming the result outlives its chunks by a while, so a read after the
 * expiry says it expired instead of not found. A handle read under another owner finds
 * nothing: it is `not_found`, as a handle never given.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { CacheKey, CacheStore } from "./store.ts";

/** Characters per chunk: under Deno KV's 64 KiB value limit even for two-byte text. */
export const CHUNK_CHARS = 30_000;
/** How long a spilled result is kept unless told (one hour). */
export const DEFAULT_SPILL_TTL = 60 * 60 * 1000;
/** The largest result kept unless told (64 MiB of text). */
export const DEFAULT_SPILL_BYTES = 64 * 1024 * 1024;
/** How long after its expiry a result still says it expired (one day). */
const EXPIRED_NOTE = 24 * 60 * 60 * 1000;

/** What the entry of a spilled result holds. */
export interface SpillMeta {
  /** The owner's digest (checked again on read). */
  owner: string;
  /** The length of the text. */
  total: number;
  /** The length of the JSON text (0: none). */
  jsonTotal: number;
  /** When it expires (ms since the epoch). */
  expiresAt: number;
}

/** The result store of a client or hub. */
export interface SpillStore {
  /** Keeps `text` (and `json`, the JSON text `jsonPath` reads) under `owner` and `handle`. */
  put(
    owner: string,
    handle: string,
    text: string,
    json: string | undefined,
    ttlMs?: number,
  ): Promise<boolean>;
  /**
   * The entry of a handle.
   *
   * @throws {McpError} kind `not_found`: reason `unknown_result` (none under this owner) or
   *   `result_expired`.
   */
  meta(owner: string, handle: string): Promise<SpillMeta>;
  /** Characters `from` to `to` of the text (`t`) or the JSON text (`j`). */
  slice(owner: string, handle: string, kind: "t" | "j", from: number, to: number): Promise<string>;
  /** The most characters kept for one result. */
  readonly maxChars: number;
}

/** Settings of {@linkcode createSpillStore}. */
export interface SpillStoreOptions {
  /** How long a result is kept. */
  ttlMs: number;
  /** The largest result kept (text and JSON, in characters). */
  maxBytes: number;
  /** The clock. */
  now?: () => number;
}

/**
 * A new handle: `rs_` and 128 random bits, base64url.
 *
 * @returns The handle.
 */
export function newHandle(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return "rs_" + btoa(text).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/**
 * Whether a value has the form of a handle (anything else is refused before a lookup).
 *
 * @param value The value.
 * @returns Whether it does.
 */
export function isHandle(value: unknown): value is string {
  return typeof value === "string" && /^rs_[A-Za-z0-9_-]{22}$/.test(value);
}

function notFound(): McpError {
  return new McpError("No result is kept under this handle for this caller", {
    kind: "not_found",
    reason: "unknown_result",
  });
}

/**
 * A result store over `store`.
 *
 * @param store The store.
 * @param options The lifetime and the size bound.
 * @returns The result store.
 */
export function createSpillStore(store: CacheStore, options: SpillStoreOptions): SpillStore {
  const now = options.now ?? Date.now;
  const key = (owner: string, handle: string, ...rest: string[]): CacheKey => [
    "spill",
    "v1",
    owner,
    handle,
    ...rest,
  ];
  const writeChunks = async (
    owner: string,
    handle: string,
    kind: string,
    text: string,
    ttl: number,
  ) => {
    for (let i = 0, at = 0; at < text.length; i++, at += CHUNK_CHARS) {
      await store.set(key(owner, handle, kind, String(i)), text.slice(at, at + CHUNK_CHARS), ttl);
    }
  };
  return {
    maxChars: options.maxBytes,
    async put(owner, handle, text, json, ttl = options.ttlMs) {
      if (text.length + (json?.length ?? 0) > options.maxBytes) return false;
      const meta: SpillMeta = {
        owner,
        total: text.length,
        jsonTotal: json?.length ?? 0,
        expiresAt: now() + ttl,
      };
      await writeChunks(owner, handle, "t", text, ttl);
      if (json !== undefined) await writeChunks(owner, handle, "j", json, ttl);
      // Written last: a result is readable only once whole.
      await store.set(key(owner, handle, "m"), meta, ttl + EXPIRED_NOTE);
      return true;
    },
    async meta(owner, handle) {
      const found = await store.get(key(owner, handle, "m")) as SpillMeta | undefined;
      if (typeof found !== "object" || found === null || found.owner !== owner) throw notFound();
      if (now() >= found.expiresAt) {
        throw new McpError("The result kept under this handle has expired", {
          kind: "not_found",
          reason: "result_expired",
        });
      }
      return found;
    },
    async slice(owner, handle, kind, from, to) {
      let out = "";
      const first = Math.floor(from / CHUNK_CHARS);
      for (let i = first; i * CHUNK_CHARS < to; i++) {
        const chunk = await store.get(key(owner, handle, kind, String(i)));
        if (typeof chunk !== "string") {
          throw new McpError("Part of the result kept under this handle is gone from its store", {
            kind: "not_found",
            reason: "result_expired",
          });
        }
        const at = i * CHUNK_CHARS;
        out += chunk.slice(Math.max(0, from - at), Math.max(0, to - at));
      }
      return out;
    },
  };
}

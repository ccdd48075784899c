/**
 * Spilled results over the one store contract ({@linkcode CacheStore}): a result too big for
 * a model's budget is kept whole, in chunks, under an owner (a digest of the caller's
 * identity) and an unguessable handle. Any store works (memory, Deno KV, Redis, a folder of
 * files); chunks stay under Deno KV's value limit, and each is written on its own, so a big
 * result is never serialised in one piece.
 *
 * Keys: `["spill", "v1", owner, handle, "m"]` (what the result is, and when it expires) and
 * `["spill", "v1", owner, handle, kind, i]` (chunk `i` of the text, `t`, of the JSON, `j`,
 * or of media block `n`'s base64 data, `m<n>`). A result is given in pieces of any size and
 * written a chunk at a time as the pieces come, so the whole text is never one string: each
 * piece (or a slice of a long one) is a chunk as it came, never joined to its neighbours and
 * cut again (a copy), and the entry lists the chunks' lengths unless they are all
 * {@linkcode CHUNK_CHARS} characters (a text given in one piece); JSON that sits whole in
 * the text is not written twice (the entry says where it is). The entry naming the result
 * outlives its chunks by a while, so a read after the expiry says it expired instead of not
 * found. A handle read under another owner finds nothing: it is `not_found`, as a handle
 * never given.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { CacheKey, CacheStore } from "./store.ts";

/** Characters per chunk: under Deno KV's 64 KiB value limit even for two-byte text. */
export const CHUNK_CHARS = 30_000;
/**
 * Pieces (and tails of long pieces) shorter than this are joined before they are written:
 * every chunk but the last then holds at least this many characters, so a result of
 * {@linkcode DEFAULT_SPILL_BYTES} has at most 8 194 chunks (text and JSON), whose lengths
 * fit in one entry under Deno KV's 64 KiB value limit.
 */
const SMALL_CHARS = 8 * 1024;
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
  /** Where the JSON text sits in the text, when it is not kept apart (`j`). */
  jsonAt?: number;
  /**
   * The length of each chunk of the text (`t`) or the JSON text (`j`), when they are not all
   * `CHUNK_CHARS` characters (pieces written as they came); absent: every `CHUNK_CHARS`.
   */
  chunks?: { t?: number[]; j?: number[] };
  /** The length of each media block's base64 data (`m0`, `m1`, …). */
  media?: number[];
  /** When it expires (ms since the epoch). */
  expiresAt: number;
}

/** What a spilled result keeps, each part in pieces of any size. */
export interface SpillParts {
  /** The uncut text. */
  text: Iterable<string>;
  /**
   * The JSON text `jsonPath` reads: in pieces (kept apart, `j`), or where it sits in the
   * text and how long it is.
   */
  json?: Iterable<string> | { at: number; length: number };
  /** Each media block's base64 data. */
  media?: readonly string[];
  /** The characters of all the parts (checked against the bound before anything is written). */
  size: number;
}

/** The result store of a client or hub. */
export interface SpillStore {
  /**
   * Keeps `parts` under `owner` and `handle`, a chunk at a time.
   *
   * @returns `false` (and nothing kept) when they are over the store's bound.
   */
  put(owner: string, handle: string, parts: SpillParts, ttlMs?: number): Promise<boolean>;
  /**
   * The entry of a handle.
   *
   * @throws {McpError} kind `not_found`: reason `unknown_result` (none under this owner) or
   *   `result_expired`.
   */
  meta(owner: string, handle: string): Promise<SpillMeta>;
  /** Characters `from` to `to` of the text (`t`), the JSON text (`j`) or a media block's data. */
  slice(owner: string, handle: string, kind: SpillPart, from: number, to: number): Promise<string>;
  /** The most characters kept for one result. */
  readonly maxChars: number;
}

/** A kept part: the text, the JSON text kept apart, or media block `n`'s data. */
export type SpillPart = "t" | "j" | `m${number}`;

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
  // Pieces of any size written as chunks of at most CHUNK_CHARS, each a piece or a slice of
  // one (a piece is never joined to its neighbours and cut again, which would copy it);
  // only pieces (or tails) shorter than SMALL_CHARS are joined, to each other or to the head
  // of the next. The chunks' lengths are returned when they are not all CHUNK_CHARS (those of
  // a text given in one piece are).
  const writeChunks = async (
    owner: string,
    handle: string,
    kind: string,
    pieces: Iterable<string>,
    ttl: number,
  ): Promise<{ total: number; chunks?: number[] }> => {
    const lengths: number[] = [];
    let total = 0;
    let grid = true;
    const write = async (chunk: string) => {
      if (lengths.length > 0 && lengths[lengths.length - 1] !== CHUNK_CHARS) grid = false;
      await store.set(key(owner, handle, kind, String(lengths.length)), chunk, ttl);
      total += chunk.length;
      lengths.push(chunk.length);
    };
    let small = "";
    for (const piece of pieces) {
      if (piece.length < SMALL_CHARS) {
        small += piece;
        if (small.length >= SMALL_CHARS) {
          await write(small);
          small = "";
        }
        continue;
      }
      let at = 0;
      if (small !== "") {
        at = Math.min(piece.length, CHUNK_CHARS - small.length);
        await write(small + piece.slice(0, at));
        small = "";
      }
      for (; at < piece.length; at += CHUNK_CHARS) {
        if (at > 0 && piece.length - at < SMALL_CHARS) {
          small = piece.slice(at); // a short tail: joined to what comes next
          break;
        }
        await write(
          at === 0 && piece.length <= CHUNK_CHARS ? piece : piece.slice(at, at + CHUNK_CHARS),
        );
      }
    }
    if (small !== "") await write(small);
    return grid ? { total } : { total, chunks: lengths };
  };
  const spill: SpillStore = {
    maxChars: options.maxBytes,
    async put(owner, handle, parts, ttl = options.ttlMs) {
      if (parts.size > options.maxBytes) return false;
      const text = await writeChunks(owner, handle, "t", parts.text, ttl);
      const meta: SpillMeta = { owner, total: text.total, jsonTotal: 0, expiresAt: now() + ttl };
      if (text.chunks !== undefined) meta.chunks = { t: text.chunks };
      const json = parts.json;
      if (json !== undefined && Symbol.iterator in json) {
        const written = await writeChunks(owner, handle, "j", json as Iterable<string>, ttl);
        meta.jsonTotal = written.total;
        if (written.chunks !== undefined) meta.chunks = { ...meta.chunks, j: written.chunks };
      } else if (json !== undefined) {
        const { at, length } = json as { at: number; length: number };
        Object.assign(meta, { jsonAt: at, jsonTotal: length });
      }
      if (parts.media !== undefined && parts.media.length > 0) {
        meta.media = [];
        for (const [n, data] of parts.media.entries()) {
          meta.media.push((await writeChunks(owner, handle, `m${n}`, [data], ttl)).total);
        }
      }
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
      const meta = kind === "t" || kind === "j" ? await spill.meta(owner, handle) : undefined;
      if (kind === "j" && meta?.jsonAt !== undefined) {
        return await spill.slice(owner, handle, "t", meta.jsonAt + from, meta.jsonAt + to);
      }
      const lengths = kind === "t" || kind === "j" ? meta?.chunks?.[kind] : undefined;
      const ends = lengths === undefined ? undefined : endsOf(lengths);
      let out = "";
      for (let i = firstChunk(ends, from); chunkStart(ends, i) < to; i++) {
        const chunk = await store.get(key(owner, handle, kind, String(i)));
        if (typeof chunk !== "string") {
          throw new McpError("Part of the result kept under this handle is gone from its store", {
            kind: "not_found",
            reason: "result_expired",
          });
        }
        const at = chunkStart(ends, i);
        out += chunk.slice(Math.max(0, from - at), Math.max(0, to - at));
        if (ends !== undefined && i === ends.length - 1) break;
      }
      return out;
    },
  };
  return spill;
}

/** Where each chunk ends, from their lengths. */
function endsOf(lengths: readonly number[]): number[] {
  let end = 0;
  return lengths.map((length) => end += length);
}

/** Where chunk `i` starts: every CHUNK_CHARS, or after the end before it. */
function chunkStart(ends: readonly number[] | undefined, i: number): number {
  if (ends === undefined) return i * CHUNK_CHARS;
  return i === 0 ? 0 : ends[i - 1];
}

/** The chunk that holds offset `from` (the first whose end is past it). */
function firstChunk(ends: readonly number[] | undefined, from: number): number {
  if (ends === undefined) return Math.floor(from / CHUNK_CHARS);
  let [low, high] = [0, ends.length - 1];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ends[mid] > from) high = mid;
    else low = mid + 1;
  }
  return low;
}

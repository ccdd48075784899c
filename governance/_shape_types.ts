/**
 * Private: the types of shaping (`shape.ts` re-exports them), apart so that a module that
 * only names them loads no code.
 *
 * @module
 */

import type { CacheStore } from "../cache/store.ts";

/** Options of `shapeResult`. */
export interface ShapeOptions {
  /**
   * The most characters (UTF-16 code units) of `text`, the truncation marker included
   * (default 8 000; at least 200).
   */
  maxChars?: number;
}

/**
 * Where results over budget are kept: `true` (a memory store of the client's or hub's own),
 * a store (`memoryStore()`, `denoKvStore(kv)`, `redisStore(command)`, `fileStore(dir)`), or
 * the store with its limits.
 */
export type SpillSetting = boolean | CacheStore | SpillOptions;

/** A spill store with its limits. */
export interface SpillOptions {
  /** The store (default: a memory store of the client's own). */
  store?: CacheStore;
  /** How long a spilled result is kept, in ms (default one hour). */
  ttlMs?: number;
  /** The largest result kept, in characters (default 64 MiB); a larger one is cut, not kept. */
  maxBytes?: number;
}

/** A spill setting, checked: the store and its limits. */
export interface SpillConfig {
  /** The store. */
  store: CacheStore;
  /** How long a result is kept. */
  ttlMs: number;
  /** The largest result kept, in characters. */
  maxBytes: number;
}

/** The defaults of a client's or hub's shaped calls (the `shape` option). */
export interface ShapeDefaults extends ShapeOptions {
  /**
   * Keep a result over budget whole behind a handle that `readResult` (and the `read_result`
   * meta-tool) pages through, instead of cutting it (default `false`).
   */
  spill?: SpillSetting;
}

/** How a shaped result was spilled: kept whole behind {@linkcode SpillInfo.handle}. */
export interface SpillInfo {
  /** The opaque handle, for `readResult` (the caller's identity only). */
  handle: string;
  /** The length of the whole text a model would have seen uncut. */
  chars: number;
  /** Where the part the model did not see starts. */
  restOffset: number;
  /** How many characters the model did not see. */
  restChars: number;
  /** When the handle expires (ms since the epoch). */
  expiresAt: number;
  /**
   * How many media blocks (images, audio, blobs) were kept with it, each read back as
   * base64 by `readResult(handle, { media: i })` (absent: none).
   */
  media?: number;
}

/** A tool result as one text for a model. */
export interface ShapedResult {
  /** The text to hand to the model. */
  text: string;
  /** Whether the tool reported a failure (the text says so too). */
  isError: boolean;
  /** An approximate token count of `text` (about four ASCII characters a token). */
  approxTokens: number;
  /** How many characters were cut to fit `maxChars` (0 when nothing was). */
  cutChars: number;
  /** Present when the whole result was kept behind a handle (spilling on, over budget). */
  spilled?: SpillInfo;
  /** For the host: `"conduit/spill"` (the {@linkcode SpillInfo}) when the result spilled. */
  _meta?: Record<string, unknown>;
}

/** A piece of the uncut text. */
export interface Segment {
  /** What it is: text lines, one JSON value, or one reference line. */
  kind: "text" | "json" | "ref";
  /** Its length in the uncut text. */
  length: number;
  /** Its text (for a big JSON value: absent, written from `pieces`). */
  text?: string;
  /** The parsed value of a JSON segment. */
  value?: unknown;
  /** A JSON segment's text, a piece at a time (written again on each call). */
  pieces?: () => Iterable<string>;
}

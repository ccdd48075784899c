/**
 * Shaping a tool result for a model (`shape: "llm"`): one text, within a budget, with what
 * the server wrote run through the shared sanitiser ({@linkcode sanitizeText}). Pure.
 *
 * The projection, in content order:
 * - `text` blocks: their text, one block per line group (joined with `\n`);
 * - `structuredContent`: compact JSON, **instead of** a `text` block that repeats it (a text
 *   whose trimmed content parses as JSON deep-equal to it is dropped, the JSON taking its
 *   place; with no such block the JSON comes last). Other text blocks stay: they say more;
 * - `image` and `audio`: `[image: image/png, 1.2 KiB]`, from the MIME type and the decoded
 *   size of the base64 data;
 * - `resource_link`: `[resource link: "name" <uri>, mime, size]`;
 * - embedded `resource`: `[resource: <uri>, mime, 1.2 KiB text]` (or `… blob`), not its
 *   contents;
 * - any other block: `[<type> content]`.
 * A failed call (`isError: true`) starts with the line `The tool reported an error.`; an
 * empty result reads `(no content)`. Past `maxChars` the head and tail are kept around a
 * marker naming how many characters were cut.
 *
 * @module
 */

import { sanitizeText } from "../protocol/text.ts";
import type { ToolResult } from "../protocol/shapes.ts";
import type { CacheStore } from "../cache/store.ts";
import { approxTokens, DEFAULT_MAX_CHARS, fitBudget, MIN_MAX_CHARS } from "./_budget.ts";
import { reference } from "./_reference.ts";

export { DEFAULT_MAX_CHARS, MIN_MAX_CHARS } from "./_budget.ts";

/** Options of {@linkcode shapeResult}. */
export interface ShapeOptions {
  /**
   * The most characters (UTF-16 code units) of `text`, the truncation marker included
   * (default {@linkcode DEFAULT_MAX_CHARS}, 8 000; at least {@linkcode MIN_MAX_CHARS}, 200).
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

/** The first line of a shaped failed call. */
export const ERROR_LINE = "The tool reported an error.";

/**
 * Checks a `maxChars` value.
 *
 * @param value The value given.
 * @param where What it is, for the message (e.g. `option "maxChars"`).
 * @returns The value, or the default when `undefined`.
 * @throws {TypeError} Unless a whole number of at least {@linkcode MIN_MAX_CHARS}.
 */
export function checkMaxChars(value: unknown, where = 'option "maxChars"'): number {
  if (value === undefined) return DEFAULT_MAX_CHARS;
  if (!Number.isSafeInteger(value) || (value as number) < MIN_MAX_CHARS) {
    throw new TypeError(`${where} must be a whole number of characters, at least ${MIN_MAX_CHARS}`);
  }
  return value as number;
}

/**
 * Shapes a tool result for a model: text joined, `structuredContent` as compact JSON instead
 * of a text block repeating it, media and resources as short references, `isError` kept
 * visible, and the whole capped at `maxChars` with head and tail kept (see the module's
 * description for the exact projection).
 *
 * @param result The result, as `callTool` returns it.
 * @param options `maxChars`.
 * @returns The text, `isError`, an approximate token count and how much was cut.
 * @throws {TypeError} For a result without a `content` array, or a bad `maxChars`.
 *
 * @example Text and structured content: the JSON once, not twice
 * ```ts
 * import { shapeResult } from "./shape.ts";
 *
 * const shaped = shapeResult({
 *   content: [{ type: "text", text: '{ "temperature": 33 }' }, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }],
 *   structuredContent: { temperature: 33 },
 *   isError: false,
 * });
 * if (shaped.text !== '{"temperature":33}\n[image: image/png, 8 bytes]') throw new Error(shaped.text);
 * if (shaped.cutChars !== 0 || shaped.approxTokens < 1) throw new Error("unexpected");
 * ```
 */
export function shapeResult(result: ToolResult, options: ShapeOptions = {}): ShapedResult {
  if (typeof result !== "object" || result === null || !Array.isArray(result.content)) {
    throw new TypeError("result must be a tool result (with a content array)");
  }
  const maxChars = checkMaxChars(options?.maxChars);
  const structured = result.structuredContent;
  const json = structured === undefined ? undefined : compactJson(structured);
  const lines: string[] = [];
  let placed = false;
  for (const block of result.content) {
    if (typeof block !== "object" || block === null) continue;
    if (block.type === "text") {
      const text = typeof block.text === "string" ? block.text : "";
      if (json !== undefined && repeats(text, structured)) {
        if (!placed) lines.push(json);
        placed = true;
      } else {
        const visible = sanitizeText(text);
        if (visible !== "") lines.push(visible);
      }
    } else {
      lines.push(reference(block));
    }
  }
  if (json !== undefined && !placed) lines.push(json);
  const isError = result.isError === true;
  const body = lines.join("\n");
  const whole = (isError ? `${ERROR_LINE}\n` : "") + (body.trim() === "" ? "(no content)" : body);
  const { text, cutChars } = fitBudget(whole, maxChars);
  return { text, isError, approxTokens: approxTokens(text), cutChars };
}

/** Whether a text block's text is the structured content again, as JSON. */
function repeats(text: string, structured: unknown): boolean {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return false;
  try {
    return sameJson(JSON.parse(trimmed), structured);
  } catch {
    return false;
  }
}

function compactJson(value: unknown): string {
  try {
    return sanitizeText(JSON.stringify(value) ?? "null");
  } catch {
    return "[structured content that is not JSON]";
  }
}

/**
 * Whether two JSON values are equal (object key order aside).
 *
 * @param a One value.
 * @param b The other.
 * @returns `true` when they are the same JSON.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((item, i) => sameJson(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

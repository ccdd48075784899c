/**
 * Private: JSON in a shaped result — recognised (a text that parses as JSON, a text or value
 * the same as the structured content) and, when too big for a model's budget, summarised
 * by its structure on one line: its kind and size, its keys (each member briefly), the first items of its biggest
 * array (each whole, each short) and the JSON path to page through it with `read_result`.
 * Nothing in a summary is a cut value: a value is quoted whole or named by its kind and
 * size. Pure. The structured content's JSON text is written once, in pieces (runs of rows
 * written by the engine), and those pieces are measured, sanitised (no copy when clean)
 * and kept (`jsonSegment`); a summary never writes a big value's text.
 *
 * @module
 */

import { sanitizeText } from "../protocol/text.ts";
import type { Segment } from "./_shape_types.ts";
import { jsonChunks } from "../protocol/json_chunks.ts";

/** The first characters of a summary line. */
export const SUMMARY_PREFIX = "[JSON ";

const SHORT_SCALAR = 40;

/**
 * A one-line summary of a JSON value's structure, within `room` characters, or `undefined`
 * when not even the shortest fits. Every value it quotes is whole.
 */
export function summarize(
  value: unknown,
  chars: number,
  offset: number,
  room: number,
): string | undefined {
  const kind = Array.isArray(value) ? `array of ${value.length}` : typeOf(value);
  const head = `${SUMMARY_PREFIX}${kind}, ${chars} characters at offset ${offset}`;
  const forms: string[] = [];
  const paths = pagePaths(value);
  const shape = describe(value);
  const items = firstItems(value);
  if (items !== "") forms.push(`${head}: ${shape}; ${items}; ${paths}]`);
  forms.push(`${head}: ${shape}; ${paths}]`);
  forms.push(`${head}; ${paths}]`);
  forms.push(`${head}]`);
  return forms.find((form) => form.length <= room);
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function brief(value: unknown): string {
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (typeof value === "object" && value !== null) {
    return `object of ${Object.keys(value).length} keys`;
  }
  const json = typeof value === "string" && value.length > SHORT_SCALAR
    ? undefined
    : compact(value, SHORT_SCALAR);
  if (json !== undefined) return json;
  return typeof value === "string" ? `string of ${value.length} characters` : typeOf(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (typeof value !== "object" || value === null) return brief(value);
  const keys = Object.keys(value);
  const shown = keys.slice(0, 20).map((key) =>
    `${JSON.stringify(key)}: ${brief((value as Record<string, unknown>)[key])}`
  );
  const more = keys.length > 20 ? `, and ${keys.length - 20} more keys` : "";
  return `{${shown.join(", ")}${more}}`;
}

/** The biggest array: the root, or the longest array member of the root object. */
function mainArray(value: unknown): { path: string; items: unknown[] } | undefined {
  if (Array.isArray(value)) return { path: "$", items: value };
  if (typeof value !== "object" || value === null) return undefined;
  let best: { path: string; items: unknown[] } | undefined;
  for (const [key, member] of Object.entries(value)) {
    if (Array.isArray(member) && (best === undefined || member.length > best.items.length)) {
      best = { path: `$${pathPart(key)}`, items: member };
    }
  }
  return best;
}

function pathPart(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function firstItems(value: unknown): string {
  const main = mainArray(value);
  if (main === undefined || main.items.length === 0) return "";
  const shown: string[] = [];
  let size = 0;
  for (const item of main.items.slice(0, 3)) {
    const json = compact(item, 400);
    if (json === undefined || size + json.length > 800) break;
    shown.push(json);
    size += json.length;
  }
  return shown.length === 0 ? "" : `first items of ${main.path}: ${shown.join(", ")}`;
}

function pagePaths(value: unknown): string {
  const main = mainArray(value);
  if (main !== undefined && main.items.length > 0) {
    return `page with read_result jsonPath "${main.path}[0:20]"`;
  }
  if (typeof value === "object" && value !== null) {
    const key = Object.keys(value)[0];
    if (key !== undefined) return `page with read_result jsonPath "$${pathPart(key)}"`;
  }
  return "page with read_result offset and length";
}

/**
 * The compact JSON of a value, sanitised, when it is at most `max` characters (written a
 * piece at a time, so a big value is given up on without being written whole).
 */
function compact(value: unknown, max: number): string | undefined {
  let out = "";
  try {
    for (const piece of jsonChunks(value, 256)) {
      out += piece;
      if (out.length > max) return undefined;
    }
  } catch {
    return undefined;
  }
  const text = sanitizeText(out === "" ? "null" : out);
  return text.length <= max ? text : undefined;
}

/**
 * Whether `text` is a text given in pieces, compared a piece at a time.
 *
 * @param text The text.
 * @param pieces The pieces.
 * @returns Whether it is.
 */
export function sameText(text: string, pieces: Iterable<string>): boolean {
  let at = 0;
  for (const piece of pieces) {
    if (!text.startsWith(piece, at)) return false;
    at += piece.length;
  }
  return at === text.length;
}

/**
 * A text's JSON value, when its trimmed text is a JSON object or array.
 *
 * @param text The text.
 * @returns The value, or `ok: false`.
 */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch {
    return { ok: false };
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

/** The line of structured content that has no JSON text (a cycle, a `BigInt`). */
const NOT_JSON = "[structured content that is not JSON]";

/** What {@linkcode jsonSegment} measured of the structured content. */
export interface JsonMeasure {
  /** Its segment: its sanitised JSON text, or a reference line when it has no JSON text. */
  segment: Segment;
  /** The length of its raw JSON text (before sanitising). */
  raw?: number;
  /** Its raw JSON text, in the pieces it was written in (each written once, and kept). */
  rawPieces?: () => Iterable<string>;
  /** Whether sanitising changed nothing (the segment's text is the raw JSON text). */
  clean: boolean;
}

/** The characters of a piece of a big value's JSON text. */
const PIECE_CHARS = 16 * 1024;

/**
 * The segment of the structured content. Its JSON text is written once, a piece at a time
 * ({@linkcode jsonChunks}: runs of rows written by the engine), and the pieces are kept:
 * measured, sanitised without a copy when each is plain printable ASCII, and written to a
 * store as they are. A value's text is never one string unless it is one piece: writing it
 * at once peaks, in some engines, at twice the text (the parts and the joined text), and
 * the store keeps pieces anyway. A small value's one piece is the segment's text.
 *
 * @param value The structured content.
 * @returns The segment (a reference line when it has no JSON text), and what it measured.
 */
export function jsonSegment(value: unknown): JsonMeasure {
  const raw: string[] = [];
  let length = 0;
  let plain = true;
  try {
    for (const piece of jsonChunks(value, PIECE_CHARS)) {
      raw.push(piece);
      length += piece.length;
      if (plain && NOT_PLAIN.test(piece)) plain = false;
    }
  } catch {
    return notJson();
  }
  if (raw.length === 0) {
    raw.push("null");
    length = 4;
  }
  const clean = plain ? raw : cleanPieces(raw);
  const cleanLength = clean === raw ? length : clean.reduce((sum, p) => sum + p.length, 0);
  const segment: Segment = clean.length === 1
    ? { kind: "json", length: cleanLength, text: clean[0], value }
    : { kind: "json", length: cleanLength, value, pieces: () => clean };
  return { segment, raw: length, rawPieces: () => raw, clean: clean === raw };
}

function notJson(): JsonMeasure {
  return { segment: { kind: "ref", length: NOT_JSON.length, text: NOT_JSON }, clean: false };
}

/** Text outside printable ASCII: what some rule of `sanitizeText` may change. */
const NOT_PLAIN = /[^\x20-\x7E]/;

/**
 * `sanitizeText` of text in pieces, in pieces ({@linkcode sanitizePieces}): `raw` itself
 * when no piece changed.
 */
function cleanPieces(raw: string[]): string[] {
  const clean: string[] = [];
  let changed = false;
  for (const piece of sanitizePieces(raw)) {
    if (piece.clean !== piece.raw) changed = true;
    if (piece.clean !== "") clean.push(piece.clean);
  }
  if (!changed) return raw;
  return clean.length === 0 ? [""] : clean;
}

/**
 * Text given in pieces, sanitised a piece at a time: the pieces are joined again and cut
 * only between two printable ASCII characters (where no rule of `sanitizeText`,
 * NFC included, looks across; a text with a terminal escape is not cut), so the clean
 * pieces join to exactly `sanitizeText` of the whole text.
 *
 * @param chunks The text, in pieces of any size.
 * @param seen Called with each piece as it is read.
 * @returns Each piece as cut (`raw`) and sanitised (`clean`).
 *
 * @example
 * ```ts
 * import { sanitizePieces } from "./_json.ts";
 * import { sanitizeText } from "../protocol/text.ts";
 *
 * const chunks = ["Sum\u200Bmary: e", "\u0301 ok ", "and more text"];
 * const clean = [...sanitizePieces(chunks)].map((piece) => piece.clean).join("");
 * if (clean !== sanitizeText(chunks.join(""))) throw new Error(clean);
 * ```
 */
export function* sanitizePieces(
  chunks: Iterable<string>,
  seen?: (chunk: string) => void,
): Generator<{ raw: string; clean: string }> {
  let carry = "";
  for (const chunk of chunks) {
    seen?.(chunk);
    carry += chunk;
    if (carry.includes("\u001B")) continue;
    let cut = carry.length - 1;
    while (cut > 0 && !(printable(carry.charCodeAt(cut)) && printable(carry.charCodeAt(cut - 1)))) {
      cut--;
    }
    if (cut <= 0) continue;
    const raw = carry.slice(0, cut);
    carry = carry.slice(cut);
    yield { raw, clean: cleanPiece(raw) };
  }
  if (carry !== "") yield { raw: carry, clean: cleanPiece(carry) };
}

function printable(code: number): boolean {
  return code >= 0x20 && code < 0x7f;
}

/** Only printable ASCII: nothing any rule of `sanitizeText` changes. */
const PLAIN = /^[\x20-\x7E]*$/;

/** `sanitizeText` of a piece, without a copy when there is nothing to change. */
function cleanPiece(piece: string): string {
  return PLAIN.test(piece) ? piece : sanitizeText(piece);
}

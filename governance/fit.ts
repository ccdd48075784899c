/**
 * Fitting a shaped result into its budget without cutting anything blind, for results that
 * are spilled (kept whole behind a handle). Pure; loaded only when spilling is on.
 *
 * The uncut text is the projection {@linkcode shapeResult} makes (text blocks, the
 * structured content as JSON, media and resources as reference lines), as segments:
 * - text is cut only at line ends, or inside a line that alone is over the room only at a
 *   space: a run without spaces (a base64 run, a URL) is never cut;
 * - JSON (the structured content, or a text block that parses as a JSON object or array)
 *   is kept whole or replaced by a summary of its structure (keys, array lengths, the first
 *   items, each whole) with the paths to page through it;
 * - a media or resource block is its reference line (type and size), never its data.
 *
 * The model's text is the head of the uncut text, a notice line naming the size of the
 * rest, the handle and how to read it, and the tail.
 *
 * @module
 */

import { sanitizeText } from "../protocol/text.ts";
import type { ToolResult } from "../protocol/shapes.ts";
import { ERROR_LINE, sameJson } from "./shape.ts";
import { reference } from "./_reference.ts";

export { approxTokens } from "./_budget.ts";

/** A piece of the uncut text. */
export interface Segment {
  /** What it is: text lines, one JSON value, or one reference line. */
  kind: "text" | "json" | "ref";
  /** Its text in the uncut text. */
  text: string;
  /** The parsed value of a JSON segment. */
  value?: unknown;
}

/** Texts this long are sanitised in pieces (between lines), to bound the regexes' memory. */
const PIECE = 256 * 1024;

/**
 * {@linkcode sanitizeText} for texts of any size: the same text, but a long one without
 * terminal escapes (whose removal may span lines) is sanitised a piece of lines at a time,
 * and handed back as it is when no piece changed, so a clean text costs no copy.
 *
 * @param text The text.
 * @returns The sanitised text.
 */
export function sanitizeLarge(text: string): string {
  if (text.length <= PIECE || text.includes("\u001B")) return sanitizeText(text);
  const pieces: string[] = [];
  let changed = false;
  for (let at = 0; at < text.length;) {
    const end = text.indexOf("\n", at + PIECE);
    const next = end === -1 ? text.length : end + 1;
    const piece = text.slice(at, next);
    const clean = sanitizeText(piece);
    if (clean !== piece) changed = true;
    pieces.push(clean);
    at = next;
  }
  return changed ? pieces.join("") : text;
}

/** The uncut projection of a result. */
export interface Projection {
  /** The pieces, in order (joined with `\n`). */
  segments: Segment[];
  /** Whether the tool reported a failure. */
  isError: boolean;
  /** The JSON value `jsonPath` reads: the structured content, else the first JSON text. */
  json: unknown;
  /** The structured content's JSON text, when there is structured content. */
  jsonText?: string;
}

/** What {@linkcode fitSpilled} returns. */
export interface FittedSpill {
  /** The model's text, at most `maxChars`. */
  text: string;
  /** Where the kept head ends in the uncut text. */
  headEnd: number;
  /** Where the kept tail starts in the uncut text. */
  tailStart: number;
}

/** The first characters of a summary line. */
export const SUMMARY_PREFIX = "[JSON ";
/** The first characters of the notice line. */
export const NOTICE_PREFIX = "[… ";

const SHORT_SCALAR = 40;

/**
 * The uncut projection of a result, as `shapeResult` joins it (its text is
 * `segments.map((s) => s.text).join("\n")`).
 *
 * @param result The tool result.
 * @returns The segments, whether it failed, and the JSON value.
 */
export function project(result: ToolResult): Projection {
  const structured = result.structuredContent;
  const raw = structured === undefined ? undefined : rawJson(structured);
  const json = structured === undefined
    ? undefined
    : raw === undefined
    ? "[structured content that is not JSON]"
    : sanitizeLarge(raw);
  const segments: Segment[] = [];
  const isError = result.isError === true;
  if (isError) segments.push({ kind: "text", text: ERROR_LINE });
  let placed = false;
  let firstJson: unknown;
  for (const block of result.content) {
    if (typeof block !== "object" || block === null) continue;
    if (block.type === "text") {
      const text = typeof block.text === "string" ? block.text : "";
      // The same text as the structured content's JSON needs no parse to be known.
      const same = raw !== undefined && text.length === raw.length && text === raw;
      const parsed = same ? { ok: true as const, value: structured } : parseJson(text);
      if (json !== undefined && parsed.ok && (same || sameJson(parsed.value, structured))) {
        if (!placed) segments.push({ kind: "json", text: json, value: structured });
        placed = true;
        continue;
      }
      const visible = sanitizeLarge(text);
      if (visible === "") continue;
      const again = visible === text ? parsed : parseJson(visible);
      if (again.ok) {
        segments.push({ kind: "json", text: visible, value: again.value });
        if (firstJson === undefined) firstJson = again.value;
      } else segments.push({ kind: "text", text: visible });
    } else {
      segments.push({ kind: "ref", text: reference(block) });
    }
  }
  if (json !== undefined && !placed) segments.push({ kind: "json", text: json, value: structured });
  const body = segments.slice(isError ? 1 : 0).map((s) => s.text).join("\n");
  if (body.trim() === "") {
    segments.splice(isError ? 1 : 0, Infinity, { kind: "text", text: "(no content)" });
  }
  return {
    segments,
    isError,
    json: structured !== undefined ? structured : firstJson,
    ...(raw === undefined ? {} : { jsonText: raw }),
  };
}

/**
 * The model's text of a result over budget: the head and tail of the uncut text around a
 * notice, cut only where {@linkcode project}'s rules allow.
 *
 * @param segments The uncut projection.
 * @param maxChars The budget.
 * @param notice Makes the notice line from the kept head's end and the tail's start.
 * @returns The text and where the head ends and the tail starts.
 */
export function fitSpilled(
  segments: readonly Segment[],
  maxChars: number,
  notice: (headEnd: number, tailStart: number) => string,
): FittedSpill {
  const starts: number[] = [];
  let total = 0;
  for (const [i, s] of segments.entries()) {
    starts.push(total);
    total += s.text.length + (i < segments.length - 1 ? 1 : 0);
  }
  // The notice for the widest numbers is at least as long as the real one.
  let room = maxChars - notice(total, total).length - 2;
  for (let attempt = 0; attempt < 4; attempt++) {
    const fitted = fitOnce(segments, starts, total, Math.max(0, room), notice);
    if (fitted.text.length <= maxChars) return fitted;
    room -= fitted.text.length - maxChars + 1;
  }
  const text = notice(0, total);
  return {
    text: text.length <= maxChars ? text : text.slice(0, maxChars),
    headEnd: 0,
    tailStart: total,
  };
}

function fitOnce(
  segments: readonly Segment[],
  starts: readonly number[],
  total: number,
  room: number,
  notice: (headEnd: number, tailStart: number) => string,
): FittedSpill {
  const head = walkHead(segments, starts, Math.ceil(room * 2 / 3));
  const floor = head.summary !== undefined ? head.end + 1 : head.end;
  const tail = walkTail(segments, starts, total, Math.max(0, room - head.used), floor);
  const parts: string[] = [];
  const headText = segments.length === 0 ? "" : joinedSlice(segments, starts, 0, head.end);
  if (headText !== "") parts.push(headText.endsWith("\n") ? headText.slice(0, -1) : headText);
  if (head.summary !== undefined) parts.push(head.summary);
  parts.push(notice(head.end, tail.start!));
  if (tail.summary !== undefined) parts.push(tail.summary);
  const tailText = joinedSlice(segments, starts, tail.start!, total);
  if (tailText !== "") parts.push(tailText.startsWith("\n") ? tailText.slice(1) : tailText);
  return { text: parts.join("\n"), headEnd: head.end, tailStart: tail.start! };
}

/** `segments` joined, from `from` to `to`, without joining all of them. */
function joinedSlice(
  segments: readonly Segment[],
  starts: readonly number[],
  from: number,
  to: number,
): string {
  if (from >= to) return "";
  let out = "";
  for (const [i, s] of segments.entries()) {
    const start = starts[i];
    const end = start + s.text.length + (i < segments.length - 1 ? 1 : 0);
    if (end <= from || start >= to) continue;
    const withBreak = i < segments.length - 1 ? s.text + "\n" : s.text;
    out += withBreak.slice(Math.max(0, from - start), Math.min(withBreak.length, to - start));
  }
  return out;
}

interface Walked {
  end: number;
  start?: number;
  used: number;
  summary?: string;
}

function walkHead(
  segments: readonly Segment[],
  starts: readonly number[],
  share: number,
): Walked {
  let used = 0;
  let end = 0;
  for (const [i, s] of segments.entries()) {
    const left = share - used;
    const whole = s.text.length + 1;
    if (whole <= left) {
      used += whole;
      end = starts[i] + s.text.length + (i < segments.length - 1 ? 1 : 0);
      continue;
    }
    if (s.kind === "json") {
      const summary = summarize(s.value, s.text.length, starts[i], left - 1);
      if (summary !== undefined) return { end, used: used + summary.length + 1, summary };
    } else if (s.kind === "text") {
      const cut = lineCutForward(s.text, left);
      if (cut > 0) return { end: starts[i] + cut, used: used + cut };
    }
    return { end, used };
  }
  return { end, used };
}

function walkTail(
  segments: readonly Segment[],
  starts: readonly number[],
  total: number,
  share: number,
  floor: number,
): Walked {
  let used = 0;
  let start = total;
  for (let i = segments.length - 1; i >= 0; i--) {
    const s = segments[i];
    const from = starts[i];
    const left = share - used;
    const whole = s.text.length + 1;
    if (from >= floor && whole <= left) {
      used += whole;
      start = from;
      continue;
    }
    if (s.kind === "json" && from >= floor) {
      const summary = summarize(s.value, s.text.length, from, left - 1);
      if (summary !== undefined) {
        return { end: start, start, used: used + summary.length + 1, summary };
      }
    } else if (s.kind === "text") {
      // A text the head ends in may give the tail its last lines too.
      const cut = lineCutBackward(s.text, Math.min(left, s.text.length - (floor - from)));
      if (cut < s.text.length && from + cut >= floor) {
        return { end: start, start: from + cut, used: used + s.text.length - cut };
      }
    }
    break;
  }
  return { end: start, start, used };
}

/** Where a head of `text` of at most `room` characters may end (0: none fits). */
function lineCutForward(text: string, room: number): number {
  if (room <= 0) return 0;
  const line = text.lastIndexOf("\n", room - 1);
  if (line >= 0) return line + 1;
  const space = text.lastIndexOf(" ", room - 1);
  // At a space (kept in the head): the run of non-spaces after it stays whole.
  return space >= 0 ? space + 1 : 0;
}

/** Where a tail of `text` of at most `room` characters may start (`text.length`: none). */
function lineCutBackward(text: string, room: number): number {
  if (room <= 1) return text.length;
  const from = text.length - (room - 1);
  const line = text.indexOf("\n", from - 1);
  if (line >= 0 && line + 1 <= text.length) return line + 1;
  const space = text.indexOf(" ", from - 1);
  return space >= 0 ? space + 1 : text.length;
}

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
  const json = compact(value);
  if (json.length <= SHORT_SCALAR) return json;
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
    const json = compact(item);
    if (json.length > 400 || size + json.length > 800) break;
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

function rawJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return undefined;
  }
}

function compact(value: unknown): string {
  try {
    return sanitizeText(JSON.stringify(value) ?? "null");
  } catch {
    return "[structured content that is not JSON]";
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch {
    return { ok: false };
  }
}

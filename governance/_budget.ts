/**
 * Private: the budget of a shaped result — fitting the uncut projection of a result into
 * `maxChars` without cutting anything blind, and the approximate token count reported
 * beside it. Pure.
 *
 * The model's text is the head of the uncut text, one line naming the part left out (what
 * that line says is the caller's: kept behind a handle, or not kept), and the tail. A cut
 * falls only where it keeps every piece valid:
 * - text is cut only at line ends, or inside a line that alone is over the room only at a
 *   space: a run without spaces (a base64 run, a URL) is never cut;
 * - JSON is kept whole or replaced by a one-line summary of its structure
 *   (`_json.ts`);
 * - a reference line (media, resources) is kept whole or left out.
 *
 * @module
 */

import { isHighSurrogate } from "../protocol/text.ts";
import { summarize } from "./_json.ts";
import type { Segment } from "./_shape_types.ts";

export type { Segment } from "./_shape_types.ts";

/**
 * A segment's text, whole (a JSON segment's written from its pieces).
 *
 * @param segment The segment.
 * @returns Its text.
 */
export function segmentText(segment: Segment): string {
  if (segment.text !== undefined) return segment.text;
  let text = "";
  for (const piece of segment.pieces?.() ?? []) text += piece;
  return text;
}

/** What {@linkcode fitSegments} returns. */
export interface Fitted {
  /** The model's text, at most `maxChars`. */
  text: string;
  /** Where the kept head ends in the uncut text. */
  headEnd: number;
  /** Where the kept tail starts in the uncut text. */
  tailStart: number;
}

/**
 * The length of the segments' uncut text (joined with `\n`).
 *
 * @param segments The segments.
 * @returns The length.
 */
export function totalLength(segments: readonly Segment[]): number {
  let total = Math.max(0, segments.length - 1);
  for (const s of segments) total += s.length;
  return total;
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
export function fitSegments(
  segments: readonly Segment[],
  maxChars: number,
  notice: (headEnd: number, tailStart: number) => string,
): Fitted {
  const starts: number[] = [];
  let total = 0;
  for (const [i, s] of segments.entries()) {
    starts.push(total);
    total += s.length + (i < segments.length - 1 ? 1 : 0);
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
): Fitted {
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
    const last = i === segments.length - 1;
    if (start + s.length + (last ? 0 : 1) <= from || start >= to) continue;
    const text = from <= start && start + s.length <= to
      ? segmentText(s)
      : s.text!.slice(Math.max(0, from - start), Math.max(0, to - start));
    out += text;
    if (!last && start + s.length >= from && start + s.length < to) out += "\n";
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
    const whole = s.length + 1;
    if (whole <= left) {
      used += whole;
      end = starts[i] + s.length + (i < segments.length - 1 ? 1 : 0);
      continue;
    }
    if (s.kind === "json") {
      const summary = summarize(s.value, s.length, starts[i], left - 1);
      if (summary !== undefined) return { end, used: used + summary.length + 1, summary };
    } else if (s.kind === "text") {
      const cut = lineCutForward(s.text!, left);
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
    const whole = s.length + 1;
    if (from >= floor && whole <= left) {
      used += whole;
      start = from;
      continue;
    }
    if (s.kind === "json" && from >= floor) {
      const summary = summarize(s.value, s.length, from, left - 1);
      if (summary !== undefined) {
        return { end: start, start, used: used + summary.length + 1, summary };
      }
    } else if (s.kind === "text") {
      // A text the head ends in may give the tail its last lines too.
      const cut = lineCutBackward(s.text!, Math.min(left, s.length - (floor - from)));
      if (cut < s.length && from + cut >= floor) {
        return { end: start, start: from + cut, used: used + s.length - cut };
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
 * An approximate token count for `text`: one token per four ASCII characters and one per
 * other character (code point). It errs high for accented Latin text and is close for
 * English, code, JSON and CJK text, which is what a budget needs; it is no tokenizer.
 *
 * @param text The text.
 * @returns The approximate number of tokens.
 */
export function approxTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    else if (!isHighSurrogate(code)) other++;
  }
  return Math.ceil(ascii / 4) + other;
}

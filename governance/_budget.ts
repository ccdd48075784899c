/**
 * Private: the budget of a shaped result — the cap on its size (head and tail kept, a
 * marker naming what was cut) and the approximate token count reported beside it. Pure.
 *
 * @module
 */

import { isHighSurrogate } from "../protocol/text.ts";

/** The default `maxChars` of a shaped result. */
export const DEFAULT_MAX_CHARS = 8_000;

/** The smallest `maxChars`: room for the marker and some text on both sides of it. */
export const MIN_MAX_CHARS = 200;

/** The share of the kept text that comes from the head (the rest is the tail). */
const HEAD_SHARE = 2 / 3;

/** How much of the head or the tail a cut may give up to fall on a line break. */
const SNAP_SHARE = 1 / 8;

/**
 * The marker put where text was cut.
 *
 * @param cut How many characters were cut.
 * @returns The marker, on a line of its own.
 */
export function cutMarker(cut: number): string {
  return `\n[… ${cut} characters cut …]\n`;
}

/** A text fitted to a budget. */
export interface Fitted {
  /** The text, at most `maxChars` long. */
  text: string;
  /** How many characters of the original were cut (0 when it fitted). */
  cutChars: number;
}

/**
 * Fits `text` into `maxChars` UTF-16 code units (as `String#length` counts): a text that
 * fits is returned as is; a longer one keeps its head (two thirds of what is kept) and its
 * tail (one third) around a marker naming how many characters were cut. A cut moves to a
 * line break within an eighth of the head or tail, so whole lines stay whole; a surrogate
 * pair is never split.
 *
 * @param text The text.
 * @param maxChars The budget (at least {@linkcode MIN_MAX_CHARS}).
 * @returns The fitted text and the number of characters cut.
 */
export function fitBudget(text: string, maxChars: number): Fitted {
  if (text.length <= maxChars) return { text, cutChars: 0 };
  // The marker for the whole length is at least as long as the one for the real cut.
  const keep = maxChars - cutMarker(text.length).length;
  let head = Math.ceil(keep * HEAD_SHARE);
  if (isHighSurrogate(text.charCodeAt(head - 1))) head--;
  let tail = text.length - (keep - head);
  if (isHighSurrogate(text.charCodeAt(tail - 1))) tail++;
  // Cut at line ends when one is near: the marker then sits between whole lines.
  const lineEnd = text.lastIndexOf("\n", head - 1);
  if (lineEnd >= 0 && head - lineEnd <= head * SNAP_SHARE) head = lineEnd;
  const lineStart = text.indexOf("\n", tail);
  if (lineStart >= 0 && lineStart - tail < (text.length - tail) * SNAP_SHARE) tail = lineStart + 1;
  const cutChars = tail - head;
  return { text: text.slice(0, head) + cutMarker(cutChars) + text.slice(tail), cutChars };
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

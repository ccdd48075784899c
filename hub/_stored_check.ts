/**
 * Private: what a stored catalogue is, and its check. A value read from the store is
 * untrusted input like a server's answer: {@linkcode checkStored} takes it as a catalogue
 * only when its shape, sizes, names and fingerprints are well-formed.
 *
 * @module
 */

import type { Tool } from "../client/types.ts";
import { holdsMore } from "./_size.ts";

/** One server's stored catalogue. */
export interface StoredCatalogue {
  /** The format's version (1). */
  v: 1;
  /** When the listing was taken (epoch ms). */
  takenAt: number;
  /** How long it is used before the server is asked again. */
  ttlMs: number;
  /** How long the listing took, in ms (its server's start included). */
  tookMs: number;
  /** The tools, as the server listed them (its own names). */
  tools: Tool[];
  /** Each tool's pin fingerprint (SHA-256 of its pinned part), in the same order. */
  fingerprints: string[];
}

/** The most tools one stored catalogue may hold. */
export const MAX_STORED_TOOLS = 10_000;
/** The most bytes (as JSON) of one stored catalogue. */
export const MAX_STORED_BYTES = 16 * 1024 * 1024;
const MAX_NAME = 256;
const MAX_TEXT = 65_536;
const FINGERPRINT = /^[0-9a-f]{64}$/;
/** Whether a text holds a control character (Unicode's Cc: C0, DEL and C1). */
const hasControl = (text: string) => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
};

/**
 * Whether a stored tool name is one a server could list: a non-empty string of at most 256
 * characters, without control characters.
 */
export const isToolName = (name: unknown): name is string =>
  typeof name === "string" && name !== "" && name.length <= MAX_NAME && !hasControl(name);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
/** A description or title: none (`null` is what some servers send for none), or short text. */
const isText = (value: unknown) =>
  value == null || (typeof value === "string" && value.length <= MAX_TEXT);

/**
 * Checks a value read from the store.
 *
 * @param value What the store returned.
 * @param now The current time.
 * @param bounded Whether the store bounds its values within {@linkcode MAX_STORED_BYTES}
 *   already (its `maxValueChars`): the value is then not measured again.
 * @returns The catalogue, or why it is refused.
 */
export function checkStored(
  value: unknown,
  now: number,
  bounded = false,
): StoredCatalogue | string {
  if (!isRecord(value)) return "not an object";
  const { v, takenAt, ttlMs, tookMs, tools, fingerprints } = value;
  if (v !== 1) return "an unknown version";
  if (typeof takenAt !== "number" || !Number.isFinite(takenAt) || takenAt > now + 60_000) {
    return "no valid takenAt";
  }
  if (typeof ttlMs !== "number" || !(ttlMs > 0)) return "no valid ttlMs";
  if (typeof tookMs !== "number" || !(tookMs >= 0) || !Number.isFinite(tookMs)) {
    return "no valid tookMs";
  }
  if (!Array.isArray(tools) || tools.length > MAX_STORED_TOOLS) return "no valid tools list";
  if (!Array.isArray(fingerprints) || fingerprints.length !== tools.length) {
    return "fingerprints that do not match its tools";
  }
  if (!bounded && holdsMore(value, MAX_STORED_BYTES)) return `more than ${MAX_STORED_BYTES} bytes`;
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i];
    if (!isRecord(tool)) return `tool ${i}: not an object`;
    const { name, description, title, inputSchema } = tool;
    if (!isToolName(name)) return `tool ${i}: no valid name`;
    if (names.has(name)) return `tool ${i}: a repeated name`;
    names.add(name);
    if (!isRecord(inputSchema)) return `tool ${i}: no input schema object`;
    // `null` is what some servers send for none.
    if (!isText(description)) return `tool ${i}: no valid description`;
    if (!isText(title)) return `tool ${i}: no valid title`;
    if (typeof fingerprints[i] !== "string" || !FINGERPRINT.test(fingerprints[i] as string)) {
      return `tool ${i}: no valid fingerprint`;
    }
  }
  // What an earlier format kept beside (each tool's tokenised form) is left out.
  return { v, takenAt, ttlMs, tookMs, tools, fingerprints } as StoredCatalogue;
}

/**
 * Server-written text made safe to hand to a model: the one sanitiser that both
 * `instructionsForLlm()` (PI-1) and the shaping of tool results (`shape: "llm"`) run. It
 * removes what a person reading the text would not see but a model would read (zero-width
 * characters, the Unicode tag block, variation selectors, terminal escapes) and what changes
 * how text is displayed (bidirectional embeddings, overrides, isolates and marks), unifies
 * line breaks, normalises to NFC and, when asked, caps the size. Pure: no I/O.
 *
 * @module
 */

/**
 * Characters that do not show but change what a model reads or how text is displayed:
 * format characters (`\p{Cf}`: zero-width spaces and joiners, the word joiner, bidirectional
 * marks, embeddings, overrides and isolates U+202A–202E and U+2066–2069, U+200E/F, U+061C,
 * the BOM, the soft hyphen, most of the tag block), the whole tag block U+E0000–E007F,
 * control characters other than tab and newline, variation selectors (emoji presentation
 * selectors included: the text stays readable without them, and runs of them can smuggle
 * data), the combining grapheme joiner, and the Hangul and Khmer fillers that render as
 * nothing.
 */
const INVISIBLE = new RegExp(
  [
    "\\p{Cf}",
    "[\\u{E0000}-\\u{E007F}]",
    "[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F]",
    "[\\uFE00-\\uFE0F]",
    "[\\u{E0100}-\\u{E01EF}]",
    "\\u034F",
    "[\\u115F\\u1160\\u3164\\uFFA0]",
    "[\\u17B4\\u17B5]",
  ].join("|"),
  "gu",
);

/** Terminal escape sequences (CSI such as colours, OSC such as hyperlinks), removed whole. */
// deno-lint-ignore no-control-regex -- matching ESC is the point
const TERMINAL_ESCAPE = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?/g;

/** A surrogate without its pair: not a character, so it becomes U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Options of {@linkcode sanitizeText}. */
export interface SanitizeOptions {
  /** The most UTF-8 bytes kept (the longest prefix that fits, never cut inside a character). */
  maxBytes?: number;
}

/**
 * Makes server-written text fit for a model's context: `\r\n`, `\r` and the Unicode line and
 * paragraph separators become `\n`; terminal escape sequences, invisible characters and
 * bidirectional controls are removed; a lone surrogate becomes U+FFFD; the rest is
 * normalised to NFC (not NFKC, which would rewrite legitimate text such as superscripts and
 * ligatures); and with `maxBytes` the result is capped.
 *
 * @param text Text written by a server (instructions, a tool's output, a name).
 * @param options `maxBytes`.
 * @returns The visible text.
 *
 * @example
 * ```ts
 * import { sanitizeText } from "./text.ts";
 *
 * // A zero-width space, a right-to-left override and a hidden tag-character message.
 * const raw = "Sum\u200Bmary\u202E: ok\u{E0069}\u{E0067}\r\ndone";
 * if (sanitizeText(raw) !== "Summary: ok\ndone") throw new Error("unexpected");
 * if (sanitizeText("héllo", { maxBytes: 2 }) !== "h") throw new Error("unexpected");
 * ```
 */
export function sanitizeText(text: string, options: SanitizeOptions = {}): string {
  if (typeof text !== "string") throw new TypeError("text must be a string");
  const { maxBytes } = options;
  if (maxBytes !== undefined && !(Number.isInteger(maxBytes) && maxBytes >= 0)) {
    throw new TypeError('option "maxBytes" must be a whole number of bytes (0 or more)');
  }
  const visible = text
    .replace(/\r\n?|[\u2028\u2029]/g, "\n")
    .replace(TERMINAL_ESCAPE, "")
    .replace(INVISIBLE, "")
    .replace(LONE_SURROGATE, "\uFFFD")
    .normalize("NFC");
  return maxBytes === undefined ? visible : capBytes(visible, maxBytes);
}

/**
 * Server-written text as one short line: sanitised, every run of whitespace one space,
 * trimmed, and cut to `maxChars` with an ellipsis (for names, URIs and types that go into
 * a line of the client's own).
 *
 * @param text The text.
 * @param maxChars The longest result, in UTF-16 code units (at least 2).
 * @returns The line.
 *
 * @example
 * ```ts
 * import { oneLine } from "./text.ts";
 *
 * if (oneLine("evil\nname\u202E", 64) !== "evil name") throw new Error("unexpected");
 * if (oneLine("abcdef", 4) !== "abc…") throw new Error("unexpected");
 * ```
 */
export function oneLine(text: string, maxChars: number): string {
  const line = sanitizeText(text).replace(/\s+/g, " ").trim();
  if (line.length <= maxChars) return line;
  let end = maxChars - 1;
  if (isHighSurrogate(line.charCodeAt(end - 1))) end--;
  return `${line.slice(0, end)}…`;
}

/**
 * Whether a UTF-16 code unit opens a surrogate pair.
 *
 * @param code The code unit.
 * @returns `true` for U+D800–DBFF.
 */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const encoder = new TextEncoder();

/**
 * Cuts `text` to at most `limit` UTF-8 bytes, never inside a character.
 *
 * @param text The text.
 * @param limit The most bytes.
 * @returns The text, or its longest prefix that fits.
 *
 * @example
 * ```ts
 * import { capBytes } from "./text.ts";
 *
 * if (capBytes("a😀b", 4) !== "a") throw new Error("unexpected");
 * ```
 */
export function capBytes(text: string, limit: number): string {
  if (text.length <= limit / 3 || encoder.encode(text).length <= limit) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = encoder.encode(char).length;
    if (bytes + size > limit) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

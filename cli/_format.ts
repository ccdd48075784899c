/**
 * What the commands print for people: tables, content blocks shaped for a terminal (text
 * as is, images and audio as a type and size line), structured content pretty-printed.
 * Server text goes through one sanitiser, {@linkcode clean}: whole escape sequences, C1
 * controls and bidi overrides are removed, so it cannot move the cursor, set the title or
 * the clipboard, or reorder what is read. Pure.
 *
 * @module
 */

import type { ContentBlock, ToolResult } from "../mod.ts";
import { paint } from "./terminal.ts";

// Whole escape sequences: CSI (ESC [ or C1 0x9b, parameters, intermediates, a final byte);
// OSC, DCS, SOS, PM and APC (ESC ] P X ^ _ or their C1 forms) up to BEL or ST, or to the end
// when unterminated; any other ESC with its intermediates and final byte; a lone ESC.
const ESCAPE_SEQUENCE = new RegExp(
  [
    "(?:\\x1b\\[|\\x9b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]?",
    "(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d\\x9e\\x9f])[^]*?(?:\\x07|\\x1b\\\\|\\x9c|$)",
    "\\x1b[\\x20-\\x2f]*[\\x30-\\x7e]?",
  ].join("|"),
  "g",
);

/** Bidirectional formatting characters: they reorder what a person reads. */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` made inert for a terminal: the one sanitiser every server-written string goes
 * through before the CLI prints it. Whole escape sequences are removed (an OSC 52
 * clipboard write leaves no printable tail), then C0 and C1 controls (a space each on one
 * line; newlines and tabs kept when `multiline`, other controls dropped) and bidi overrides.
 *
 * @example
 * ```ts
 * import { clean } from "./_format.ts";
 *
 * if (clean("a\x1b]52;c;aGk=\x07b\x1b[2Jc\u202ed") !== "abcd") throw new Error();
 * ```
 */
export function clean(text: string, multiline = false): string {
  let out = "";
  for (const char of text.replace(ESCAPE_SEQUENCE, "").replace(BIDI_CONTROLS, "")) {
    const code = char.codePointAt(0)!;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    if (!control) out += char;
    else if (multiline && (char === "\n" || char === "\t")) out += char;
    else if (!multiline) out += " ";
  }
  return out;
}

/**
 * JSON text with C1 controls and bidi overrides escaped as `\\uXXXX` (JSON escapes the C0
 * ones itself), so `--json` output cannot drive a terminal either. Such characters only
 * occur inside JSON strings, where the escape means the same character.
 */
export function escapeJsonText(json: string): string {
  return json.replace(
    /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * A table: a header row and one row per item, columns padded, the last cut to `width`.
 *
 * @param headers The column names.
 * @param rows The cells.
 * @param width The terminal's width.
 * @param color Whether to embolden the header.
 * @returns The table's lines, each ending with a newline.
 *
 * @example
 * ```ts
 * import { table } from "./_format.ts";
 *
 * const text = table(["NAME", "DESCRIPTION"], [["echo", "Echoes"], ["add", "Adds"]], 80, false);
 * if (text !== "NAME  DESCRIPTION\necho  Echoes\nadd   Adds\n") throw new Error(JSON.stringify(text));
 * ```
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
  color: boolean,
): string {
  const cells = rows.map((row) => row.map((cell) => clean(cell)));
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length))
  );
  const line = (row: readonly string[]) => {
    const padded = row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i]));
    const text = padded.join("  ").trimEnd();
    return text.length > width - 1 && width > 20 ? text.slice(0, width - 2) + "…" : text;
  };
  const head = line(headers);
  return [paint(color, "bold", head), ...cells.map(line)].map((l) => l + "\n").join("");
}

/** A byte count for people: `512 B`, `1.5 KiB`, `2.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The decoded size of base64 `data`. */
export function base64Size(data: string): number {
  const body = data.replace(/\s/g, "");
  const padding = body.endsWith("==") ? 2 : body.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(body.length * 3 / 4) - padding);
}

/**
 * One content block for a terminal.
 *
 * @example
 * ```ts
 * import { renderBlock } from "./_format.ts";
 *
 * if (renderBlock({ type: "image", mimeType: "image/png", data: "AAAA" }) !== "[image image/png, 3 B]") {
 *   throw new Error();
 * }
 * ```
 */
export function renderBlock(block: ContentBlock): string {
  const str = (value: unknown) => typeof value === "string" ? value : "";
  switch (block.type) {
    case "text":
      return clean(str(block.text), true);
    case "image":
    case "audio":
      return `[${block.type} ${clean(str(block.mimeType) || "?")}, ${
        formatBytes(base64Size(str(block.data)))
      }]`;
    case "resource_link":
      return `[link ${clean(str(block.uri))}${block.name ? ` (${clean(str(block.name))})` : ""}]`;
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === "string") {
        return `[resource ${clean(str(resource.uri))}]\n${clean(resource.text, true)}`;
      }
      return `[resource ${clean(str(resource.uri))} ${clean(str(resource.mimeType) || "?")}, ${
        formatBytes(base64Size(str(resource.blob)))
      }]`;
    }
    default:
      return `[${clean(block.type)}] ${clean(JSON.stringify(block))}`;
  }
}

/** JSON, indented, for people. */
export function pretty(value: unknown): string {
  return clean(JSON.stringify(value, null, 2) ?? "null", true);
}

/**
 * A tool result for a terminal: each block, then the structured content (when it adds to the
 * text), and a marked line when the tool failed.
 *
 * @example
 * ```ts
 * import { renderToolResult } from "./_format.ts";
 *
 * const text = renderToolResult({ content: [{ type: "text", text: "42" }], structuredContent: { sum: 42 }, isError: false }, false);
 * if (!text.startsWith("42\n") || !text.includes('"sum": 42')) throw new Error(text);
 * ```
 */
export function renderToolResult(result: ToolResult, color: boolean): string {
  const structured = result.structuredContent;
  const same = (block: ContentBlock) => {
    try {
      return block.type === "text" &&
        JSON.stringify(JSON.parse(String(block.text))) === JSON.stringify(structured);
    } catch {
      return false;
    }
  };
  // A text block that only repeats the structured content as JSON is shown once, pretty.
  const lines = result.content.filter((block) => structured === undefined || !same(block))
    .map(renderBlock);
  if (structured !== undefined) {
    if (lines.length > 0) lines.push(paint(color, "dim", "structured content:"));
    lines.push(pretty(structured));
  }
  if (result.isError) lines.unshift(paint(color, "red", "The tool reported an error:"));
  return lines.map((line) => line.endsWith("\n") ? line : line + "\n").join("");
}

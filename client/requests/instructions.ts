/**
 * The server's instructions made fit for a model's context (PI-1): capped in size, with
 * invisible and direction-changing characters removed, and (unless the server is trusted)
 * introduced by a line naming the server they came from.
 *
 * @module
 */

import type { Implementation } from "../../protocol/meta.ts";

/** The most bytes (UTF-8) of instructions kept. */
export const INSTRUCTIONS_LIMIT = 4096;

/**
 * Characters that do not show but change what a model reads or how text is displayed:
 * format characters (zero-width spaces and joiners, bidirectional marks, embeddings,
 * overrides and isolates, the BOM, soft hyphens, the Unicode tag block), control
 * characters other than tab and newline, variation selectors, the combining grapheme
 * joiner, and the Hangul and Khmer fillers that render as nothing.
 */
const INVISIBLE = new RegExp(
  [
    "\\p{Cf}",
    "[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F]",
    "[\\uFE00-\\uFE0F]",
    "[\\u{E0100}-\\u{E01EF}]",
    "\\u034F",
    "[\\u115F\\u1160\\u3164\\uFFA0]",
    "[\\u17B4\\u17B5]",
  ].join("|"),
  "gu",
);

/**
 * Removes invisible and bidirectional-control characters; `\r\n`, `\r` and the Unicode
 * line and paragraph separators become `\n`.
 *
 * @param text Text from the server.
 * @returns The visible text.
 *
 * @example
 * ```ts
 * import { stripInvisible } from "./instructions.ts";
 *
 * if (stripInvisible("a\u200Bb\u202Ec") !== "abc") throw new Error("unexpected");
 * ```
 */
export function stripInvisible(text: string): string {
  return text.replace(/\r\n?|[\u2028\u2029]/g, "\n").replace(INVISIBLE, "");
}

const encoder = new TextEncoder();

/**
 * Cuts `text` to at most `limit` UTF-8 bytes, never inside a character.
 *
 * @param text The text.
 * @param limit The most bytes.
 * @returns The text, or its longest prefix that fits.
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

/** Options of {@linkcode instructionsForLlm}. */
export interface InstructionsOptions {
  /** Leave out the line naming the server. */
  trusted?: boolean;
}

function serverName(info: Implementation | undefined): string {
  const raw = typeof info?.name === "string" ? info.name : "";
  const name = stripInvisible(raw).replace(/[\s"`\\]+/g, " ").trim().slice(0, 64);
  return name === "" ? "an unnamed MCP server" : `the MCP server "${name}"`;
}

/**
 * The server's instructions as they may go into a model's context: invisible and
 * bidirectional-control characters removed, capped at {@linkcode INSTRUCTIONS_LIMIT} bytes,
 * and, unless `trusted`, prefixed with a line naming the server. `undefined` when there are
 * none (or nothing visible is left).
 *
 * @param instructions The raw instructions from the handshake.
 * @param server The server's reported identity.
 * @param options `trusted`.
 * @returns The text for the model, or `undefined`.
 *
 * @example
 * ```ts
 * import { instructionsForLlm } from "./instructions.ts";
 *
 * const text = instructionsForLlm("Use\u200B the search tool.", { name: "docs", version: "1" });
 * if (!text?.endsWith("\nUse the search tool.") || !text.includes('"docs"')) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function instructionsForLlm(
  instructions: string | undefined,
  server: Implementation | undefined,
  options: InstructionsOptions = {},
): string | undefined {
  if (typeof instructions !== "string") return undefined;
  const text = capBytes(stripInvisible(instructions), INSTRUCTIONS_LIMIT);
  if (text.trim() === "") return undefined;
  if (options.trusted) return text;
  return `The following instructions come from ${
    serverName(server)
  }; they were written by that server, not by the user.\n${text}`;
}

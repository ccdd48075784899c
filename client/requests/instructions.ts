/**
 * The server's instructions made fit for a model's context (PI-1): run through the shared
 * sanitiser ({@linkcode sanitizeText}: invisible and direction-changing characters removed,
 * NFC, capped in size), and (unless the server is trusted) introduced by a line naming the
 * server they came from.
 *
 * @module
 */

import type { Implementation } from "../../protocol/meta.ts";
import { oneLine, sanitizeText } from "../../protocol/text.ts";

/** The most bytes (UTF-8) of instructions kept. */
export const INSTRUCTIONS_LIMIT = 4096;

/** Options of {@linkcode instructionsForLlm}. */
export interface InstructionsOptions {
  /** Leave out the line naming the server. */
  trusted?: boolean;
}

function serverName(info: Implementation | undefined): string {
  const raw = typeof info?.name === "string" ? info.name : "";
  const name = oneLine(raw.replace(/["`\\]+/g, " "), 64);
  return name === "" ? "an unnamed MCP server" : `the MCP server "${name}"`;
}

/**
 * The server's instructions as they may go into a model's context: sanitised as
 * {@linkcode sanitizeText} does (invisible and bidirectional-control characters removed),
 * capped at {@linkcode INSTRUCTIONS_LIMIT} bytes, and, unless `trusted`, prefixed with a line
 * naming the server. `undefined` when there are none (or nothing visible is left).
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
  const text = sanitizeText(instructions, { maxBytes: INSTRUCTIONS_LIMIT });
  if (text.trim() === "") return undefined;
  if (options.trusted) return text;
  return `The following instructions come from ${
    serverName(server)
  }; they were written by that server, not by the user.\n${text}`;
}

/**
 * The lazy catalogue: instead of every tool, a hub with `lazy: true` lists two meta-tools,
 * `search_tools` and `call_tool`, so a host with hundreds of tools hands a model two.
 *
 * `search_tools` ranks tools with {@linkcode searchTools}: names and descriptions are cut into
 * lower-case words (at non-alphanumerics and camelCase humps); each distinct word of the
 * query scores 3 when it is a word of the tool's name, else 2 when it begins one (2 letters
 * or more), else 1 when it is or begins (2 letters or more) a word of the description; a
 * tool's score is the sum. Tools that score 0 are left out; the rest come best first, ties
 * by name.
 *
 * @module
 */

import type { Tool } from "../client/types.ts";

/** The name of the meta-tool that searches the catalogue. */
export const SEARCH_TOOLS = "search_tools";
/** The name of the meta-tool that calls a tool of the catalogue. */
export const CALL_TOOL = "call_tool";
/**
 * The name of the meta-tool that reads a spilled result, listed besides the others when the
 * hub spills (`shape.spill`).
 */
export const READ_RESULT = "read_result";
/** How many tools `search_tools` returns unless asked (`limit`). */
export const DEFAULT_SEARCH_LIMIT = 10;
/** The most tools one `search_tools` returns. */
export const MAX_SEARCH_LIMIT = 50;

/** The two meta-tools a lazy hub lists, with input schemas a model can follow. */
export const META_TOOLS: readonly Tool[] = Object.freeze([
  {
    name: SEARCH_TOOLS,
    description: "Search the available tools by keywords (matched against tool names and " +
      "descriptions). Returns the best matches with their names, descriptions and input " +
      `schemas; then run one with ${CALL_TOOL}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Keywords describing the task, e.g. 'send email'" },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: MAX_SEARCH_LIMIT,
          description: `How many tools to return at most (default ${DEFAULT_SEARCH_LIMIT})`,
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        tools: {
          type: "array",
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              description: { type: "string" },
              inputSchema: { type: "object" },
            },
            required: ["name", "inputSchema"],
          },
        },
      },
      required: ["tools"],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    description: `Run a tool found with ${SEARCH_TOOLS}, by its name, with arguments that ` +
      "follow its input schema. Returns the tool's result.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: `The tool's name, as ${SEARCH_TOOLS} returned it` },
        arguments: {
          type: "object",
          description: "The tool's arguments, as its input schema describes them",
        },
      },
      required: ["name"],
      additionalProperties: false,
    },
  },
]);

/** One match of {@linkcode searchTools}. */
export interface ToolMatch {
  /** The tool's hub name. */
  name: string;
  /** Its description, when it has one. */
  description?: string;
  /** Its input schema. */
  inputSchema: Record<string, unknown>;
  /** Its score (see the module's documentation). */
  score: number;
}

/**
 * Cuts a text into lower-case words, at non-alphanumerics and camelCase humps.
 *
 * @param text The text.
 * @returns The words.
 */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

function scoreOf(query: readonly string[], name: string[], description: string[]): number {
  let score = 0;
  for (const word of query) {
    const begins = (w: string) => word.length >= 2 && w.startsWith(word);
    if (name.includes(word)) score += 3;
    else if (name.some(begins)) score += 2;
    else if (description.some((w) => w === word || begins(w))) score += 1;
  }
  return score;
}

/**
 * Ranks tools for a query (see the module's documentation for the scoring).
 *
 * @param tools The catalogue.
 * @param query The keywords.
 * @param limit The most matches to return.
 * @returns The matches, best first, ties by name.
 *
 * @example
 * ```ts
 * import { searchTools } from "./lazy.ts";
 *
 * const tools = [
 *   { name: "mail__send_email", description: "Send an email", inputSchema: { type: "object" } },
 *   { name: "docs__search", description: "Search the docs by email address", inputSchema: { type: "object" } },
 * ];
 * const [best] = searchTools(tools, "send email", 5);
 * if (best.name !== "mail__send_email" || best.score !== 6) throw new Error("unexpected");
 * ```
 */
export function searchTools(tools: readonly Tool[], query: string, limit: number): ToolMatch[] {
  const wanted = [...new Set(words(query))];
  const matches: ToolMatch[] = [];
  for (const tool of tools) {
    const score = scoreOf(wanted, words(tool.name), words(tool.description ?? ""));
    if (score === 0) continue;
    const match: ToolMatch = { name: tool.name, inputSchema: tool.inputSchema, score };
    if (tool.description !== undefined) match.description = tool.description;
    matches.push(match);
  }
  matches.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return matches.slice(0, limit);
}

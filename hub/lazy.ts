/**
 * The lazy catalogue: instead of every tool, a hub with `lazy: true` lists two meta-tools,
 * `search_tools` and `call_tool`, so a host with hundreds of tools hands a model two.
 * `search_tools` ranks with the index of `search.ts` (loaded on the first search).
 *
 * @module
 */

import type { Tool } from "../client/types.ts";

/** The name of the meta-tool that searches the catalogue. */
export const SEARCH_TOOLS = "search_tools";
/** The name of the meta-tool that calls a tool of the catalogue. */
export const CALL_TOOL = "call_tool";
/** The name of the meta-tool that reads a spilled result, listed when the hub spills. */
export { READ_RESULT } from "../governance/shape_names.ts";
/** How many tools `search_tools` returns unless asked (`limit`). */
export const DEFAULT_SEARCH_LIMIT = 10;
/** The most tools one `search_tools` returns. */
export const MAX_SEARCH_LIMIT = 50;

/** The two meta-tools a lazy hub lists, with input schemas a model can follow. */
export const META_TOOLS: readonly Tool[] = Object.freeze([
  {
    name: SEARCH_TOOLS,
    description: "Search the available tools by keywords (matched against tool names, " +
      "descriptions and parameters), or load tools by name with 'select:name1,name2'. " +
      "Returns the best matches with their names, descriptions and input schemas; then run " +
      `one with ${CALL_TOOL}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          description: "Keywords describing the task, e.g. 'send email', or 'select:<tool name>'",
        },
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

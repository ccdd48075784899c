/**
 * A client's or a hub's tools as Anthropic Messages API tools (`name`, `description`,
 * `input_schema`), with names the API accepts; `strict: true` rewrites the schemas for the
 * tools' strict mode as for OpenAI. The kit's `run` answers a `tool_use` block with the
 * `tool_result` block that goes back in the next user message.
 *
 * @module
 */

import type { AdapterCallOptions, AdapterOptions, ToolKit, ToolSource } from "./types.ts";

/** An Anthropic custom tool (`Tool`). */
export interface AnthropicTool {
  /** Its name: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** What it does. */
  description?: string;
  /** The JSON Schema of its input: an object. */
  input_schema: {
    /** Always `object`. */
    type: "object";
    /** The input's properties. */
    properties?: unknown;
    /** The required properties. */
    required?: string[];
    /** Further keywords. */
    [key: string]: unknown;
  };
  /** Whether the schema is strict (set when the kit was asked for strict mode). */
  strict?: boolean;
}

/** A `tool_use` content block of the model's message. */
export interface AnthropicToolUse {
  /** The block's id. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The input, an object. */
  input: unknown;
}

/** The `tool_result` content block answering a `tool_use`. */
export interface AnthropicToolResult {
  /** Always `tool_result`. */
  type: "tool_result";
  /** The `tool_use` block it answers. */
  tool_use_id: string;
  /** The tool's answer as text. */
  content: string;
  /** Present (`true`) when the tool, or the call, failed. */
  is_error?: boolean;
}

/** Anthropic tools and the way to run their calls. */
export interface AnthropicKit extends ToolKit {
  /** The tools, for the request's `tools`. */
  readonly tools: AnthropicTool[];
  /** Runs one `tool_use` block; resolves with the `tool_result` block answering it. */
  run(toolUse: AnthropicToolUse, options?: AdapterCallOptions): Promise<AnthropicToolResult>;
}

/**
 * Lists a source's tools as Anthropic tools.
 *
 * @example Tools for the Messages API, and a `tool_use` block run
 * ```ts
 * import { anthropicTools } from "../mod.ts";
 *
 * const source = {
 *   listAllTools: () =>
 *     Promise.resolve([{ name: "echo", description: "Echoes", inputSchema: { type: "object" } }]),
 *   callTool: () => Promise.resolve({ content: [{ type: "text", text: "hi" }], isError: false }),
 * };
 * const kit = await anthropicTools(source);
 * if (kit.tools[0].input_schema.type !== "object") throw new Error("unexpected");
 * const block = await kit.run({ id: "toolu_1", name: "echo", input: {} });
 * if (block.type !== "tool_result" || block.content !== "hi") throw new Error("unexpected");
 * ```
 *
 * @param source A client or a hub.
 * @param options `strict`, `signal`, `refresh`.
 * @returns The tools and the way to run their calls.
 */
export async function anthropicTools(
  source: ToolSource,
  options?: AdapterOptions,
): Promise<AnthropicKit> {
  // The schema compiler and the kit load on first use, not with the entry.
  const { ADAPTER_KEYS, buildKit, reply } = await import("./_kit.ts");
  const core = await buildKit(source, options, ADAPTER_KEYS, "anthropicTools");
  const strictAsked = options?.strict === true;
  return {
    catalog: core.catalog,
    call: core.call,
    originalName: core.originalName,
    tools: core.compiled.map((c) => ({
      name: c.name,
      ...(c.description === undefined ? {} : { description: c.description }),
      input_schema: c.parameters as AnthropicTool["input_schema"],
      ...(strictAsked ? { strict: c.strict } : {}),
    })),
    async run(toolUse, callOptions) {
      const args = toolUse.input as Record<string, unknown> | null | undefined;
      const { text, isError } = await reply(core, toolUse.name, args, callOptions);
      const block: AnthropicToolResult = {
        type: "tool_result",
        tool_use_id: toolUse.id,
        content: text,
      };
      if (isError) block.is_error = true;
      return block;
    },
  };
}

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
  /** `true` with `defer: true`: left out of the prompt until the tool search finds it. */
  defer_loading?: boolean;
}

/** Anthropic's server-side BM25 tool search tool (`ToolSearchToolBm25_20251119`). */
export interface AnthropicToolSearchTool {
  /** The tool's version. */
  type: "tool_search_tool_bm25_20251119";
  /** Always `tool_search_tool_bm25`. */
  name: "tool_search_tool_bm25";
}

/** Options of {@linkcode anthropicTools}. */
export interface AnthropicOptions extends AdapterOptions {
  /**
   * Send every tool with `defer_loading: true` (but those kept loaded: a hub's `alwaysLoad`,
   * a tool's `_meta["anthropic/alwaysLoad"]`), after Anthropic's BM25 tool search tool, so
   * the model loads only what it finds. From a hub, the whole catalogue is sent (lazy or not).
   * Default `false`.
   */
  defer?: boolean;
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

/** With `defer: true`: the tool search tool first, then the tools (most deferred). */
export interface AnthropicDeferredKit extends Omit<AnthropicKit, "tools"> {
  /** The tools, for the request's `tools`. */
  readonly tools: (AnthropicToolSearchTool | AnthropicTool)[];
}

/**
 * Lists a source's tools as Anthropic tools.
 *
 * @example Tools for the Messages API, and a `tool_use` block run
 * ```ts
 * import { anthropicTools } from "./mod.ts";
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
 * @example A hub's whole catalogue, deferred behind Anthropic's tool search
 * ```ts
 * import { anthropicTools } from "./mod.ts";
 *
 * const hub = {
 *   listAllTools: () => Promise.resolve([]),
 *   listCatalogue: () =>
 *     Promise.resolve({
 *       tools: [
 *         { name: "docs__search", inputSchema: { type: "object" } },
 *         { name: "mail__send", inputSchema: { type: "object" } },
 *       ],
 *       alwaysLoad: ["docs__search"],
 *     }),
 *   callTool: () => Promise.resolve({ content: [], isError: false }),
 * };
 * const kit = await anthropicTools(hub, { defer: true });
 * const [search, docs, mail] = kit.tools;
 * if (search.name !== "tool_search_tool_bm25") throw new Error("unexpected");
 * if ("defer_loading" in docs || !("defer_loading" in mail)) throw new Error("unexpected");
 * ```
 *
 * @param source A client or a hub.
 * @param options `strict`, `defer`, `signal`, `refresh`.
 * @returns The tools and the way to run their calls.
 */
export function anthropicTools(
  source: ToolSource,
  options: AnthropicOptions & { defer: true },
): Promise<AnthropicDeferredKit>;
/** Lists a source's tools as Anthropic tools (see above). */
export function anthropicTools(
  source: ToolSource,
  options?: AnthropicOptions & { defer?: false },
): Promise<AnthropicKit>;
/** Lists a source's tools as Anthropic tools, deferred or not as decided at run time. */
export function anthropicTools(
  source: ToolSource,
  options?: AnthropicOptions,
): Promise<AnthropicKit | AnthropicDeferredKit>;
export async function anthropicTools(
  source: ToolSource,
  options?: AnthropicOptions,
): Promise<AnthropicKit | AnthropicDeferredKit> {
  const { defer = false, ...rest } = options ?? {};
  if (typeof defer !== "boolean") {
    throw new TypeError('anthropicTools: option "defer" must be a boolean');
  }
  // The deferral's listing loads only when asked for.
  const deferred = defer ? (await import("./_defer.ts")).deferredLister(source) : undefined;
  // The schema compiler and the kit load on first use, not with the entry.
  const { ADAPTER_KEYS, buildKit, reply } = await import("./_kit.ts");
  const core = await buildKit(
    source,
    options === undefined ? options : rest,
    ADAPTER_KEYS,
    "anthropicTools",
    deferred?.list,
  );
  const loaded = deferred?.loaded();
  const strictAsked = options?.strict === true;
  const tools: AnthropicTool[] = core.compiled.map((c) => ({
    name: c.name,
    ...(c.description === undefined ? {} : { description: c.description }),
    input_schema: c.parameters as AnthropicTool["input_schema"],
    ...(strictAsked ? { strict: c.strict } : {}),
    ...(loaded === undefined || loaded.has(c.tool.name) ? {} : { defer_loading: true }),
  }));
  const search: AnthropicToolSearchTool = {
    type: "tool_search_tool_bm25_20251119",
    name: "tool_search_tool_bm25",
  };
  return {
    catalog: core.catalog,
    call: core.call,
    originalName: core.originalName,
    tools: defer ? [search, ...tools] : tools,
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

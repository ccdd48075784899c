/**
 * A client's or a hub's tools as OpenAI tools: Chat Completions `function` tools
 * (`api: "chat"`, the default) or Responses API function tools (`api: "responses"`), with
 * names OpenAI accepts and, with `strict: true`, schemas for Structured Outputs. The kit's
 * `run` answers a model's tool call with the message or input item that goes back to the
 * model.
 *
 * @module
 */

import type { AdapterCallOptions, AdapterOptions, ToolKit, ToolSource } from "./types.ts";

/** A Chat Completions function tool (`ChatCompletionFunctionTool`). */
export interface OpenAiChatTool {
  /** Always `function`. */
  type: "function";
  /** The function. */
  function: {
    /** Its name: `^[a-zA-Z0-9_-]{1,64}$`. */
    name: string;
    /** What it does. */
    description?: string;
    /** The JSON Schema of its arguments. */
    parameters: Record<string, unknown>;
    /** Whether the schema is strict (set when the kit was asked for strict mode). */
    strict?: boolean;
  };
}

/** A Responses API function tool (`FunctionTool`). */
export interface OpenAiResponsesTool {
  /** Always `function`. */
  type: "function";
  /** Its name: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** What it does. */
  description?: string;
  /** The JSON Schema of its arguments. */
  parameters: Record<string, unknown>;
  /** Whether the schema is strict. */
  strict: boolean;
  /** `true` with `defer: true`: left out of the prompt until the tool search finds it. */
  defer_loading?: boolean;
}

/** The Responses API's hosted tool search (`ToolSearchTool`), for deferred tools. */
export interface OpenAiToolSearchTool {
  /** Always `tool_search`. */
  type: "tool_search";
}

/**
 * A Chat Completions tool call, as the model's message holds it (`tool_calls` entries: a
 * call without `function`, such as a custom tool's, is answered with an error text).
 */
export interface OpenAiChatToolCall {
  /** The call's id. */
  id: string;
  /** The function called. */
  function?: { name: string; arguments: string };
}

/** The `tool` message that answers a Chat Completions tool call. */
export interface OpenAiToolMessage {
  /** Always `tool`. */
  role: "tool";
  /** The call it answers. */
  tool_call_id: string;
  /** The tool's answer as text. */
  content: string;
}

/** A Responses API `function_call` output item. */
export interface OpenAiFunctionCall {
  /** The call's id. */
  call_id: string;
  /** The function's name. */
  name: string;
  /** The arguments as JSON text. */
  arguments: string;
}

/** The `function_call_output` input item that answers a Responses API function call. */
export interface OpenAiFunctionCallOutput {
  /** Always `function_call_output`. */
  type: "function_call_output";
  /** The call it answers. */
  call_id: string;
  /** The tool's answer as text. */
  output: string;
}

/** Options of {@linkcode openAiTools}. */
export interface OpenAiOptions extends AdapterOptions {
  /** Which API the tools are for: Chat Completions (default) or Responses. */
  api?: "chat" | "responses";
  /**
   * Responses API only: send every tool with `defer_loading: true` (but those kept loaded: a
   * hub's `alwaysLoad`, a tool's `_meta["anthropic/alwaysLoad"]`), after the hosted
   * `tool_search` tool, so the model loads only what it finds. From a hub, the whole
   * catalogue is sent (lazy or not). Chat Completions has no deferral: a lazy hub's two
   * meta-tools do that job there. Default `false`.
   */
  defer?: boolean;
}

/** Chat Completions tools and the way to run their calls. */
export interface OpenAiChatKit extends ToolKit {
  /** The API. */
  readonly api: "chat";
  /** The tools, for the request's `tools`. */
  readonly tools: OpenAiChatTool[];
  /** Runs one of the model's tool calls; resolves with the `tool` message answering it. */
  run(toolCall: OpenAiChatToolCall, options?: AdapterCallOptions): Promise<OpenAiToolMessage>;
}

/** With `defer: true`: the tool search first, then the function tools (most deferred). */
export interface OpenAiDeferredKit extends Omit<OpenAiResponsesKit, "tools"> {
  /** The tools, for the request's `tools`. */
  readonly tools: (OpenAiToolSearchTool | OpenAiResponsesTool)[];
}

/** Responses API tools and the way to run their calls. */
export interface OpenAiResponsesKit extends ToolKit {
  /** The API. */
  readonly api: "responses";
  /** The tools, for the request's `tools`. */
  readonly tools: OpenAiResponsesTool[];
  /** Runs one `function_call` item; resolves with the `function_call_output` answering it. */
  run(call: OpenAiFunctionCall, options?: AdapterCallOptions): Promise<OpenAiFunctionCallOutput>;
}

/**
 * Lists a source's tools as OpenAI tools.
 *
 * @example Chat Completions tools in strict mode, and a model's call run
 * ```ts
 * import { openAiTools } from "./mod.ts";
 *
 * const source = {
 *   listAllTools: () => Promise.resolve([{
 *     name: "search.docs",
 *     inputSchema: {
 *       type: "object",
 *       properties: { query: { type: "string" }, limit: { type: "integer" } },
 *       required: ["query"],
 *     },
 *   }]),
 *   callTool: (_name: string, args?: Record<string, unknown>) =>
 *     Promise.resolve({ content: [{ type: "text", text: JSON.stringify(args) }], isError: false }),
 * };
 * const kit = await openAiTools(source, { strict: true });
 * const fn = kit.tools[0].function;
 * if (fn.name !== "search_docs" || fn.strict !== true) throw new Error("unexpected");
 * const answer = await kit.run({
 *   id: "call_1",
 *   function: { name: "search_docs", arguments: '{"query":"mcp","limit":null}' },
 * });
 * if (answer.content !== '{"query":"mcp"}') throw new Error(answer.content);
 * ```
 *
 * @param source A client or a hub.
 * @param options `api`, `strict`, `defer`, `signal`, `refresh`.
 * @returns The tools and the way to run their calls.
 */
export function openAiTools(
  source: ToolSource,
  options: OpenAiOptions & { api: "responses"; defer: true },
): Promise<OpenAiDeferredKit>;
/** Lists a source's tools as Chat Completions tools (see above). */
export function openAiTools(
  source: ToolSource,
  options?: OpenAiOptions & { api?: "chat"; defer?: false },
): Promise<OpenAiChatKit>;
/** Lists a source's tools as Responses API tools (see above). */
export function openAiTools(
  source: ToolSource,
  options: OpenAiOptions & { api: "responses"; defer?: false },
): Promise<OpenAiResponsesKit>;
/** Lists a source's tools as OpenAI tools, the API chosen at run time (see above). */
export function openAiTools(
  source: ToolSource,
  options?: OpenAiOptions,
): Promise<OpenAiChatKit | OpenAiResponsesKit | OpenAiDeferredKit>;
export async function openAiTools(
  source: ToolSource,
  options?: OpenAiOptions,
): Promise<OpenAiChatKit | OpenAiResponsesKit | OpenAiDeferredKit> {
  const api = options?.api ?? "chat";
  if (api !== "chat" && api !== "responses") {
    throw new TypeError('openAiTools: option "api" must be "chat" or "responses"');
  }
  const { api: _api, defer = false, ...rest } = options ?? {};
  if (typeof defer !== "boolean") {
    throw new TypeError('openAiTools: option "defer" must be a boolean');
  }
  if (defer && api !== "responses") {
    throw new TypeError(
      'openAiTools: option "defer" needs api: "responses" (Chat Completions has no deferred tools; use a lazy hub\'s meta-tools)',
    );
  }
  // The deferral's listing loads only when asked for.
  const deferred = defer ? (await import("./_defer.ts")).deferredLister(source) : undefined;
  // The schema compiler and the kit load on first use, not with the entry.
  const { ADAPTER_KEYS, buildKit, reply } = await import("./_kit.ts");
  const core = await buildKit(source, rest, ADAPTER_KEYS, "openAiTools", deferred?.list);
  const loaded = deferred?.loaded();
  const strictAsked = options?.strict === true;
  const base: ToolKit = { catalog: core.catalog, call: core.call, originalName: core.originalName };
  if (api === "responses") {
    const tools: OpenAiResponsesTool[] = core.compiled.map((c) => ({
      type: "function" as const,
      name: c.name,
      ...(c.description === undefined ? {} : { description: c.description }),
      parameters: c.parameters,
      strict: c.strict,
      ...(loaded === undefined || loaded.has(c.tool.name) ? {} : { defer_loading: true }),
    }));
    const search: OpenAiToolSearchTool = { type: "tool_search" };
    return {
      ...base,
      api,
      tools: defer ? [search, ...tools] : tools,
      async run(call, callOptions) {
        const { text } = await reply(core, call.name, call.arguments, callOptions);
        return { type: "function_call_output", call_id: call.call_id, output: text };
      },
    };
  }
  return {
    ...base,
    api,
    tools: core.compiled.map((c) => ({
      type: "function" as const,
      function: {
        name: c.name,
        ...(c.description === undefined ? {} : { description: c.description }),
        parameters: c.parameters,
        ...(strictAsked ? { strict: c.strict } : {}),
      },
    })),
    async run(toolCall, callOptions) {
      const fn = toolCall.function;
      const { text } = fn === undefined
        ? { text: "Error: only function tool calls run here" }
        : await reply(core, fn.name, fn.arguments, callOptions);
      return { role: "tool", tool_call_id: toolCall.id, content: text };
    },
  };
}

/**
 * A client's or a hub's tools as AI SDK tools (`generateText({ tools })`), without importing
 * the AI SDK: each tool is `{ description, inputSchema, execute }`, keyed by a safe name,
 * where `inputSchema` is the object the SDK's `jsonSchema()` makes (marked with the SDK's
 * registered symbol, so the SDK takes it as its own). Pass the SDK's `jsonSchema` as an
 * option to have it make them, typed as the SDK's schemas. `execute` resolves with the
 * tool's answer as text, and throws when the tool reports a failure (the SDK hands the
 * model a tool error).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { AdapterOptions, ToolKit, ToolSource } from "./types.ts";

/**
 * The symbol the AI SDK marks its schemas with (`Symbol.for("vercel.ai.schema")`).
 *
 * @example
 * ```ts
 * import { AI_SDK_SCHEMA } from "./mod.ts";
 *
 * if (AI_SDK_SCHEMA !== Symbol.for("vercel.ai.schema")) throw new Error("unexpected");
 * ```
 */
export const AI_SDK_SCHEMA: unique symbol = Symbol.for("vercel.ai.schema");

/** The object the AI SDK's `jsonSchema(schema)` returns, for a JSON Schema. */
export interface AiSdkSchema {
  /** The SDK's mark. */
  readonly [AI_SDK_SCHEMA]: true;
  /** Type inference only; `undefined`. */
  readonly _type: unknown;
  /** The JSON Schema the SDK hands the provider. */
  readonly jsonSchema: Record<string, unknown>;
  /** No validation beyond the server's own. */
  readonly validate: undefined;
}

/** What the AI SDK passes `execute` (the members used here). */
export interface AiSdkExecuteOptions {
  /** The call's id. */
  toolCallId?: string;
  /** Aborts the call. */
  abortSignal?: AbortSignal;
}

/** An AI SDK function tool. */
export interface AiSdkTool<S = AiSdkSchema> {
  /** What it does. */
  description?: string;
  /** The schema of its input. */
  inputSchema: S;
  /** Whether the schema is strict (set when the kit was asked for strict mode). */
  strict?: boolean;
  /** Runs the tool: its answer as text; throws `McpError` when it reported a failure. */
  execute(input: unknown, options?: AiSdkExecuteOptions): Promise<string>;
}

/** Options of {@linkcode aiSdkTools}. */
export interface AiSdkOptions<S> extends AdapterOptions {
  /** Makes each input schema; pass the AI SDK's `jsonSchema` (default: an equal object). */
  jsonSchema?: (schema: Record<string, unknown>) => S;
}

/** AI SDK tools and the way to run their calls. */
export interface AiSdkKit<S = AiSdkSchema> extends ToolKit {
  /** The tools by the names the model sees, for `generateText({ tools })`. */
  readonly tools: Record<string, AiSdkTool<S>>;
}

/** The object the AI SDK's `jsonSchema()` makes. */
function sdkSchema(schema: Record<string, unknown>): AiSdkSchema {
  return { [AI_SDK_SCHEMA]: true, _type: undefined, jsonSchema: schema, validate: undefined };
}

/**
 * Lists a source's tools as AI SDK tools.
 *
 * @example Tools for `generateText`, one executed as the SDK would
 * ```ts
 * import { aiSdkTools } from "./mod.ts";
 *
 * const source = {
 *   listAllTools: () =>
 *     Promise.resolve([{ name: "weather/today", inputSchema: { type: "object" } }]),
 *   callTool: () => Promise.resolve({ content: [{ type: "text", text: "Sunny" }], isError: false }),
 * };
 * const kit = await aiSdkTools(source);
 * const tool = kit.tools["weather_today"];
 * if (tool.inputSchema.jsonSchema.type !== "object") throw new Error("unexpected");
 * if ((await tool.execute({}, { toolCallId: "1" })) !== "Sunny") throw new Error("unexpected");
 * ```
 *
 * @param source A client or a hub.
 * @param options `jsonSchema`, `strict`, `signal`, `refresh`.
 * @returns The tools and the way to run their calls.
 */
export async function aiSdkTools<S = AiSdkSchema>(
  source: ToolSource,
  options?: AiSdkOptions<S>,
): Promise<AiSdkKit<S>> {
  const { jsonSchema, ...rest } = options ?? {};
  if (jsonSchema !== undefined && typeof jsonSchema !== "function") {
    throw new TypeError('aiSdkTools: option "jsonSchema" must be a function');
  }
  const make = (jsonSchema ?? sdkSchema) as (schema: Record<string, unknown>) => S;
  // The schema compiler and the kit load on first use, not with the entry.
  const { ADAPTER_KEYS, buildKit } = await import("./_kit.ts");
  const core = await buildKit(source, rest, ADAPTER_KEYS, "aiSdkTools");
  const strictAsked = options?.strict === true;
  const tools: Record<string, AiSdkTool<S>> = {};
  for (const c of core.compiled) {
    tools[c.name] = {
      ...(c.description === undefined ? {} : { description: c.description }),
      inputSchema: make(c.parameters),
      ...(strictAsked ? { strict: c.strict } : {}),
      async execute(input, executeOptions) {
        const signal = executeOptions?.abortSignal;
        const args = input as Record<string, unknown> | undefined;
        const result = await core.call(c.name, args, signal === undefined ? {} : { signal });
        if (result.isError) {
          throw new McpError(result.text, {
            kind: "server",
            reason: "tool_error",
            data: result.result,
          });
        }
        return result.text;
      },
    };
  }
  return { catalog: core.catalog, call: core.call, originalName: core.originalName, tools };
}

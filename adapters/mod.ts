/**
 * `@conduit/mcp/adapters`: a client's or a hub's tools as the tools of a model API, and a
 * model's tool calls run back through the client.
 *
 * - {@linkcode openAiTools}: OpenAI Chat Completions or Responses API function tools;
 * - {@linkcode anthropicTools}: Anthropic Messages API tools;
 * - {@linkcode aiSdkTools}: AI SDK tools (`generateText({ tools })`).
 *
 * Each kit loads its schema compiler on first use. The root entry (`@conduit/mcp`) keeps the
 * kits' shared types (`ToolKit`, `ToolSource`, `AdapterOptions`, …).
 *
 * @example Anthropic tools from any tool source
 * ```ts
 * import { anthropicTools } from "./mod.ts";
 *
 * const source = {
 *   listAllTools: () => Promise.resolve([{ name: "echo", inputSchema: { type: "object" } }]),
 *   callTool: () => Promise.resolve({ content: [{ type: "text", text: "hi" }], isError: false }),
 * };
 * const kit = await anthropicTools(source);
 * if (kit.tools[0].name !== "echo") throw new Error("unexpected");
 * ```
 *
 * @module
 */

export type * from "./types.ts";
export * from "./openai.ts";
export * from "./anthropic.ts";
export * from "./ai_sdk.ts";

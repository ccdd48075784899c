/**
 * The types every model adapter shares: the source of tools (a client or a hub), the kit
 * an adapter returns, and what a call through it gives back.
 *
 * @module
 */

import type { CallOptions, ListAllOptions, ReadResultOptions } from "../client/types.ts";
import type { ReadResultPage, Tool } from "../protocol/shapes.ts";

/**
 * Where an adapter's tools come from: anything that lists tools and calls them, such as an
 * `McpClient` or a hub. Calls go out with `shape: "llm"`; a source that answers with a plain
 * `ToolResult` anyway has it shaped by the adapter.
 */
export interface ToolSource {
  /** Lists every tool. */
  listAllTools(options?: ListAllOptions): Promise<Tool[]>;
  /** Calls a tool by the name it listed. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions & { shape?: "llm" },
  ): Promise<unknown>;
  /**
   * Whether the source spills results over budget (a client's or hub's `shape.spill`): the
   * kit then lists the `read_result` meta-tool, answered by `readResult` (a hub lists it
   * itself and answers it in `callTool`).
   */
  spilling?(): boolean;
  /** Reads a spilled result (see `McpClient.readResult`). */
  readResult?(handle: string, options?: ReadResultOptions): Promise<ReadResultPage>;
}

/** Options of a call through a kit, handed on to the source's `callTool`. */
export type AdapterCallOptions = CallOptions;

/** The arguments a model gave: its JSON text, or the parsed object. */
export type ModelArguments = string | Record<string, unknown> | null | undefined;

/** What a call through a kit gave. */
export interface AdapterResult {
  /** The tool's name as the source lists it. */
  name: string;
  /** The answer as the text a model reads. */
  text: string;
  /** Whether the tool reported a failure. */
  isError: boolean;
  /** What the source's `callTool` resolved with. */
  result: unknown;
}

/** One tool of a kit, and what its adapter did to it. */
export interface AdaptedTool {
  /** The name the model sees. */
  name: string;
  /** The tool as the source listed it. */
  tool: Tool;
  /** Whether its schema went in strict mode. */
  strict: boolean;
  /** What was changed or could not be done (a rename, strict mode off and why). */
  notes: string[];
  /**
   * Why the tool is not in the kit: its schema hides characters (Unicode tags, zero-width
   * or bidirectional controls) in a name or value the model would have to send back exactly
   * (a property name, `required`, `enum`, `const`). Absent when the tool is in.
   */
  leftOut?: string;
}

/** Options every adapter takes. */
export interface AdapterOptions {
  /**
   * Rewrite schemas for strict mode (all properties required, optional ones nullable, every
   * object closed, unsupported keywords moved into descriptions) and map the model's
   * arguments back before each call. A tool whose schema cannot be strict goes without
   * (see `catalog`). Default `false`.
   */
  strict?: boolean;
  /** Stops the listing. */
  signal?: AbortSignal;
  /** Ask the source for a fresh listing instead of a cached one. */
  refresh?: boolean;
}

/** What every kit has besides its tools. */
export interface ToolKit {
  /** Each tool, by the name the model sees, with what was done to it. */
  readonly catalog: readonly AdaptedTool[];
  /**
   * Runs a model's tool call: `name` as the model gave it (the safe name; an original name
   * works too), `args` as its JSON text or object. Strict arguments are mapped back to the
   * tool's own shape first.
   *
   * @throws {McpError} kind `not_found` (reason `unknown_tool`) for a name the kit lacks;
   *   kind `validation` (reason `invalid_arguments`) for arguments that are not a JSON object;
   *   and whatever the source's `callTool` fails with.
   */
  call(name: string, args?: ModelArguments, options?: AdapterCallOptions): Promise<AdapterResult>;
  /** The original name of a name the model sees (`undefined` when the kit lacks it). */
  originalName(name: string): string | undefined;
}

/**
 * Private: what the three adapters share. It checks the source and the options, lists and
 * compiles the tools, and runs a model's call: the name looked up, the arguments parsed and
 * mapped back, the call sent with `shape: "llm"`, the answer turned into text. `reply` is the form a `run` method uses: a
 * failure the model can act on (an unknown name, bad arguments, a server's refusal) comes
 * back as an error text instead of a rejection. The safe names a source's kits gave are
 * remembered per source (held weakly), so a kit rebuilt after the server lists a new tool
 * keeps each tool's name and never gives a known name to another tool.
 *
 * @module
 */

import type { ListAllOptions } from "../client/types.ts";
import type { Tool } from "../protocol/shapes.ts";
import { isMcpError, McpError } from "../protocol/errors.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { type CompiledTool, compileTools } from "./_compile.ts";
import { MAX_REMEMBERED } from "./_names.ts";
import { restore } from "./_plan.ts";
import { modelText } from "./_result.ts";
import { isObject } from "../protocol/json.ts";
import type {
  AdaptedTool,
  AdapterCallOptions,
  AdapterOptions,
  AdapterResult,
  ModelArguments,
  ToolKit,
  ToolSource,
} from "./types.ts";

/** The option keys every adapter takes. */
export const ADAPTER_KEYS: readonly string[] = ["strict", "signal", "refresh"];

/** A kit's shared part, with the compiled tools for the adapter to emit. */
export interface KitCore extends ToolKit {
  /** The compiled tools, in the source's order. */
  compiled: CompiledTool[];
}

/** Per source: original → safe name, every name its kits gave (oldest first). */
const GIVEN = new WeakMap<object, Map<string, string>>();

/** Remembers a kit's names for its source, forgetting the oldest past the bound. */
function remember(source: object, compiled: readonly CompiledTool[]): void {
  const given = GIVEN.get(source) ?? new Map<string, string>();
  for (const { name, tool } of compiled) {
    given.delete(tool.name);
    given.set(tool.name, name);
  }
  for (const key of given.keys()) {
    if (given.size <= MAX_REMEMBERED) break;
    given.delete(key);
  }
  GIVEN.set(source, given);
}

/** Parses a model's arguments into an object. */
function parseArguments(args: ModelArguments): Record<string, unknown> {
  let value: unknown = args;
  if (typeof args === "string") {
    if (args.trim() === "") return {};
    try {
      value = JSON.parse(args);
    } catch (cause) {
      const message = "The tool arguments are not valid JSON";
      throw new McpError(message, { kind: "validation", reason: "invalid_arguments", cause });
    }
  }
  if (value === null || value === undefined) return {};
  if (!isObject(value)) {
    const message = "The tool arguments are not a JSON object";
    throw new McpError(message, { kind: "validation", reason: "invalid_arguments" });
  }
  return value;
}

/** Calls the source with `shape: "llm"`: a client or hub answers with the text a model reads. */
function callSource(
  source: ToolSource,
  name: string,
  args: Record<string, unknown>,
  options: AdapterCallOptions | undefined,
): Promise<unknown> {
  return source.callTool(name, args, { ...options, shape: "llm" });
}

/**
 * Lists and compiles a source's tools, and makes the shared part of a kit.
 *
 * @param source The client or hub.
 * @param options The adapter's options (checked against `keys`).
 * @param keys Every option key the adapter takes.
 * @param where The adapter's name, for option errors.
 * @param lister Lists the source instead of its `listAllTools` (for deferral).
 * @returns The kit's shared part.
 */
export async function buildKit(
  source: ToolSource,
  options: AdapterOptions | undefined,
  keys: readonly string[],
  where: string,
  lister?: (list: ListAllOptions) => Promise<Tool[]>,
): Promise<KitCore> {
  if (
    !isObject(source) || typeof source.listAllTools !== "function" ||
    typeof source.callTool !== "function"
  ) {
    throw new TypeError(`${where}: the source must have listAllTools and callTool methods`);
  }
  if (options !== undefined && !isObject(options)) {
    throw new TypeError(`${where}: options must be an object`);
  }
  checkKeys(options ?? {}, keys, `the ${where} options`);
  const { strict = false, signal, refresh }: AdapterOptions = options ?? {};
  if (typeof strict !== "boolean") {
    throw new TypeError(`${where}: option "strict" must be a boolean`);
  }
  const list: ListAllOptions = {};
  if (signal !== undefined) list.signal = signal;
  if (refresh !== undefined) list.refresh = refresh;
  const listed = await (lister ?? ((l) => source.listAllTools(l)))(list);
  // A spilling source's results name a handle: the model reads the rest with read_result.
  const spill = typeof source.spilling === "function" && source.spilling() === true &&
      typeof source.readResult === "function"
    ? await import("../client/read_result.ts")
    : undefined;
  const ownReader = spill !== undefined && !listed.some((t) => t.name === spill.READ_RESULT);
  const all = compileTools(ownReader ? [...listed, spill.READ_RESULT_TOOL] : listed, {
    strict,
    previous: GIVEN.get(source),
  });
  remember(source, all);
  // A tool left out (hidden characters in a name or value it takes) is in the catalogue only.
  const compiled = all.filter((c) => c.leftOut === undefined);
  const byName = new Map<string, CompiledTool>(compiled.map((c) => [c.name, c]));
  const byOriginal = new Map<string, CompiledTool>(compiled.map((c) => [c.tool.name, c]));
  const catalog: AdaptedTool[] = all.map(({ name, tool, strict, notes, leftOut }) => ({
    name,
    tool,
    strict,
    notes,
    ...(leftOut === undefined ? {} : { leftOut }),
  }));
  return {
    compiled,
    catalog,
    originalName: (name) => byName.get(name)?.tool.name,
    async call(name, args, callOptions): Promise<AdapterResult> {
      const entry = byName.get(name) ?? byOriginal.get(name);
      if (entry === undefined) {
        const message = `No tool named ${JSON.stringify(name)} in this kit`;
        throw new McpError(message, { kind: "not_found", reason: "unknown_tool" });
      }
      const restored = restore(parseArguments(args), entry.plan) as Record<string, unknown>;
      if (ownReader && entry.tool.name === spill.READ_RESULT) {
        const read = source.readResult!.bind(source);
        const result = await spill.readResultCall(restored, callOptions?.principal, read);
        // The page as it is: its length is the model's to choose (shaping would cut it).
        const text = String(result.content[0].text);
        return { name: entry.tool.name, text, isError: result.isError, result };
      }
      const result = await callSource(source, entry.tool.name, restored, callOptions);
      return { name: entry.tool.name, ...modelText(result), result };
    },
  };
}

/** Kinds the caller, not the model, has to act on: a `reply` rethrows them. */
const HOST_KINDS = new Set(["cancelled", "closed"]);

/**
 * Runs a call for a `run` method: the result, or a failure as an error text for the model
 * (a `TypeError`, and an `McpError` of kind `cancelled` or `closed`, are rethrown).
 *
 * @param kit The kit.
 * @param name The name the model gave.
 * @param args The model's arguments.
 * @param options The call options.
 * @returns The text for the model, and whether it reports a failure.
 */
export async function reply(
  kit: ToolKit,
  name: string,
  args: ModelArguments,
  options: AdapterCallOptions | undefined,
): Promise<{ text: string; isError: boolean }> {
  try {
    const { text, isError } = await kit.call(name, args, options);
    return { text, isError };
  } catch (error) {
    if (!isMcpError(error) || HOST_KINDS.has(error.kind)) throw error;
    return { text: `Error: ${error.message}`, isError: true };
  }
}

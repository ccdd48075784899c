/**
 * `loadConfig(textOrPath)`: the server lists hosts already keep, as the servers of a hub.
 *
 * Reads Claude Desktop's and Cursor's `mcpServers` files, VS Code's `.vscode/mcp.json`
 * (`servers` and `inputs`) and the `mcp` section of its `settings.json`: JSON with comments
 * and trailing commas. Every problem is an `McpError` of kind `config` whose `data` names
 * the file, the entry and the key (`{ file, entry, key }`); values never appear in
 * messages, as they may be secrets.
 *
 * @module
 */

import type { ParseError } from "jsonc-parser";
import { readEnv } from "../runtime/read_env.ts";
import { readTextFile } from "../runtime/read_file.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import type { HubServer } from "./types.ts";
import { configError } from "./_config_error.ts";
import { configEntry } from "./_config_entry.ts";
import type { ConfigInput, Sources } from "./_expand.ts";

export type { ConfigInput } from "./_expand.ts";

/** The options of {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /**
   * Where `${env:NAME}` and `${NAME}` are read (default: this process's environment):
   * a record, or a function.
   */
  env?: Readonly<Record<string, string | undefined>> | ((name: string) => string | undefined);
  /**
   * Answers VS Code's `${input:id}`: a record by id, or a function (which may ask a person).
   * Without an answer the input's `default` is used; without one, the file is refused.
   */
  inputs?:
    | Readonly<Record<string, string>>
    | ((input: ConfigInput) => string | undefined | Promise<string | undefined>);
  /** Values of other `${name}` variables hosts define, e.g. `{ workspaceFolder: "/src/app" }`. */
  variables?: Readonly<Record<string, string>>;
  /** Receives diagnostics (keys the hub has no use for); never values. */
  onWarning?: (message: string) => void;
}

/** What {@linkcode loadConfig} returns: the `servers` of `hub()`'s options. */
export interface HubConfig {
  /** The servers by name (disabled entries left out), in the file's order. */
  servers: Record<string, HubServer>;
}

/**
 * Whether `value` is a file's text rather than its path: its first character past
 * whitespace and comments is `{`.
 *
 * @param value The argument.
 * @returns `true` for text.
 */
export function isConfigText(value: string): boolean {
  let i = 0;
  while (i < value.length) {
    if (/\s/.test(value[i]) || value[i] === "\uFEFF") i++;
    else if (value.startsWith("//", i)) {
      i = value.includes("\n", i) ? value.indexOf("\n", i) : value.length;
    } else if (value.startsWith("/*", i)) {
      const end = value.indexOf("*/", i + 2);
      i = end === -1 ? value.length : end + 2;
    } else return value[i] === "{";
  }
  return false;
}

function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The servers object of any of the known shapes, with its key path. */
function serversOf(root: Record<string, unknown>, file: string) {
  const vscode = isRecord(root.mcp) ? root.mcp : undefined;
  const found: [string, unknown, unknown][] = [];
  if (root.mcpServers !== undefined) found.push(["mcpServers", root.mcpServers, undefined]);
  if (root.servers !== undefined) found.push(["servers", root.servers, root.inputs]);
  if (vscode?.servers !== undefined) found.push(["mcp.servers", vscode.servers, vscode.inputs]);
  if (found.length === 0) {
    throw configError({ file }, "no_servers", "has no mcpServers (or VS Code servers) object");
  }
  if (found.length > 1) {
    const keys = found.map(([key]) => key).join(" and ");
    throw configError({ file, key: found[1][0] }, "ambiguous", `has both ${keys}`);
  }
  const [key, servers, inputs] = found[0];
  if (!isRecord(servers)) throw configError({ file, key }, "invalid_value", "must be an object");
  const inputsKey = key === "servers" ? "inputs" : "mcp.inputs";
  return { key, servers, inputs: inputsOf(inputs, file, inputsKey) };
}

function inputsOf(value: unknown, file: string, key: string): Map<string, ConfigInput> {
  const inputs = new Map<string, ConfigInput>();
  if (value === undefined) return inputs;
  if (!Array.isArray(value)) throw configError({ file, key }, "invalid_value", "must be an array");
  for (const [i, input] of value.entries()) {
    if (!isRecord(input) || typeof input.id !== "string" || input.id === "") {
      throw configError({ file, key: `${key}[${i}].id` }, "invalid_value", "must be a string");
    }
    inputs.set(input.id, input as unknown as ConfigInput);
  }
  return inputs;
}

function sourcesOf(options: LoadConfigOptions, inputs: Map<string, ConfigInput>): Sources {
  const { env, inputs: answers, variables = {} } = options;
  return {
    env: typeof env === "function" ? env : env === undefined ? readEnv : (name) => env[name],
    input: typeof answers === "function"
      ? answers
      : (input) =>
        answers !== undefined && Object.hasOwn(answers, input.id) ? answers[input.id] : undefined,
    variables,
    inputs,
  };
}

async function readConfig(path: string | URL): Promise<string> {
  try {
    return await readTextFile(path);
  } catch (error) {
    const missing = (error as { code?: unknown }).code === "ENOENT";
    const reason = missing ? "file_not_found" : "unreadable";
    const problem = missing ? "no such file" : "cannot be read";
    throw configError({ file: String(path) }, reason, problem, error);
  }
}

/**
 * Reads a host's config file (or its text) into the servers of a hub.
 *
 * @param textOrPath The file's path (or `file:` URL), or its text: a string whose first
 *   character past whitespace and comments is `{` is text.
 * @param options Where variables come from, and where warnings go.
 * @returns `{ servers }`, ready for `hub()`.
 * @throws {McpError} kind `config` (reasons `file_not_found`, `unreadable`, `invalid_json`,
 *   `no_servers`, `ambiguous`, `invalid_entry`, `invalid_value`, `undefined_variable`,
 *   `unknown_input`, `missing_input`), `data` naming the file, the entry and the key.
 *
 * @example A Claude Desktop file, with a comment and a variable
 * ```ts
 * import { loadConfig } from "./config.ts";
 *
 * const config = await loadConfig(`{
 *   // Tools for the docs team
 *   "mcpServers": {
 *     "search": { "command": "npx", "args": ["-y", "docs-search"], "env": { "KEY": "\${env:DOCS_KEY}" } },
 *     "old": { "command": "legacy-server", "disabled": true },
 *   },
 * }`, { env: { DOCS_KEY: "k-123" } });
 * const search = config.servers.search as { env: Record<string, string> };
 * if (Object.keys(config.servers).join() !== "search" || search.env.KEY !== "k-123") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export async function loadConfig(
  textOrPath: string | URL,
  options: LoadConfigOptions = {},
): Promise<HubConfig> {
  if (typeof textOrPath !== "string" && !(textOrPath instanceof URL)) {
    throw new TypeError("loadConfig takes a path, a file: URL or the file's text");
  }
  checkKeys(options, ["env", "inputs", "variables", "onWarning"], "loadConfig options");
  const isText = typeof textOrPath === "string" && isConfigText(textOrPath);
  const file = isText ? "<text>" : String(textOrPath);
  const text = isText ? textOrPath as string : await readConfig(textOrPath);
  // The parser loads on first use, not with the entry.
  const { parse, printParseErrorCode } = await import("jsonc-parser");
  const errors: ParseError[] = [];
  const root = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const [first] = errors;
    const problem = `is not valid JSON (${printParseErrorCode(first.error)} at ${
      position(text, first.offset)
    })`;
    throw configError({ file }, "invalid_json", problem);
  }
  if (!isRecord(root)) throw configError({ file }, "invalid_json", "must hold a JSON object");
  const { key, servers, inputs } = serversOf(root, file);
  const sources = sourcesOf(options, inputs);
  const warn = options.onWarning ?? (() => {});
  const result: Record<string, HubServer> = {};
  for (const [name, entry] of Object.entries(servers)) {
    const place = { file, entry: name, key: `${key}.${name}` };
    const server = await configEntry(entry, sources, place, warn);
    if (server !== undefined) result[name] = server;
  }
  return { servers: result };
}

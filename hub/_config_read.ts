/**
 * Private: reading a host's config file into a hub's servers, loaded by `loadConfig`
 * (`config.ts`) on first use, with the file reader, the JSONC parser and the entries' checks.
 *
 * @module
 */

import type { ParseError } from "jsonc-parser";
import { readEnv } from "../runtime/read_env.ts";
import { readTextFile } from "../runtime/read_file.ts";
import type { HubServer } from "./types.ts";
import { configError } from "./_config_error.ts";
import { configEntry } from "./_config_entry.ts";
import type { ConfigInput, Sources } from "./_expand.ts";

/** The options of `loadConfig`. */
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

/** What `loadConfig` returns: the `servers` of `hub()`'s options. */
export interface HubConfig {
  /** The servers by name (disabled entries left out), in the file's order. */
  servers: Record<string, HubServer>;
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
 * The servers of a config file or its text, as `loadConfig` returns them.
 *
 * @param textOrPath The file's path (or `file:` URL), or its text.
 * @param isText Whether `textOrPath` is the text.
 * @param options Where variables come from, and where warnings go.
 * @returns `{ servers }`.
 */
export async function readServers(
  textOrPath: string | URL,
  isText: boolean,
  options: LoadConfigOptions,
): Promise<HubConfig> {
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

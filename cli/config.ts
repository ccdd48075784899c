/**
 * Servers by name, from a config file: `--config <path>`, else the nearest `mcp.json` (or
 * `.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) from the working directory up, else
 * the hosts' usual files (Cursor's `~/.cursor/mcp.json`, Claude Desktop's config). The files
 * are JSONC with `mcpServers` (or VS Code's `servers`); each entry is a command
 * (`command`, `args`, `env`, `cwd`) or a URL (`url`, `headers`).
 *
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse, type ParseError } from "jsonc-parser";

/** One server of a config file. */
export interface ServerEntry {
  /** The command of a stdio server. */
  command?: string;
  /** Its arguments. */
  args?: string[];
  /** Its environment. */
  env?: Record<string, string>;
  /** Its working directory. */
  cwd?: string;
  /** The URL of an HTTP server. */
  url?: string;
  /** Headers for an HTTP server. */
  headers?: Record<string, string>;
}

/** The servers of a config file. */
export interface ServerConfig {
  /** The file they came from. */
  path: string;
  /** The servers by name. */
  servers: Record<string, ServerEntry>;
}

const PROJECT_FILES = ["mcp.json", ".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"];

/** The config files looked at when `--config` is not given, nearest first. */
export function configCandidates(cwd: string, home: string | undefined): string[] {
  const found: string[] = [];
  let dir = resolve(cwd);
  for (;;) {
    for (const name of PROJECT_FILES) found.push(join(dir, name));
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (home) {
    found.push(
      join(home, ".cursor", "mcp.json"),
      join(home, ".config", "Claude", "claude_desktop_config.json"),
      join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"),
    );
  }
  return found;
}

/**
 * Reads the servers of a config file's text.
 *
 * @param text The file's JSONC text.
 * @param path The file's path, for messages.
 * @returns The servers.
 * @throws {TypeError} When the text is not JSON(C) or has no server list.
 *
 * @example
 * ```ts
 * import { parseServers } from "./config.ts";
 *
 * const config = parseServers('{ "mcpServers": { "fs": { "command": "npx", "args": ["-y", "fs"] } } }', "mcp.json");
 * if (config.servers.fs.command !== "npx") throw new Error();
 * ```
 */
export function parseServers(text: string, path: string): ServerConfig {
  const errors: ParseError[] = [];
  const data = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof data !== "object" || data === null) {
    throw new TypeError(`${path} is not valid JSON`);
  }
  const list = data.mcpServers ?? data.servers;
  if (typeof list !== "object" || list === null || Array.isArray(list)) {
    throw new TypeError(`${path} has no "mcpServers" object`);
  }
  const servers: Record<string, ServerEntry> = {};
  for (const [name, raw] of Object.entries(list as Record<string, unknown>)) {
    if (typeof raw !== "object" || raw === null) continue;
    const entry = raw as Record<string, unknown>;
    const strings = (value: unknown) =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? Object.fromEntries(
          Object.entries(value).filter(([, v]) => typeof v === "string"),
        ) as Record<string, string>
        : undefined;
    servers[name] = {
      command: typeof entry.command === "string" ? entry.command : undefined,
      args: Array.isArray(entry.args) ? entry.args.map(String) : undefined,
      env: strings(entry.env),
      cwd: typeof entry.cwd === "string" ? entry.cwd : undefined,
      url: typeof entry.url === "string"
        ? entry.url
        : typeof entry.serverUrl === "string"
        ? entry.serverUrl
        : undefined,
      headers: strings(entry.headers),
    };
  }
  return { path, servers };
}

/**
 * The config to look names up in: `path` when given, else the first candidate that exists.
 *
 * @returns The config, or `undefined` when no file was found.
 * @throws {TypeError} When the given or found file cannot be read or parsed.
 */
export function loadServers(
  path: string | undefined,
  cwd: string,
  home: string | undefined,
): ServerConfig | undefined {
  const files = path !== undefined ? [resolve(cwd, path)] : configCandidates(cwd, home);
  for (const file of files) {
    if (path === undefined && !existsSync(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      throw new TypeError(`cannot read the config file ${file}`);
    }
    return parseServers(text, file);
  }
  return undefined;
}

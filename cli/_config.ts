/**
 * Servers by name, from a config file: `--config <path>`, else the nearest `mcp.json` (or
 * `.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) from the working directory up, else
 * the hosts' usual files (Cursor's `~/.cursor/mcp.json`, Windsurf's, Claude Desktop's), read by
 * the library's `loadConfig`; each entry is a command (`command`, `args`, `env`, `cwd`) or a
 * URL (`url`, `headers`).
 *
 * @module
 */

import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { loadConfig } from "../mod.ts";

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
      join(home, ".codeium", "windsurf", "mcp_config.json"),
      join(home, ".config", "Claude", "claude_desktop_config.json"),
      join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"),
    );
  }
  return found;
}

/**
 * Reads the servers of a config file (its path or its text) with the library's `loadConfig`:
 * JSONC, `mcpServers` or VS Code's `servers`, `${env:NAME}` and `${workspaceFolder}`
 * expanded, disabled entries left out.
 *
 * @param textOrPath The file's path, or its text.
 * @param path The file's path, for messages and `${workspaceFolder}`.
 * @param env Where variables are read.
 * @returns The servers.
 * @throws {McpError} kind `config`, naming the file, the entry and the key.
 *
 * @example
 * ```ts
 * import { parseServers } from "./_config.ts";
 *
 * const text = '{ "mcpServers": { "fs": { "command": "npx", "args": ["-y", "fs"] } } }';
 * const config = await parseServers(text, "/work/mcp.json", () => undefined);
 * if (config.servers.fs.command !== "npx") throw new Error();
 * ```
 */
export async function parseServers(
  textOrPath: string,
  path: string,
  env: (name: string) => string | undefined,
): Promise<ServerConfig> {
  const folder = dirname(path);
  const workspaceFolder = /^\.(vscode|cursor)$/.test(basename(folder)) ? dirname(folder) : folder;
  const config = await loadConfig(textOrPath, { env, variables: { workspaceFolder } });
  const servers: Record<string, ServerEntry> = {};
  for (const [name, server] of Object.entries(config.servers)) {
    const entry = server as unknown as Record<string, unknown>;
    if (entry.url !== undefined) {
      servers[name] = {
        url: String(entry.url),
        headers: entry.headers as Record<string, string> | undefined,
      };
    } else if (typeof entry.command === "string") {
      servers[name] = {
        command: entry.command,
        args: entry.args as string[] | undefined,
        env: entry.env as Record<string, string> | undefined,
        cwd: entry.cwd as string | undefined,
      };
    }
  }
  return { path, servers };
}

/**
 * The config to look names up in: `path` when given, else the first candidate that exists.
 *
 * @returns The config, or `undefined` when no file was found.
 * @throws {McpError} kind `config` when the given or found file cannot be read or parsed.
 */
export async function loadServers(
  path: string | undefined,
  cwd: string,
  env: (name: string) => string | undefined,
): Promise<ServerConfig | undefined> {
  if (path !== undefined) return await parseServers(resolve(cwd, path), resolve(cwd, path), env);
  const found = configCandidates(cwd, env("HOME")).find((file) => existsSync(file));
  return found === undefined ? undefined : await parseServers(found, found, env);
}

/**
 * Servers by name, from a config file: `--config <path>`, else the nearest `mcp.json` (or
 * `.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) from the working directory up, else
 * the hosts' usual files (Cursor's `~/.cursor/mcp.json`, Windsurf's, Claude Desktop's), read by
 * the library's `loadConfig`; each entry is a command (`command`, `args`, `env`, `cwd`) or a
 * URL (`url`, `headers`).
 *
 * A found file chooses commands and gets `${env:…}` expanded into them, so discovery reads
 * only files the user vouches for. The walk up stops at the repository root (a folder with
 * `.git`) or the home folder, whichever comes first; outside both, only the working folder
 * itself is looked at. A file owned by someone else or writable by others is passed over.
 * The user's own host config is read too and wins for the names it defines; the project
 * file adds the others. `--config` is the user's own choice and is read as given.
 *
 * @module
 */

import { existsSync, statSync } from "node:fs";
import process from "node:process";
import { basename, dirname, join, resolve } from "node:path";
import type { ElicitationRule } from "../mod.ts";
import { loadConfig } from "../hub/mod.ts";

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
  /** The OAuth account profile of an HTTP server (`login`, `whoami`, `logout` default to it). */
  profile?: string;
  /** Answer rules for the server's elicitation requests (the client's `elicitation` option). */
  elicitation?: ElicitationRule[];
}

/** The servers of a config file. */
export interface ServerConfig {
  /** The file they came from. */
  path: string;
  /** The servers by name. */
  servers: Record<string, ServerEntry>;
}

const PROJECT_FILES = ["mcp.json", ".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"];

/** The project config files looked at when `--config` is not given, nearest first. */
export function configCandidates(cwd: string, home: string | undefined): string[] {
  const top = resolve(cwd);
  const stop = home === undefined ? undefined : resolve(home);
  const folders: string[] = [];
  let dir = top;
  let bounded = false;
  for (;;) {
    folders.push(dir);
    if (dir === stop || existsSync(join(dir, ".git"))) {
      bounded = true;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // Outside any repository and the home folder there is no boundary: only the working folder.
  return (bounded ? folders : [top]).flatMap((folder) =>
    PROJECT_FILES.map((name) => join(folder, name))
  );
}

/** The hosts' own config files under `home`, in the order they are looked at. */
export function hostConfigCandidates(home: string | undefined): string[] {
  if (!home) return [];
  return [
    join(home, ".cursor", "mcp.json"),
    join(home, ".codeium", "windsurf", "mcp_config.json"),
    join(home, ".config", "Claude", "claude_desktop_config.json"),
    join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"),
  ];
}

/**
 * Why a found config file is not to be trusted, or `undefined` when it is: owned by another
 * user than `uid`, or writable by others. Where the platform has no user ids (`uid`
 * undefined), only the mode is looked at.
 *
 * @example
 * ```ts
 * import { untrustedConfig } from "./_config.ts";
 *
 * if (untrustedConfig({ uid: 501, mode: 0o100644 }, 501) !== undefined) throw new Error();
 * if (untrustedConfig({ uid: 0, mode: 0o100644 }, 501) === undefined) throw new Error();
 * if (untrustedConfig({ uid: 501, mode: 0o100666 }, 501) === undefined) throw new Error();
 * ```
 */
export function untrustedConfig(
  stat: { uid: number; mode: number },
  uid: number | undefined,
): string | undefined {
  if (uid !== undefined && stat.uid !== uid) return "owned by another user";
  if ((stat.mode & 0o002) !== 0) return "writable by others";
  return undefined;
}

function trusted(file: string): boolean {
  try {
    const stat = statSync(file);
    return stat.isFile() && untrustedConfig(stat, process.getuid?.()) === undefined;
  } catch {
    return false;
  }
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
        ...(typeof entry.profile === "string" ? { profile: entry.profile } : {}),
      };
    } else if (typeof entry.command === "string") {
      servers[name] = {
        command: entry.command,
        args: entry.args as string[] | undefined,
        env: entry.env as Record<string, string> | undefined,
        cwd: entry.cwd as string | undefined,
      };
    }
    // Checked by createClient when the server is used.
    if (servers[name] && entry.elicitation !== undefined) {
      servers[name].elicitation = entry.elicitation as ElicitationRule[];
    }
  }
  return { path, servers };
}

/**
 * The config to look names up in: `path` when given; else the nearest trusted project file
 * and the first trusted host file, the host's entries winning for the names it defines.
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
  const home = env("HOME");
  const projectFile = configCandidates(cwd, home).find(trusted);
  const hostFile = hostConfigCandidates(home).find((file) => file !== projectFile && trusted(file));
  const project = projectFile === undefined
    ? undefined
    : await parseServers(projectFile, projectFile, env);
  const host = hostFile === undefined ? undefined : await parseServers(hostFile, hostFile, env);
  if (project === undefined || host === undefined) return project ?? host;
  return { path: project.path, servers: { ...project.servers, ...host.servers } };
}

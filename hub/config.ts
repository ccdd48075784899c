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

import { checkKeys } from "../protocol/option_keys.ts";
import type { HubConfig, LoadConfigOptions } from "./_config_read.ts";

export type { ConfigInput } from "./_expand.ts";
export type { HubConfig, LoadConfigOptions } from "./_config_read.ts";

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
  // The reader, the parser and the entries' checks load on first use, not with the entry.
  const { readServers } = await import("./_config_read.ts");
  return await readServers(textOrPath, isText, options);
}

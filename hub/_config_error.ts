/**
 * Private: the one error of config files, kind `config`, naming the file, the entry and
 * the key (never a value: values may be secrets).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";

/** Where in a config file something is wrong. */
export interface ConfigPlace {
  /** The file's path, or `"<text>"`. */
  file: string;
  /** The server entry's name, when the problem is in one. */
  entry?: string;
  /** The key's path, e.g. `mcpServers.github.env.GITHUB_TOKEN`. */
  key?: string;
}

/**
 * A config error.
 *
 * @param place The file, entry and key.
 * @param reason A stable snake_case reason.
 * @param problem What is wrong, for people.
 * @param cause The underlying error.
 * @returns The error: kind `config`, `data` = `{ file, entry, key }`.
 */
export function configError(
  place: ConfigPlace,
  reason: string,
  problem: string,
  cause?: unknown,
): McpError {
  const where = place.key === undefined ? place.file : `${place.file}: ${place.key}`;
  return new McpError(`${where}: ${problem}`, {
    kind: "config",
    reason,
    data: { ...place },
    cause,
  });
}

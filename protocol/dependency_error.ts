/**
 * Private: the error of a package the client loads on first use (`eventsource-parser`, the
 * OAuth libraries) that does not load, for example when the program's `package.json` or
 * import map does not provide it. No retry can fix that, so it has its own reason.
 *
 * @module
 */

import { McpError } from "./errors.ts";

/**
 * The error of a lazy import that failed: kind `transport`, reason `dependency_missing`,
 * with the first line of the runtime's words in the message.
 *
 * @param what What failed to load and what for, e.g. `the "eventsource-parser" package`.
 * @param needed What it is needed for, e.g. `to read the server's event stream`.
 * @param error What the import threw.
 * @returns The error.
 */
export function dependencyMissing(what: string, needed: string, error: unknown): McpError {
  const words = String((error as { message?: unknown } | null)?.message ?? "").split("\n")[0]
    .trim();
  return new McpError(
    `Cannot ${needed}: ${what} failed to load${words === "" ? "" : ` (${words})`}`,
    { kind: "transport", reason: "dependency_missing", cause: error },
  );
}

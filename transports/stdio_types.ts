/**
 * The stdio transport's public types that its process link (`_stdio_link.ts`) builds too:
 * kept below both files, so neither imports the other's types back.
 *
 * @module
 */

import type { ExitStatus } from "../runtime/spawn.ts";
import type { TransportLink } from "./transport.ts";

/**
 * What happens to the server's stderr. It is always read, so the server never blocks on a
 * full pipe.
 *
 * - `"buffer"` (default): keep the last `stderrTailBytes` (see `stderrTail()`; the tail
 *   also goes into the error when the process exits);
 * - `"inherit"`: also copy it to this process's stderr as it arrives;
 * - `"ignore"`: discard it;
 * - a function: also call it with each decoded chunk (not split into lines).
 *
 * @example Prefix the server's log lines
 * ```ts
 * import type { StdioStderr } from "./stdio_types.ts";
 *
 * const stderr: StdioStderr = (chunk) => console.error(`[server] ${chunk.trimEnd()}`);
 * ```
 */
export type StdioStderr = "buffer" | "inherit" | "ignore" | ((chunk: string) => void);

/**
 * A live stdio link: one server process.
 *
 * @example Show why a server died
 * ```ts ignore
 * import { stdio } from "./stdio.ts";
 *
 * const link = await stdio({ command: "my-mcp-server" }).open({
 *   message: () => {},
 *   closed: (error) => console.error(error.message),
 * });
 * const { code } = await link.exited;
 * console.error(`exit ${code}:`, link.stderrTail());
 * ```
 */
export interface StdioLink extends TransportLink {
  /** The server's process id. */
  readonly pid: number;
  /** Settles when the server process has ended. */
  readonly exited: Promise<ExitStatus>;
  /** The last bytes the server wrote to stderr, decoded (empty with `stderr: "ignore"`). */
  stderrTail(): string;
}

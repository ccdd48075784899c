/**
 * A mock server as a stdio child: `mockStdio(module)` is the command that serves a definition
 * module over stdin/stdout, for `connect(…)` or `stdio(…)`.
 *
 * @module
 */

import process from "node:process";

/** Options of {@linkcode mockStdio}. */
export interface MockStdioOptions {
  /** Deno only: the permission flags of the child (default `--allow-read --allow-env`). */
  denoFlags?: readonly string[];
}

/** The command of a stdio mock server: what `stdio(…)` and `connect(…)` take. */
export interface MockStdioCommand {
  /** The runtime's executable (Deno or Bun: the one running now). */
  command: string;
  /** Its arguments: the serving script and the definition module. */
  args: string[];
}

/**
 * The command that runs a mock server over stdio, in the runtime running now. The module's
 * default export is the {@linkcode MockDefinition} (or a function returning it); the child
 * exits when its stdin closes.
 *
 * @param module The definition module: a path, or a `file:`, `https:` or `data:` URL.
 * @param options Deno's permission flags.
 * @returns `{ command, args }`.
 *
 * @example Serve a definition module to a client over stdio
 * ```ts
 * import { mockStdio } from "./stdio.ts";
 * import { connect } from "../mod.ts";
 *
 * // Usually a file next to the test (`new URL("./greeter.ts", import.meta.url)`).
 * const module = "data:text/javascript,export default { tools: [{ name: 'hi', handler: () => 'hello' }] };";
 * await using client = await connect(mockStdio(module), { reconnect: false });
 * const result = await client.callTool("hi");
 * if (result.content[0].text !== "hello") throw new Error("unexpected");
 * ```
 */
export function mockStdio(module: string | URL, options: MockStdioOptions = {}): MockStdioCommand {
  const url = module instanceof URL
    ? module.href
    : new URL(module, `file://${process.cwd()}/`).href;
  const script = new URL("./stdio_main.ts", import.meta.url);
  const path = script.protocol === "file:" ? decodeURIComponent(script.pathname) : script.href;
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun !== undefined) return { command: process.execPath, args: [path, url] };
  if (versions.deno !== undefined) {
    const flags = options.denoFlags ?? ["--allow-read", "--allow-env"];
    return { command: process.execPath, args: ["run", "--no-prompt", ...flags, path, url] };
  }
  return { command: process.execPath, args: [path, url] };
}

/** The definition type the module exports (re-exported for the module's authors). */
export type { MockDefinition } from "./types.ts";

#!/usr/bin/env bun
/**
 * `@conduit/mcp/cli`: an MCP inspector for the terminal, built on the library's public API —
 * list a server's tools, prompts, resources and templates, call a tool with a live progress
 * line, get a prompt, read a resource, ask for completions, show the handshake, log in with
 * OAuth, and watch notifications; for people (tables, colours on a terminal) and for scripts
 * (`--json`, exit codes).
 *
 * ```sh
 * deno run -A jsr:@conduit/mcp/cli tools -- npx -y @modelcontextprotocol/server-everything
 * deno run -A jsr:@conduit/mcp/cli call add a=2 b=40 http://127.0.0.1:3000/mcp
 * ```
 *
 * @example Run the CLI from a program, with a terminal of your own
 * ```ts
 * import { main, type Terminal } from "./cli.ts";
 *
 * let out = "";
 * const term: Terminal = {
 *   out: (text) => void (out += text),
 *   err: () => {},
 *   tty: false,
 *   color: false,
 *   columns: 80,
 *   env: () => undefined,
 *   onInterrupt: () => () => {},
 * };
 * const code = await main(["--help"], term);
 * if (code !== 0 || !out.includes("Exit codes:")) throw new Error("unexpected");
 * ```
 *
 * @module
 */

import process from "node:process";
import { main } from "./cli/main.ts";
import { flushProcessOutput, processTerminal } from "./cli/terminal.ts";

export { main } from "./cli/main.ts";
export type { Keys, Terminal } from "./cli/terminal.ts";

if (import.meta.main) {
  const code = await main(process.argv.slice(2), processTerminal());
  await flushProcessOutput();
  process.exit(code);
}

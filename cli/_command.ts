/**
 * What every command gets (the parsed line, the terminal, Ctrl-C as a signal, a way to
 * connect) and returns (an exit code), and the exit codes themselves.
 *
 * @module
 */

import type { McpClient } from "../mod.ts";
import type { ParsedArgs } from "./_args.ts";
import { escapeJsonText } from "./_format.ts";
import type { OpenClient, OpenOptions, ServerSpec } from "./_session.ts";
import type { Terminal } from "./terminal.ts";

/** The exit codes, as `--help` documents them. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The tool ran and reported an error (`isError`), or the server refused the request. */
  toolError: 1,
  /** A bad command line (unknown command or flag, arguments the schema refuses). */
  usage: 2,
  /** The server could not be reached, or refused the credentials. */
  connection: 3,
  /** Interrupted by Ctrl-C. */
  interrupted: 130,
} as const;

/** What a command runs with. */
export interface CommandContext {
  /** The command line. */
  parsed: ParsedArgs;
  /** The terminal. */
  term: Terminal;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
  /** Connects to the server the command line names (the caller calls `close` when done). */
  open(options?: OpenOptions): Promise<OpenClient>;
}

/** One command of the CLI. */
export interface Command {
  /** Its name. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Its `--help` text (usage line first). */
  help: string;
  /**
   * Whether it takes words of its own (a tool, a URI…). One that does not takes its single
   * word as the server (a URL or a config name) and refuses more.
   */
  words?: boolean;
  /** Runs it; resolves with the exit code. */
  run(ctx: CommandContext): Promise<number>;
  /**
   * Whether `--help` on this line is the command's own to answer (`call <tool> --help`
   * shows the tool's parameters); otherwise `help` is printed.
   */
  ownHelp?(parsed: ParsedArgs): boolean;
}

/** Writes `value` as JSON to standard output, C1 controls and bidi overrides escaped. */
export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.term.out(escapeJsonText(JSON.stringify(value, null, 2)) + "\n");
}

/** Connects, runs `fn` with the client, and closes the client whatever happens. */
export async function withClient(
  ctx: CommandContext,
  fn: (client: McpClient, spec: ServerSpec) => Promise<number>,
  options?: OpenOptions,
): Promise<number> {
  const { client, spec, close } = await ctx.open(options);
  try {
    return await fn(client, spec);
  } finally {
    await close();
  }
}

/** The first line of `text`, for a table cell. */
export function firstLine(text: unknown): string {
  return typeof text === "string" ? text.split("\n")[0].trim() : "";
}

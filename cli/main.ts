/**
 * The CLI's top: reads the command line, runs the command with Ctrl-C wired to an abort
 * signal (a second Ctrl-C ends at once), and turns what it returned or threw into an exit
 * code and one line on standard error.
 *
 * @module
 */

import { parseArgs, type ParsedArgs } from "./_args.ts";
import { type Command, type CommandContext, EXIT } from "./_command.ts";
import { CALL_COMMAND, READ_RESULT_COMMAND } from "./commands/_call.ts";
import { COMPLETE_COMMAND, PROMPT_COMMAND, READ_COMMAND } from "./commands/_content.ts";
import { LIST_COMMANDS } from "./commands/_lists.ts";
import { LOGIN_COMMAND, LOGOUT_COMMAND, WHOAMI_COMMAND } from "./commands/_auth.ts";
import { STATUS_COMMAND, WATCH_COMMAND } from "./commands/_status.ts";
import { SEARCH_COMMAND } from "./commands/_search.ts";
import { describeFailure, type Failure } from "./_errors.ts";
import { escapeJsonText } from "./_format.ts";
import { didYouMean } from "./_suggest.ts";
import { SERVERS_COMMAND } from "./commands/_servers.ts";
import { openClient, serverSpec } from "./_session.ts";
import { CONNECT_COMMAND, DISCONNECT_COMMAND } from "./commands/_keep.ts";
import { EMIT_TS_COMMAND } from "./commands/_emit.ts";
import type { Terminal } from "./terminal.ts";

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  ...LIST_COMMANDS,
  CALL_COMMAND,
  READ_RESULT_COMMAND,
  PROMPT_COMMAND,
  READ_COMMAND,
  COMPLETE_COMMAND,
  STATUS_COMMAND,
  LOGIN_COMMAND,
  LOGOUT_COMMAND,
  WHOAMI_COMMAND,
  WATCH_COMMAND,
  SEARCH_COMMAND,
  SERVERS_COMMAND,
  CONNECT_COMMAND,
  DISCONNECT_COMMAND,
  EMIT_TS_COMMAND,
];

/** The commands a kept session (`connect`) serves; the others always connect afresh. */
const KEPT_COMMANDS = new Set([
  "tools",
  "prompts",
  "resources",
  "templates",
  "call",
  "read-result",
  "prompt",
  "read",
  "complete",
  "status",
]);

/** The top-level `--help`. */
export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const list = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n");
  return `Usage: conduit-mcp <command> [arguments] [flags] <server>

An MCP inspector built on @conduit/mcp: what it shows is what a program gets.

Commands:
${list}

The server:
  -- <command> [args…]      a stdio server, e.g. -- npx -y @modelcontextprotocol/server-everything
  <url>                     a Streamable HTTP server (the first http(s) URL among the arguments)
  --server, -s <url|name>   a URL, or a server named in a config file (commands that take no
                            other arguments, such as tools or status, take the name alone)
  --config <path>           the config file (default: the nearest mcp.json, .mcp.json,
                            .vscode/mcp.json or .cursor/mcp.json, then the hosts' own files:
                            Cursor's, Windsurf's, Claude Desktop's); alone, it lists the
                            file's servers

Flags:
  --json                    output for scripts (JSON; a failure is {"error": …} on stdout)
  --verbose, -v             print the wire on stderr (secrets redacted) and error causes
  --protocol <p>            auto (default), modern, legacy, or a version such as 2025-06-18
  --header, -H "Name: v"    an HTTP header (repeatable)
  --timeout <ms>            the request timeout (default 60000)
  --help, -h                this help, or a command's: conduit-mcp <command> --help

The server's questions (on a terminal, a form; Ctrl-C answers cancel):
  --answer key=value        answers a form by rule (repeatable; also a config entry's
                            "elicitation" rules); without a terminal the rest get cancel
  --sample-command "<cmd>"  answers sampling: the request as JSON on stdin, the reply on stdout
  --root [<dir>]            offers the working folder (or <dir>; repeatable) as a root

Colours only on a terminal, never with NO_COLOR set.

Exit codes:
  0    ok
  1    the tool reported an error (isError), or the server refused the request
  2    usage: a bad command, flag or argument (arguments are checked before sending)
  3    the server could not be reached, or refused the credentials
  130  interrupted (Ctrl-C)
`;
}

/**
 * Runs the CLI.
 *
 * @param argv The arguments (without the runtime and script).
 * @param term The terminal.
 * @returns The exit code.
 */
export async function main(argv: readonly string[], term: Terminal): Promise<number> {
  // Before the line is read, `--json` anywhere before `--` asks for a JSON failure.
  const end = argv.indexOf("--");
  const json = (end < 0 ? argv : argv.slice(0, end)).includes("--json");
  const fail = (failure: Failure) => {
    if (json) term.out(escapeJsonText(JSON.stringify({ error: failure.json }, null, 2)) + "\n");
    else term.err(failure.text);
    return failure.code;
  };
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    return fail(describeFailure(error, { connected: false, verbose: false }));
  }
  if (parsed.command === undefined && parsed.flags.config !== undefined && !parsed.flags.help) {
    // `--config <file>` alone: the file's servers.
    parsed.command = "servers";
    parsed.flags.list = true;
  }
  if (parsed.command === undefined || parsed.command === "help") {
    const named = COMMANDS.find((c) => c.name === parsed.words[0]);
    (parsed.command === undefined && !parsed.flags.help ? term.err : term.out)(
      named?.help ?? mainHelp(),
    );
    return parsed.command === undefined && !parsed.flags.help ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === parsed.command);
  if (command === undefined) {
    const near = didYouMean(parsed.command, COMMANDS.map((c) => c.name));
    return fail(describeFailure(new TypeError(`unknown command ${parsed.command}${near}`), {
      connected: false,
      verbose: false,
    }));
  }
  if (parsed.flags.help && !command.ownHelp?.(parsed)) {
    term.out(command.help);
    return EXIT.ok;
  }
  if (!command.words) {
    const { flags, words } = parsed;
    if (flags.server === undefined && parsed.serverCommand === undefined && words.length > 0) {
      flags.server = words.shift();
    }
    if (words.length > 0) {
      return fail(describeFailure(
        new TypeError(
          `${command.name} takes no arguments but the server: ${JSON.stringify(words[0])}` +
            ` is one too many`,
        ),
        { connected: false, verbose: false, command: command.name },
      ));
    }
  }
  const controller = new AbortController();
  let connected = false;
  let server: string | undefined = parsed.flags.server ?? parsed.serverCommand?.join(" ");
  const stopListening = term.onInterrupt(() => {
    if (controller.signal.aborted) {
      term.err("\nInterrupted.\n");
      term.exit?.(EXIT.interrupted);
    }
    controller.abort();
  });
  const ctx: CommandContext = {
    parsed,
    term,
    signal: controller.signal,
    async open(options) {
      // Through a kept session when there is one (not to print the wire, nor for a task).
      const keepable = KEPT_COMMANDS.has(command.name) && options?.login === undefined &&
        !parsed.flags.verbose && !parsed.flags.task;
      const spec = keepable ? await serverSpec(parsed, term) : undefined;
      const opened = (spec && await (await import("./_kept_client.ts")).openKept(
        spec,
        parsed,
        term,
      )) || await openClient(parsed, term, { ...options, spec, signal: controller.signal });
      connected = true;
      server = opened.spec.label;
      return opened;
    },
  };
  try {
    return await command.run(ctx);
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") {
      const code = EXIT.interrupted;
      return fail({ text: "Cancelled.\n", code, json: { message: "Cancelled.", exitCode: code } });
    }
    return fail(describeFailure(error, {
      server,
      connected,
      verbose: parsed.flags.verbose,
      command: command.name,
      authHeader: parsed.flags.headers.some((h) => /^authorization\s*:/i.test(h)),
    }));
  } finally {
    stopListening();
  }
}

/**
 * A failure as one line a person can act on, and its exit code: a `TypeError` is a usage
 * error (2); an `McpError` of the connection or its credentials is 3, one of a request is 1,
 * a cancelled one (Ctrl-C) 130. `--verbose` adds the cause chain. The library's messages
 * carry no secrets, and neither do these. Messages and causes carry server text (names, error
 * messages, a crashed server's stderr tail), so each goes through `clean` before printing.
 *
 * @module
 */

import { isMcpError, type McpError } from "../mod.ts";
import { EXIT } from "./_command.ts";
import { clean } from "./_format.ts";

/** The line(s) to print and the exit code of a failure. */
export interface Failure {
  /** What to print on standard error (ends with a newline). */
  text: string;
  /** The exit code. */
  code: number;
  /** The same for scripts (`--json`): printed on standard output as `{ "error": … }`. */
  json: FailureJson;
}

/** A failure as `--json` prints it. */
export interface FailureJson {
  /** What went wrong (sanitised). */
  message: string;
  /** What to do about it, when there is a hint. */
  hint?: string;
  /** The exit code. */
  exitCode: number;
  /** The library error's kind and reason, for an `McpError`. */
  kind?: string;
  /** The reason. */
  reason?: string;
  /** The server, when the client never got ready. */
  server?: string;
  /** Each problem, for arguments refused before sending. */
  problems?: string[];
}

/**
 * Arguments refused before anything was sent: one line per problem, and then what the
 * command takes (a tool's parameters). A usage error (exit 2).
 */
export class ArgumentsError extends TypeError {
  /** One line each. */
  readonly problems: string[];
  /** Printed after the problems (for people), such as the tool's parameters. */
  readonly help: string;

  /** @param problems The problems. @param help What the command takes. */
  constructor(problems: string[], help = "") {
    super(problems.join("; "));
    this.name = "ArgumentsError";
    this.problems = problems;
    this.help = help;
  }
}

/** What {@linkcode describeFailure} knows of the run. */
export interface FailureContext {
  /** The server's label (its URL, command or config name). */
  server?: string;
  /** Whether the client got ready. */
  connected: boolean;
  /** `--verbose`: add the cause chain. */
  verbose: boolean;
  /** The command, for the pointer to its help. */
  command?: string;
  /** Whether an `Authorization` header was given (`--header`). */
  authHeader?: boolean;
}

const CONNECTION_KINDS = new Set(["transport", "closed", "auth", "unavailable"]);

const START_FAILURES = new Set(["command_not_found", "permission_denied", "spawn_failed"]);

function hint(error: McpError, context: FailureContext): string {
  const { server, connected } = context;
  if (error.kind === "auth") {
    if (context.authHeader) return "the server refused the Authorization header given";
    return server !== undefined && /^https?:/.test(server)
      ? `log in with: conduit-mcp login ${server}`
      : "check the credentials (--header)";
  }
  if (error.reason === "command_not_found") return "is it installed, and on PATH?";
  if (error.reason === "process_exited" && !connected) {
    return /stderr ends with/.test(error.message) ? "" : "run the command alone to see why";
  }
  if (!connected && (error.kind === "transport" || error.kind === "closed")) {
    return `is the server running, and is the command or URL right?${
      context.verbose ? "" : " (--verbose shows more)"
    }`;
  }
  if (error.kind === "timeout") return "raise --timeout, or check the server";
  if (error.reason === "no_common_version") return "try another --protocol";
  return "";
}

/**
 * The library's message, said for this run: a process that ended before the handshake
 * "exited … before answering", the server named once (a command that cannot start is
 * named by the message itself; the runtime's own wording is left to `--verbose`).
 */
function phrase(error: McpError, context: FailureContext): { head: string; tail: string } {
  let message = error.message;
  if (START_FAILURES.has(error.reason ?? "")) {
    // `Cannot start "x": … (the runtime's message, naming x again)`.
    message = message.replace(/ \((?:[^()]|\([^()]*\))*\)$/, "");
    return { head: message, tail: "" };
  }
  if (error.reason === "process_exited" && !context.connected) {
    message = message.replace(
      /^The server process (exited with code [^;\s]+|was killed by [^;\s]+)/,
      "The server process $1 before answering",
    );
  }
  // The server's own words (a stderr tail) go below the line that says what happened.
  const cut = message.search(/; its stderr ends with:\n/);
  const head = cut < 0 ? message : message.slice(0, cut);
  const tail = cut < 0 ? "" : message.slice(cut);
  const where = !context.connected && context.server ? ` (${context.server})` : "";
  return { head: head + where, tail };
}

function causes(error: unknown): string {
  const lines: string[] = [];
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause !== undefined && depth < 8; depth++) {
    const described = cause instanceof Error
      ? `${cause.name}${
        isMcpError(cause) ? ` (${cause.kind}${cause.reason ? `, ${cause.reason}` : ""})` : ""
      }: ${clean(cause.message, true)}`
      : clean(String(cause), true);
    lines.push(`  caused by ${described}\n`);
    cause = (cause as { cause?: unknown }).cause;
  }
  return lines.join("");
}

/**
 * Describes `error` for a person.
 *
 * @param error What was thrown.
 * @param context The server's label, whether the client got ready, and `--verbose`.
 * @returns The text and the exit code.
 *
 * @example
 * ```ts
 * import { describeFailure } from "./_errors.ts";
 *
 * const failure = describeFailure(new TypeError("unknown flag --x"), { connected: false, verbose: false });
 * if (failure.code !== 2 || !failure.text.startsWith("error: unknown flag --x")) throw new Error();
 * ```
 */
export function describeFailure(error: unknown, context: FailureContext): Failure {
  const more = context.verbose ? causes(error) : "";
  if (error instanceof ArgumentsError) {
    const problems = error.problems.map((p) => clean(p));
    const lines = problems.map((p) => `error: ${p}\n`).join("");
    return {
      text: lines + clean(error.help, true),
      code: EXIT.usage,
      json: { message: problems.join("; "), exitCode: EXIT.usage, problems },
    };
  }
  if (error instanceof TypeError || error instanceof RangeError) {
    const help = context.command ? `conduit-mcp ${context.command} --help` : "conduit-mcp --help";
    const message = clean(error.message, true);
    return {
      text: `error: ${message} (see ${help})\n${more}`,
      code: EXIT.usage,
      json: { message, hint: `see ${help}`, exitCode: EXIT.usage },
    };
  }
  if (isMcpError(error)) {
    const code = error.kind === "cancelled"
      ? EXIT.interrupted
      : error.kind === "validation" || error.kind === "config"
      ? EXIT.usage
      : !context.connected || CONNECTION_KINDS.has(error.kind)
      ? EXIT.connection
      : EXIT.toolError;
    const base = { exitCode: code, kind: error.kind, reason: error.reason };
    if (error.kind === "cancelled") {
      return { text: "Cancelled.\n", code, json: { message: "Cancelled.", ...base } };
    }
    const { head, tail } = phrase(error, context);
    const advice = hint(error, context);
    const text = `${clean(head, true)}${advice ? ` — ${advice}` : ""}${clean(tail, true)}`;
    const json: FailureJson = { message: clean(head + tail, true), ...base };
    if (advice) json.hint = advice;
    if (!context.connected && context.server) json.server = clean(context.server);
    return { text: `error: ${text}\n${more}`, code, json };
  }
  const message = clean(error instanceof Error ? error.message : String(error), true);
  return {
    text: `error: ${message}\n${more}`,
    code: EXIT.toolError,
    json: { message, exitCode: EXIT.toolError },
  };
}

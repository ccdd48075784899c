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

function hint(error: McpError, context: FailureContext): string {
  const { server, connected } = context;
  if (error.kind === "auth") {
    if (context.authHeader) return " — the server refused the Authorization header given";
    return server !== undefined && /^https?:/.test(server)
      ? ` — log in with: conduit-mcp login ${server}`
      : " — check the credentials (--header)";
  }
  if (!connected && (error.kind === "transport" || error.kind === "closed")) {
    return " — is the server running, and is the command or URL right? (--verbose shows more)";
  }
  if (error.kind === "timeout") return " — raise --timeout, or check the server";
  if (error.reason === "no_common_version") return " — try another --protocol";
  return "";
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
  if (error instanceof TypeError || error instanceof RangeError) {
    const help = context.command ? `conduit-mcp ${context.command} --help` : "conduit-mcp --help";
    return {
      text: `error: ${clean(error.message, true)} (see ${help})\n${more}`,
      code: EXIT.usage,
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
    if (error.kind === "cancelled") return { text: "Cancelled.\n", code };
    const where = !context.connected && context.server ? ` (${context.server})` : "";
    const detail = `${clean(error.message, true)}${where}${hint(error, context)}`;
    return { text: `error: ${detail}\n${more}`, code };
  }
  const message = clean(error instanceof Error ? error.message : String(error), true);
  return { text: `error: ${message}\n${more}`, code: EXIT.toolError };
}

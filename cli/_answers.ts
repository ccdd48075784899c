/**
 * How the CLI answers a server's questions, in both eras (the library's handler layer
 * carries them): elicitation by the answer rules (`--answer key=value`, a config entry's
 * `elicitation`), then on a terminal by a form ({@linkcode askOnTerminal}, loaded with the
 * first question), and without one by `cancel` with a line on standard error; sampling by
 * the `--sample-command` (the request's params as JSON on its stdin, the reply text on its
 * stdout), else refused with a message that says how to configure it; roots from `--root`.
 *
 * @module
 */

import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import process from "node:process";
import {
  type ClientHandler,
  type ElicitationRule,
  type ElicitResult,
  McpError,
  type Root,
  spawnProcess,
} from "../mod.ts";
import { oneLine } from "../protocol/text.ts";
import type { ParsedArgs } from "./_args.ts";
import { clean } from "./_format.ts";
import type { Terminal } from "./terminal.ts";

/**
 * The rule the `--answer key=value` flags make: every value a string, read by its field's
 * type when the server asks (`"42"` for an integer, `"yes"` for a boolean, `"a,b"` for a
 * multi-select).
 *
 * @param answers The flags' values.
 * @returns The rule, or `undefined` without any.
 * @throws {TypeError} For a flag without `=` or a key given twice.
 *
 * @example
 * ```ts
 * import { answerRule } from "./_answers.ts";
 *
 * const rule = answerRule(["name=Ada", "age=36"]);
 * if (JSON.stringify(rule) !== '{"answer":{"name":"Ada","age":"36"}}') throw new Error();
 * ```
 */
export function answerRule(answers: readonly string[]): ElicitationRule | undefined {
  if (answers.length === 0) return undefined;
  const answer: Record<string, unknown> = {};
  for (const pair of answers) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new TypeError(`--answer takes key=value, not ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    if (Object.hasOwn(answer, key)) throw new TypeError(`--answer gives ${key} twice`);
    Object.defineProperty(answer, key, {
      value: pair.slice(eq + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { answer };
}

/** The roots `--root` offers: each folder as a `file://` URI, named by its last segment. */
export function rootsOf(folders: readonly string[], cwd: string): Root[] {
  return folders.map((folder) => {
    const path = resolve(cwd, folder);
    return { uri: pathToFileURL(path).href, name: basename(path) || path };
  });
}

const SAMPLE_OUTPUT_MAX = 1 << 20;

/** What the server is told when sampling is refused (the CLI has no model command). */
export const SAMPLING_REFUSED =
  "The client has no model to sample with (conduit-mcp without --sample-command)";

/**
 * Runs the sample command: `sh -c <command>` with the sampling request's params as JSON on
 * stdin; its standard output (trimmed, at most 1 MiB) is the model's reply.
 */
async function sample(
  command: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const child = spawnProcess({ command: "sh", args: ["-c", command], inheritEnv: "all" });
  const stop = () => child.killTree?.("SIGTERM") ?? child.kill("SIGTERM");
  signal.addEventListener("abort", stop, { once: true });
  try {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(params))).catch(() => {});
    await writer.close().catch(() => {});
    const [out, , status] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (signal.aborted) throw new McpError("Sampling was cancelled", { kind: "cancelled" });
    if (status.code !== 0) {
      throw new McpError(`The sample command failed (exit ${status.code ?? status.signal})`, {
        kind: "server",
        code: -32603,
      });
    }
    if (out.length > SAMPLE_OUTPUT_MAX) {
      throw new McpError("The sample command printed more than 1 MiB", {
        kind: "server",
        code: -32603,
      });
    }
    return {
      role: "assistant",
      content: { type: "text", text: out.trim() },
      model: oneLine(command.split(/\s+/)[0] ?? "sample-command", 64) || "sample-command",
      stopReason: "endTurn",
    };
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/** What {@linkcode cliAnswers} builds for `createClient`. */
export interface CliAnswers {
  /** The handler: elicitation, sampling, and roots when `--root` is given. */
  handler: ClientHandler;
  /** The answer rules, first match wins. */
  elicitation: ElicitationRule[];
}

/**
 * The handler and answer rules of one run.
 *
 * @param parsed The command line (`--answer`, `--sample-command`, `--root`).
 * @param term The terminal: a form when its `keys` are there and standard error is a TTY.
 * @param server The server's name, for messages.
 * @param configRules The config entry's `elicitation` rules.
 */
export function cliAnswers(
  parsed: ParsedArgs,
  term: Terminal,
  server: string,
  configRules: readonly ElicitationRule[] = [],
): CliAnswers {
  const { flags } = parsed;
  const rule = answerRule(flags.answers);
  const rules = [...(rule ? [rule] : []), ...configRules];
  const name = clean(server);
  const interactive = term.keys !== undefined && term.tty;
  const elicitation = async (
    params: Record<string, unknown>,
    ctx: { signal: AbortSignal },
  ): Promise<ElicitResult> => {
    if (interactive) {
      const { askOnTerminal } = await import("./_form.ts");
      return askOnTerminal(term, server, params, ctx.signal);
    }
    const message = oneLine(typeof params.message === "string" ? params.message : "", 200);
    term.err(
      `${term.tty ? "\r\x1b[2K" : ""}${name} asked ${JSON.stringify(message)}: answered cancel ` +
        `(no terminal to ask on, and no --answer or config rule answers it)\n`,
    );
    return { action: "cancel" };
  };
  const command = flags.sampleCommand;
  const sampling = (params: Record<string, unknown>, ctx: { signal: AbortSignal }) => {
    if (command !== undefined) return sample(command, params, ctx.signal);
    term.err(
      `${term.tty ? "\r\x1b[2K" : ""}${name} asked to sample a model: refused. To answer, ` +
        `pass --sample-command "<command>" (it gets the request as JSON on stdin and prints ` +
        `the reply)\n`,
    );
    throw new McpError(SAMPLING_REFUSED, { kind: "denied", reason: "sampling_refused", code: -1 });
  };
  const handler: ClientHandler = { elicitation, sampling };
  if (flags.roots.length > 0) {
    const roots = rootsOf(flags.roots, process.cwd());
    handler.listRoots = () => roots.map((root) => ({ ...root }));
  }
  return { handler, elicitation: rules };
}

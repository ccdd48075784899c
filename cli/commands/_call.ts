/**
 * `call <tool> [key=value …] [--args JSON] [--task]`: the arguments read by the tool's input
 * schema and checked before anything is sent, a live progress line while it runs, Ctrl-C
 * cancelling it (the client sends `notifications/cancelled`), and the result shaped for a
 * terminal (or as JSON).
 *
 * @module
 */

import {
  isTask,
  type McpClient,
  type ShapedResult,
  type Task,
  type Tool,
  type ToolResult,
} from "../../mod.ts";
import { type Command, EXIT, printJson, withClient } from "../_command.ts";
import { ArgumentsError } from "../_errors.ts";
import { clean, renderToolResult, table } from "../_format.ts";
import { didYouMean } from "../_suggest.ts";
import { startProgress } from "../_progress.ts";
import { checkToolArgs, parameters, parseToolArgs, unnamedArgs } from "../_tool_args.ts";
import { SERVER_USAGE } from "./_lists.ts";

/** Finds `name` among the server's tools, or says which there are (or which was meant). */
async function findTool(client: McpClient, name: string, signal: AbortSignal) {
  const tools = await client.listAllTools({ signal });
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) {
    const known = tools.map((t) => t.name);
    const near = didYouMean(name, known);
    const names = near ? "" : ` (it has: ${known.join(", ") || "none"})`;
    throw new TypeError(`the server has no tool ${name}${near}${names}`);
  }
  return tool;
}

/** The parameters of a tool as an indented table (or a line saying it takes none). */
function parameterTable(tool: Tool, columns: number, color: boolean): string {
  const params = parameters(tool.inputSchema);
  if (params.length === 0) return `  ${clean(tool.name)} takes no arguments.\n`;
  const rows = params.map((p) => [p.name, p.type, p.required ? "yes" : "no", p.description]);
  return table(["NAME", "TYPE", "REQUIRED", "DESCRIPTION"], rows, columns - 2, color)
    .split("\n").map((line) => line === "" ? line : `  ${line}`).join("\n");
}

/**
 * `call <tool> --help`: the usage line with the tool's parameters, its description, and a
 * table of the parameters (type, required, description). Server text is sanitised.
 */
export function toolHelp(tool: Tool, columns: number, color: boolean): string {
  const words = parameters(tool.inputSchema).map((p) => {
    const type = p.type.replace(/ \(default .*\)$/, "");
    const word = `${p.name}=<${/^[a-z]+$/.test(type) ? type : "value"}>`;
    return p.required ? word : `[${word}]`;
  });
  const usage = clean(["Usage: conduit-mcp call", tool.name, ...words].join(" "));
  const description = clean(String(tool.description ?? tool.title ?? ""), true).trim();
  return `${usage} <server>\n\n${description ? `${description}\n\n` : ""}` +
    `Arguments:\n${parameterTable(tool, columns, color)}`;
}

/** The `call` command. */
export const CALL_COMMAND: Command = {
  name: "call",
  words: true,
  summary: "Call a tool",
  ownHelp: (parsed) =>
    parsed.words.length > 0 &&
    (parsed.serverCommand !== undefined || parsed.flags.server !== undefined),
  help:
    `Usage: conduit-mcp call <tool> [key=value …] [--args JSON] [--task] [--max-chars N] ${SERVER_USAGE}

Calls a tool. Each key=value is read by the tool's input schema: numbers, booleans
(true/false), JSON for objects and arrays, text for strings; --args gives a JSON object
the key=value pairs override. The arguments are checked against the schema (the client's
full JSON Schema check included) before the call is sent. While the tool runs, a progress
line shows a bar (when the server gives a total) or a spinner, and the time elapsed.
Ctrl-C cancels the call. --task runs it as a server task and waits for its result.
--json prints the whole result. conduit-mcp call <tool> --help <server> shows the
tool's arguments: their types, whether each is required, and what each is for.

--max-chars N prints the result as a model would get it: one text of at most N characters.
A longer result, or one with media, is kept whole in the results folder of the config
directory, and the text shows its head and tail and a line naming its handle (each media
block a line with its type and size); the handle is printed last, and
conduit-mcp read-result <handle> (with the same server) reads the rest (--media N: a media
block's base64 data).

Exit code 1 when the tool reports an error (isError).
`,
  run: (ctx) =>
    withClient(ctx, async (client) => {
      const [name, ...pairs] = ctx.parsed.words;
      if (name === undefined) {
        throw new TypeError("call needs a tool name: call <tool> [key=value …]");
      }
      const tool = await findTool(client, name, ctx.signal);
      const { columns, color } = ctx.term;
      if (ctx.parsed.flags.help) {
        ctx.term.out(toolHelp(tool, columns, color));
        return EXIT.ok;
      }
      const takes = () => `${clean(tool.name)} takes:\n${parameterTable(tool, columns, color)}`;
      let args: Record<string, unknown>;
      try {
        args = parseToolArgs(pairs, ctx.parsed.flags.args, tool.inputSchema);
      } catch (error) {
        throw new ArgumentsError([(error as Error).message], takes());
      }
      const problems = checkToolArgs(args, tool.inputSchema);
      if (problems.length > 0) throw new ArgumentsError(problems, takes());
      // Keys the schema does not name go to the server as given, with a word of warning.
      const named = parameters(tool.inputSchema).map((p) => p.name);
      for (const key of unnamedArgs(args, tool.inputSchema)) {
        ctx.term.err(
          `warning: ${clean(key)} is not a parameter of ${clean(tool.name)}` +
            `${clean(didYouMean(key, named))} (it takes: ${clean(named.join(", ") || "none")})\n`,
        );
      }
      const line = startProgress(ctx.term, name);
      const maxChars = ctx.parsed.flags.maxChars;
      if (maxChars !== undefined) {
        let shaped: ShapedResult;
        try {
          shaped = await client.callTool(name, args, {
            shape: "llm",
            maxChars,
            signal: ctx.signal,
            onProgress: (progress) => line.update(progress),
            ...(ctx.parsed.flags.task ? { task: "await" as const } : {}),
          });
        } finally {
          line.stop();
        }
        if (ctx.parsed.flags.json) printJson(ctx, shaped);
        else {
          ctx.term.out(`${clean(shaped.text, true)}\n`);
          if (shaped.spilled !== undefined) {
            ctx.term.out(`handle: ${shaped.spilled.handle}\n`);
          }
        }
        return shaped.isError ? EXIT.toolError : EXIT.ok;
      }
      let result: ToolResult | Task;
      try {
        result = await client.callTool(name, args, {
          signal: ctx.signal,
          onProgress: (progress) => line.update(progress),
          ...(ctx.parsed.flags.task
            ? {
              task: "await" as const,
              onStatus: (task: Task) =>
                line.note(
                  `task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
                ),
            }
            : {}),
        });
      } finally {
        line.stop();
      }
      if (isTask(result)) {
        if (ctx.parsed.flags.json) printJson(ctx, result);
        else {ctx.term.out(
            `task ${clean(String(result.taskId))}: ${clean(String(result.status))}\n`,
          );}
        return result.status === "completed" ? EXIT.ok : EXIT.toolError;
      }
      if (ctx.parsed.flags.json) printJson(ctx, result);
      else ctx.term.out(renderToolResult(result, ctx.term.color));
      return result.isError ? EXIT.toolError : EXIT.ok;
    }, { validate: true, spill: ctx.parsed.flags.maxChars !== undefined }),
};

/** The `read-result` command. */
export const READ_RESULT_COMMAND: Command = {
  name: "read-result",
  words: true,
  summary: "Read a result a call kept (call --max-chars)",
  help:
    `Usage: conduit-mcp read-result <handle> [--offset N] [--length N] [--grep TEXT | --json-path PATH | --media N] ${SERVER_USAGE}

Reads a result that call --max-chars kept whole because it was over budget or held media:
the text from --offset (default 0), at most --length characters (default 8000); with
--grep, the lines holding TEXT (any case) and two lines around each, numbered; with
--json-path, a part of its JSON ($, .key, ["key"], [3], [0:20]); with --media N, the
base64 data of the media block its text numbered N (an image, audio or a blob), paged the
same way. Give the same server as the call: the handle is bound to its identity. Where the
next page starts is printed last (on standard error). --json prints
{ text, offset, total, nextOffset }.

Exit code 1 when no result is kept under the handle (never made, expired, another identity's)
or it has no such media block.
`,
  run: (ctx) => {
    // Checked before anything is started.
    const [handle, ...extra] = ctx.parsed.words;
    if (handle === undefined) {
      throw new TypeError("read-result needs a handle: read-result <handle>");
    }
    if (extra.length > 0) {
      throw new TypeError(`read-result takes one handle, not ${extra.length + 1}`);
    }
    const { offset, length, grep, jsonPath, media } = ctx.parsed.flags;
    if ([grep, jsonPath, media].filter((v) => v !== undefined).length > 1) {
      throw new TypeError("read-result takes one of --grep, --json-path and --media");
    }
    return withClient(ctx, async (client) => {
      const page = await client.readResult(handle, {
        ...(offset === undefined ? {} : { offset }),
        ...(length === undefined ? {} : { length }),
        ...(grep === undefined ? {} : { grep }),
        ...(jsonPath === undefined ? {} : { jsonPath }),
        ...(media === undefined ? {} : { media }),
      });
      if (ctx.parsed.flags.json) {
        printJson(ctx, page);
        return EXIT.ok;
      }
      ctx.term.out(`${clean(page.text, true)}\n`);
      const end = page.offset + page.text.length;
      ctx.term.err(
        page.nextOffset === null
          ? `characters ${page.offset} to ${end} of ${page.total}: the end\n`
          : `characters ${page.offset} to ${end} of ${page.total}: next --offset ${page.nextOffset}\n`,
      );
      return EXIT.ok;
    }, { spill: true });
  },
};

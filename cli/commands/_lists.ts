/**
 * `tools`, `prompts`, `resources`, `templates`: every item the server lists (all pages), as
 * a table for people or a JSON array with `--json`.
 *
 * @module
 */

import {
  type Command,
  type CommandContext,
  firstLine,
  printJson,
  withClient,
} from "../_command.ts";
import { table } from "../_format.ts";
import { parameterNames } from "../_tool_args.ts";
import type { McpClient } from "../../mod.ts";

const SERVER = "[<url> | --server <name> | -- <command> [args…]]";
/** The server part of the usage line of a command without words of its own. */
const SERVER_ALONE = "(<url> | <name> | -- <command> [args…])";

interface ListSpec {
  name: string;
  summary: string;
  headers: string[];
  fetch(client: McpClient, signal: AbortSignal): Promise<Record<string, unknown>[]>;
  row(item: Record<string, unknown>): string[];
}

function listCommand(spec: ListSpec): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    help:
      `Usage: conduit-mcp ${spec.name} ${SERVER_ALONE} [--json]\n\n${spec.summary}: a table, or ` +
      `with --json the full list as a JSON array (every page).\n`,
    run: (ctx: CommandContext) =>
      withClient(ctx, async (client) => {
        const items = await spec.fetch(client, ctx.signal);
        if (ctx.parsed.flags.json) printJson(ctx, items);
        else if (items.length === 0) ctx.term.err(`The server lists no ${spec.name}.\n`);
        else {ctx.term.out(
            table(spec.headers, items.map(spec.row), ctx.term.columns, ctx.term.color),
          );}
        return 0;
      }),
  };
}

const str = (value: unknown) => typeof value === "string" ? value : "";

/** The four list commands. */
export const LIST_COMMANDS: Command[] = [
  listCommand({
    name: "tools",
    summary: "List the server's tools",
    headers: ["NAME", "ARGUMENTS", "DESCRIPTION"],
    fetch: (client, signal) => client.listAllTools({ signal, refresh: true }),
    // Required arguments as names, the others with `?`: `call <tool> --help` says more.
    row: (tool) => [
      str(tool.name),
      parameterNames(tool.inputSchema),
      firstLine(tool.description ?? tool.title),
    ],
  }),
  listCommand({
    name: "prompts",
    summary: "List the server's prompts",
    headers: ["NAME", "ARGUMENTS", "DESCRIPTION"],
    fetch: (client, signal) => client.listAllPrompts({ signal, refresh: true }),
    row: (prompt) => {
      const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
      const names = args.map((a: { name?: unknown; required?: unknown }) =>
        `${str(a.name)}${a.required ? "" : "?"}`
      );
      return [str(prompt.name), names.join(" ") || "-", firstLine(prompt.description)];
    },
  }),
  listCommand({
    name: "resources",
    summary: "List the server's resources",
    headers: ["URI", "NAME", "TYPE"],
    fetch: (client, signal) => client.listAllResources({ signal, refresh: true }),
    row: (resource) => [str(resource.uri), str(resource.name), str(resource.mimeType) || "-"],
  }),
  listCommand({
    name: "templates",
    summary: "List the server's resource templates",
    headers: ["TEMPLATE", "NAME", "DESCRIPTION"],
    fetch: (client, signal) => client.listAllResourceTemplates({ signal, refresh: true }),
    row: (template) => [
      str(template.uriTemplate),
      str(template.name),
      firstLine(template.description),
    ],
  }),
];

/** The server part of the usage lines of commands with words of their own. */
export const SERVER_USAGE = SERVER;
/** The server part of the usage lines of commands without. */
export const SERVER_ALONE_USAGE = SERVER_ALONE;

/**
 * `search "<query>"`: the tools of every configured server ranked for a query, from the
 * catalogues an earlier run stored (`catalogues.json` in the config directory). A server
 * whose catalogue is not stored (or is past a day old) is started once to learn it;
 * `--refresh` learns every one again.
 *
 * @module
 */

import { join } from "node:path";
import process from "node:process";
import { hub, type HubServer } from "../../hub/mod.ts";
import { type Command, EXIT, firstLine, printJson } from "../_command.ts";
import { loadServers } from "../_config.ts";
import { catalogueFile } from "../_catalogue_file.ts";
import { clean } from "../_format.ts";
import { configDir } from "../_token_file.ts";
import { paint } from "../terminal.ts";

/** The `search` command. */
export const SEARCH_COMMAND: Command = {
  name: "search",
  words: true,
  summary: "Search the tools of every configured server (from the stored catalogue)",
  help: `Usage: conduit-mcp search "<query>" [--config <path>] [--json]

Ranks the tools of every server of the config file for the query (BM25 over the tools'
names, descriptions and parameters; an exact tool name first; "select:a,b" picks tools by
name) and prints the best ten as server__tool with their first description line. The
catalogues come from the store in the config directory: a server is started only when its
catalogue is not stored yet, or is more than a day old.
`,
  async run(ctx) {
    const query = ctx.parsed.words.join(" ").trim();
    if (query === "") {
      ctx.term.err('error: search needs a query: conduit-mcp search "<query>"\n');
      return EXIT.usage;
    }
    const config = await loadServers(ctx.parsed.flags.config, process.cwd(), ctx.term.env);
    if (config === undefined || Object.keys(config.servers).length === 0) {
      ctx.term.err("error: no configured servers: pass --config <path> (an mcp.json)\n");
      return EXIT.usage;
    }
    const verbose = ctx.parsed.flags.verbose;
    const entries: Record<string, HubServer> = {};
    for (const [name, entry] of Object.entries(config.servers)) {
      entries[name] = entry.url !== undefined
        ? { url: entry.url, ...(entry.headers ? { headers: entry.headers } : {}) }
        : {
          command: entry.command!,
          ...(entry.args ? { args: entry.args } : {}),
          ...(entry.env ? { env: entry.env } : {}),
          ...(entry.cwd ? { cwd: entry.cwd } : {}),
          ...(verbose ? {} : { stderr: "ignore" as const }),
        };
    }
    await using servers = hub({
      servers: entries,
      lazy: true,
      reconnect: false,
      idleMs: 1_000,
      cache: catalogueFile(join(configDir(ctx.term.env), "catalogues.json")),
      onWarning: (message) => verbose && ctx.term.err(`warning: ${clean(message)}\n`),
    });
    const found = await servers.callTool("search_tools", { query, limit: 10 });
    const tools = (found.structuredContent as { tools: { name: string; description?: string }[] })
      .tools;
    if (ctx.parsed.flags.json) {
      printJson(ctx, { query, tools });
      return EXIT.ok;
    }
    if (tools.length === 0) {
      ctx.term.out("No tool matches.\n");
      return EXIT.ok;
    }
    const width = Math.max(...tools.map((t) => clean(t.name).length));
    for (const tool of tools) {
      const name = paint(ctx.term.color, "bold", clean(tool.name).padEnd(width));
      ctx.term.out(`${name}  ${clean(firstLine(tool.description))}\n`);
    }
    return EXIT.ok;
  },
};

/**
 * `servers`: every server of the config file, connected to at once, each with its state
 * (connected, with its name, version and tool count; needs login; failed, and why), as
 * `claude mcp list` does; and with `--config <file>` alone, the file's servers without
 * connecting.
 *
 * @module
 */

import process from "node:process";
import { isMcpError } from "../../mod.ts";
import { type Command, EXIT, printJson } from "../_command.ts";
import { loadServers, type ServerEntry } from "../_config.ts";
import { describeFailure } from "../_errors.ts";
import { table } from "../_format.ts";
import { startConnecting } from "../_progress.ts";
import { connectSpec, entryServerSpec } from "../_session.ts";

/** How a config entry is reached, for people: the URL, or the command and its arguments. */
function targetOf(entry: ServerEntry): string {
  return entry.url ?? [entry.command ?? "", ...(entry.args ?? [])].join(" ");
}

/** What `servers` found for one entry. */
interface ServerState {
  name: string;
  target: string;
  state: "connected" | "needs login" | "failed";
  /** The server's name and version (connected). */
  server?: string;
  /** The protocol version (connected). */
  version?: string;
  /** How many tools it lists (connected, when it has tools). */
  tools?: number;
  /** Why not (failed, needs login). */
  error?: string;
  /** What to do about it. */
  hint?: string;
  /** How long it took, in ms. */
  ms: number;
}

const DETAIL_MAX = 72;
const MARK = { connected: "✓", "needs login": "!", failed: "✗" } as const;

function detailOf(state: ServerState): string {
  const text = state.state === "connected"
    ? `${state.server ?? "?"}${state.tools === undefined ? "" : `, ${state.tools} tools`}`
    : state.state === "needs login"
    ? state.hint ?? ""
    : `${
      (state.error ?? "").replace(/^The server process /, "")
        .replace(/; its stderr ends with:\n/, " — stderr: ").replace(/\s*\n\s*/g, " / ")
    }${state.hint ? ` — ${state.hint}` : ""}`;
  return text.length > DETAIL_MAX ? text.slice(0, DETAIL_MAX - 1) + "…" : text;
}

/** The `servers` command. */
export const SERVERS_COMMAND: Command = {
  name: "servers",
  summary: "Connect to every server of the config file and show each one's state",
  help: `Usage: conduit-mcp servers [--config <path>] [--json] [--timeout <ms>]

Reads the config file (--config <path>, or the nearest one: see conduit-mcp --help),
connects to every server it names at once, and shows each one's state: connected (its
name, version and tool count), needs login (conduit-mcp login <name>), or failed (and
why). conduit-mcp --config <path> alone lists the file's servers without connecting.

Exit code 3 when a server could not be reached.
`,
  async run(ctx) {
    const { parsed, term } = ctx;
    if (parsed.flags.server !== undefined || parsed.serverCommand !== undefined) {
      throw new TypeError("servers checks the servers of a config file: give --config <path>");
    }
    const config = await loadServers(parsed.flags.config, process.cwd(), term.env);
    if (config === undefined) {
      throw new TypeError("no config file found: pass --config <path> (an mcp.json)");
    }
    const entries = Object.entries(config.servers);
    if (parsed.flags.list) {
      const rows = entries.map(([name, entry]) => ({
        name,
        type: entry.url !== undefined ? "http" : "stdio",
        target: targetOf(entry),
      }));
      if (parsed.flags.json) printJson(ctx, { path: config.path, servers: rows });
      else if (rows.length === 0) term.err(`${config.path} names no servers.\n`);
      else {
        term.out(
          table(
            ["NAME", "TYPE", "TARGET"],
            rows.map((r) => [r.name, r.type, r.target]),
            term.columns,
            term.color,
          ),
        );
      }
      return EXIT.ok;
    }
    if (entries.length === 0) {
      term.err(`${config.path} names no servers.\n`);
      return EXIT.ok;
    }
    const stop = startConnecting(term, `${entries.length} servers of ${config.path}`);
    let states: ServerState[];
    try {
      states = await Promise.all(entries.map(async ([name, entry]): Promise<ServerState> => {
        const started = Date.now();
        const target = targetOf(entry);
        try {
          const spec = entryServerSpec(name, entry, parsed);
          const { client, close } = await connectSpec(spec, parsed, term, {
            quiet: true,
            onWarning: () => {},
            signal: ctx.signal,
          });
          try {
            const info = client.serverInfo();
            const tools = info.capabilities.tools === undefined
              ? undefined
              : (await client.listAllTools({ signal: ctx.signal })).length;
            const server = info.serverInfo
              ? `${info.serverInfo.name} ${info.serverInfo.version ?? ""}`.trim()
              : undefined;
            return {
              name,
              target,
              state: "connected",
              server,
              version: String(info.version),
              tools,
              ms: Date.now() - started,
            };
          } finally {
            await close();
          }
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          const { json } = describeFailure(error, { connected: false, verbose: true });
          const auth = isMcpError(error) && error.kind === "auth";
          return {
            name,
            target,
            state: auth ? "needs login" : "failed",
            error: json.message,
            hint: auth ? `log in with: conduit-mcp login ${name}` : json.hint,
            ms: Date.now() - started,
          };
        }
      }));
    } finally {
      stop();
    }
    if (parsed.flags.json) printJson(ctx, { path: config.path, servers: states });
    else {
      const rows = states.map((s) => [
        s.name,
        `${MARK[s.state]} ${s.state}`,
        detailOf(s),
        s.target,
      ]);
      term.out(table(["NAME", "STATE", "DETAIL", "TARGET"], rows, term.columns, term.color));
    }
    return states.every((s) => s.state === "connected") ? EXIT.ok : EXIT.connection;
  },
};

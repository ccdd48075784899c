/**
 * `status` (the era, version, server info, capabilities and instructions of the handshake)
 * and `watch` (server notifications as they arrive, until Ctrl-C).
 *
 * @module
 */

import { startTimer, type Timer } from "../../clock/timer.ts";
import type { ServerNotification } from "../../mod.ts";
import { type Command, EXIT, printJson, withClient } from "../_command.ts";
import { clean, escapeJsonText } from "../_format.ts";
import { paint } from "../terminal.ts";
import { SERVER_ALONE_USAGE, SERVER_USAGE } from "./_lists.ts";

/** The `status` command. */
export const STATUS_COMMAND: Command = {
  name: "status",
  summary: "Show the era, version, server info, capabilities and instructions",
  help: `Usage: conduit-mcp status ${SERVER_ALONE_USAGE} [--protocol auto|modern|legacy|<version>]
       conduit-mcp status

Connects and shows what the handshake gave: the era (modern or legacy), the protocol
version, the server's name and version, its capabilities and its instructions. Without a
server: the kept sessions (conduit-mcp connect), each with its server, process id, age,
idle time and socket.
`,
  run: async (ctx) => {
    const { flags, serverCommand } = ctx.parsed;
    if (flags.server === undefined && serverCommand === undefined && flags.config === undefined) {
      return (await import("./_keep_run.ts")).listSessions(ctx);
    }
    return await withClient(ctx, (client, spec) => {
      const info = client.serverInfo();
      if (ctx.parsed.flags.json) {
        printJson(ctx, { server: spec.label, ...info });
        return Promise.resolve(EXIT.ok);
      }
      const bold = (text: string) => paint(ctx.term.color, "bold", text);
      const name = info.serverInfo
        ? `${clean(String(info.serverInfo.name))} ${clean(String(info.serverInfo.version ?? ""))}`
        : "(not given)";
      const capabilities = Object.entries(info.capabilities).map(([key, value]) => {
        const flags = typeof value === "object" && value !== null
          ? Object.entries(value).filter(([, v]) => v === true).map(([k]) => clean(k))
          : [];
        return flags.length > 0 ? `${clean(key)} (${flags.join(", ")})` : clean(key);
      });
      ctx.term.out(`${bold("server")}        ${name.trim()}\n`);
      ctx.term.out(`${bold("era")}           ${info.era}\n`);
      ctx.term.out(`${bold("version")}       ${clean(String(info.version))}\n`);
      ctx.term.out(`${bold("capabilities")}  ${capabilities.join(", ") || "none"}\n`);
      if (info.instructions) {
        ctx.term.out(`${bold("instructions")}\n${clean(info.instructions, true)}\n`);
      }
      return Promise.resolve(EXIT.ok);
    });
  },
};

function timeOf(date: Date): string {
  return date.toISOString().slice(11, 19);
}

/** The `watch` command. */
export const WATCH_COMMAND: Command = {
  name: "watch",
  words: true,
  summary: "Print server notifications as they arrive, until Ctrl-C",
  help: `Usage: conduit-mcp watch [<resource-uri> …] ${SERVER_USAGE}

Prints each notification the server sends (list changes, log messages, resource updates)
on one line, until Ctrl-C or the server goes away. Resource URIs given are subscribed to
first. --json prints one JSON object per line.
`,
  run: (ctx) =>
    withClient(ctx, async (client) => {
      const print = (n: ServerNotification) => {
        if (ctx.parsed.flags.json) {
          ctx.term.out(
            escapeJsonText(JSON.stringify({ time: new Date().toISOString(), ...n })) + "\n",
          );
          return;
        }
        // The envelope (`_meta`: subscription ids and the like) is for --json.
        const { _meta: _, ...shown } = n.params;
        const params = Object.keys(shown).length > 0 ? ` ${clean(JSON.stringify(shown))}` : "";
        const time = paint(ctx.term.color, "dim", timeOf(new Date()));
        ctx.term.out(`${time} ${paint(ctx.term.color, "cyan", clean(n.method))}${params}\n`);
      };
      const unsubscribe = client.subscribeNotifications(print);
      try {
        for (const uri of ctx.parsed.words) await client.subscribe(uri, { signal: ctx.signal });
        ctx.term.err("Watching for notifications; Ctrl-C to stop.\n");
        await new Promise<void>((resolve) => {
          let timer: Timer | undefined;
          const done = () => {
            timer?.clear();
            resolve();
          };
          ctx.signal.addEventListener("abort", done, { once: true });
          const check = () => {
            if (client.status().state === "closed") {
              ctx.term.err("The server closed the connection.\n");
              return done();
            }
            timer = startTimer(check, 250);
          };
          check();
        });
      } finally {
        unsubscribe();
      }
      if (!ctx.signal.aborted) return EXIT.connection;
      ctx.term.err(`${ctx.term.tty ? "\r\x1b[2K" : ""}Stopped watching.\n`);
      return EXIT.ok;
    }),
};

/**
 * `connect` (keep a live session to a server in a background process) and `disconnect`
 * (stop one, or `--all`); what they do loads when one of them runs (`_keep_run.ts`).
 *
 * @module
 */

import type { Command } from "../_command.ts";
import { SERVER_ALONE_USAGE } from "./_lists.ts";

/** The `connect` command. */
export const CONNECT_COMMAND: Command = {
  name: "connect",
  summary: "Keep a live session to a server for the commands that follow",
  help: `Usage: conduit-mcp connect ${SERVER_ALONE_USAGE} [--idle <duration>]

Starts a small background process that connects to the server and keeps the session, so
call, tools, prompts, resources, templates, read, prompt, complete, read-result and
status with the same server (and --protocol) go through it: no start or handshake per
command, and the same output. Returns once the session is ready, or fails with the
server's error. The session listens on a Unix socket only you can open, under the
config directory; it stops after --idle of disuse (default 10m; 30s, 1h, 500ms…), when
the server goes away, or on disconnect. conduit-mcp status lists the kept sessions.
A command with --verbose or --task connects afresh.
`,
  run: async (ctx) => (await import("./_keep_run.ts")).connect(ctx),
};

/** The `disconnect` command. */
export const DISCONNECT_COMMAND: Command = {
  name: "disconnect",
  summary: "Stop a kept session (or --all)",
  help: `Usage: conduit-mcp disconnect ${SERVER_ALONE_USAGE}
       conduit-mcp disconnect --all

Stops the kept session of the server (its process ends and its socket is removed), or
every kept session with --all. Not kept: said on standard error, exit code 0.
`,
  run: async (ctx) => (await import("./_keep_run.ts")).disconnect(ctx),
};

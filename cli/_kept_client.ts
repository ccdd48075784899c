/**
 * A command's client when a kept session reaches its server: the same methods the commands
 * call on a fresh client, each forwarded over the session's socket as JSON and answered
 * with the client's own result (or error), so the command formats it as it always does.
 * No session, or one that has ended (its socket left behind, which is removed), and the
 * command connects afresh; an ended session is named in one note on standard error.
 *
 * @module
 */

import { existsSync, lstatSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { McpClient } from "../mod.ts";
import type { ParsedArgs } from "./_args.ts";
import { clean } from "./_format.ts";
import type { KeepChannel, RequestExtras } from "./_keep_channel.ts";
import { sessionIdentity, sessionsDir, socketName } from "./_keep_paths.ts";
import type { OpenClient, ServerSpec } from "./_session.ts";
import type { Terminal } from "./terminal.ts";
import { configDir, findConfigDir } from "./_token_file.ts";

/** The socket a kept session of `spec` (with this command line's protocol) listens on. */
export async function keptSocket(
  spec: ServerSpec,
  parsed: ParsedArgs,
  term: Terminal,
): Promise<string> {
  const identity = sessionIdentity(spec, parsed.flags.protocol, process.cwd());
  return join(sessionsDir(configDir(term.env)), await socketName(identity));
}

type ServerInfo = ReturnType<McpClient["serverInfo"]>;

type Options = Record<string, unknown> & {
  signal?: AbortSignal;
  onProgress?: (progress: unknown) => void;
};

/** The options that cross the socket (callbacks and signals stay here). */
function plain(options: Options | undefined): Record<string, unknown> {
  const { signal: _s, onProgress: _p, onStatus: _o, ...rest } = options ?? {};
  return rest;
}

/** The subset of `McpClient` the commands use, over `channel`. */
function keptClient(channel: KeepChannel, info: ServerInfo): McpClient {
  const call = (method: string, params: unknown[], options?: Options) => {
    const extras: RequestExtras = {};
    if (options?.signal) extras.signal = options.signal;
    if (options?.onProgress) extras.onProgress = options.onProgress;
    return channel.request({ op: "call", method, params, options: plain(options) }, extras);
  };
  const client = {
    serverInfo: () => info,
    listAllTools: (o?: Options) => call("listAllTools", [], o),
    listAllPrompts: (o?: Options) => call("listAllPrompts", [], o),
    listAllResources: (o?: Options) => call("listAllResources", [], o),
    listAllResourceTemplates: (o?: Options) => call("listAllResourceTemplates", [], o),
    callTool: (name: string, args: unknown, o?: Options) => call("callTool", [name, args], o),
    readResource: (uri: string, o?: Options) => call("readResource", [uri], o),
    getPrompt: (name: string, args: unknown, o?: Options) => call("getPrompt", [name, args], o),
    complete: (ref: unknown, arg: unknown, o?: Options) => call("complete", [ref, arg], o),
    readResult: (handle: string, o?: Options) => call("readResult", [handle], o),
  };
  return client as unknown as McpClient;
}

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string })?.code;
}

/**
 * The kept session of `spec`, as a ready client, or `undefined` when there is none.
 *
 * @param spec The server the command line names.
 * @param parsed The command line (its `--protocol` is part of what names the session).
 * @param term Where the note about an ended session goes.
 */
export async function openKept(
  spec: ServerSpec,
  parsed: ParsedArgs,
  term: Terminal,
): Promise<OpenClient | undefined> {
  // Without a config folder (no home directory) there is no kept session to find.
  if (findConfigDir(term.env) === undefined) return undefined;
  const socket = await keptSocket(spec, parsed, term);
  const ended = () =>
    term.err(
      `note: the kept session of ${clean(spec.label)} has ended; connecting afresh\n`,
    );
  if (!existsSync(socket)) return undefined;
  // Only a socket of this user's is spoken to.
  const info = lstatSync(socket);
  const uid = process.getuid?.();
  if (!info.isSocket() || (uid !== undefined && info.uid !== uid)) {
    term.err(`note: ${socket} is not a socket of yours; connecting afresh\n`);
    return undefined;
  }
  // The socket's code loads only when there is a session to reach.
  const { openChannel } = await import("./_keep_channel.ts");
  let channel: KeepChannel;
  try {
    channel = await openChannel(socket);
  } catch (error) {
    if (errorCode(error) === "ECONNREFUSED") {
      // Its process ended without removing the socket.
      await rm(socket, { force: true });
      ended();
    } else if (errorCode(error) !== "ENOENT") {
      // Not allowed to reach it (Deno without --allow-net for the socket), or the like.
      term.err(
        `note: cannot reach the kept session of ${clean(spec.label)} ` +
          `(${clean((error as Error)?.message ?? String(error))}); connecting afresh\n`,
      );
    }
    return undefined;
  }
  let ready: { serverInfo: ServerInfo };
  try {
    ready = await channel.request({ op: "ready" }) as { serverInfo: ServerInfo };
  } catch {
    channel.close();
    ended();
    return undefined;
  }
  channel.onWarning((warning) =>
    term.err(`${term.tty ? "\r\x1b[2K" : ""}warning: ${clean(warning)}\n`)
  );
  return {
    client: keptClient(channel, ready.serverInfo),
    spec,
    close: () => {
      channel.close();
      return Promise.resolve();
    },
  };
}

/**
 * From the command line to a ready client: the server (after `--`, a URL, or a config
 * name), its transport (with the stored OAuth tokens for a URL that has them, and the wire
 * printed with secrets redacted under `--verbose`), and `connect` with `--protocol` and
 * `--timeout`. Only the public entries are used, so the CLI gets what a program gets.
 *
 * @module
 */

import { join } from "node:path";
import process from "node:process";
import {
  type ClientOptions,
  createClient,
  type ElicitationRule,
  fileStore,
  type McpClient,
  type OAuthOptions,
  stdio,
  streamableHttp,
  type Transport,
} from "../mod.ts";
import { loopbackCallback } from "../oauth/mod.ts";
import { isUrl, type ParsedArgs } from "./_args.ts";
import { cliAnswers, SAMPLING_REFUSED } from "./_answers.ts";
import { loadServers, type ServerEntry } from "./_config.ts";
import { clean } from "./_format.ts";
import { startConnecting } from "./_progress.ts";
import { didYouMean } from "./_suggest.ts";
import type { Terminal } from "./terminal.ts";
import { configDir, tokenFile } from "./_token_file.ts";
import { tapped } from "./_wire_tap.ts";

/** The server a command talks to. */
export interface ServerSpec {
  /** How to name it in messages (the URL, the command, or the config name). */
  label: string;
  /** The URL of an HTTP server. */
  url?: URL;
  /** The command of a stdio server. */
  command?: { command: string; args: string[]; env?: Record<string, string>; cwd?: string };
  /** Headers from the config entry and `--header`. */
  headers: Record<string, string>;
  /** The OAuth account profile (`--profile`, else the config entry's). */
  profile?: string;
  /** The config entry's answer rules for elicitation requests. */
  elicitation?: ElicitationRule[];
}

function headerRecord(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function fromEntry(name: string, entry: ServerEntry, headers: Record<string, string>): ServerSpec {
  const spec = fromEntryTarget(name, entry, headers);
  if (entry.elicitation !== undefined) spec.elicitation = entry.elicitation;
  return spec;
}

function fromEntryTarget(
  name: string,
  entry: ServerEntry,
  headers: Record<string, string>,
): ServerSpec {
  if (entry.url !== undefined) {
    const spec: ServerSpec = {
      label: name,
      url: toUrl(entry.url),
      headers: { ...entry.headers, ...headers },
    };
    if (entry.profile !== undefined) spec.profile = entry.profile;
    return spec;
  }
  if (entry.command === undefined) {
    throw new TypeError(`server ${name} in the config has neither "command" nor "url"`);
  }
  const command = {
    command: entry.command,
    args: entry.args ?? [],
    env: entry.env,
    cwd: entry.cwd,
  };
  return { label: name, command, headers };
}

function toUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new TypeError(`not a URL: ${text}`);
  }
}

/**
 * Which server the command line names.
 *
 * @throws {TypeError} When none is given, or a config name is unknown.
 */
export async function serverSpec(parsed: ParsedArgs, term: Terminal): Promise<ServerSpec> {
  const spec = await namedServer(parsed, term);
  // --profile wins over the config entry's.
  if (parsed.flags.profile !== undefined) spec.profile = parsed.flags.profile;
  return spec;
}

async function namedServer(parsed: ParsedArgs, term: Terminal): Promise<ServerSpec> {
  const headers = headerRecord(parsed.flags.headers);
  if (parsed.serverCommand !== undefined) {
    const [command, ...args] = parsed.serverCommand;
    return { label: parsed.serverCommand.join(" "), command: { command, args }, headers };
  }
  const server = parsed.flags.server;
  if (server === undefined) {
    if (parsed.flags.config !== undefined) {
      // The file is named but not the server: say which it has.
      const config = await loadServers(parsed.flags.config, process.cwd(), term.env);
      const names = Object.keys(config?.servers ?? {}).join(", ") || "none";
      throw new TypeError(
        `no server: name one of ${config?.path ?? parsed.flags.config}'s (${names}) with ` +
          `--server <name>, or check them all with conduit-mcp servers`,
      );
    }
    throw new TypeError("no server: give a URL, --server <name>, or -- <command> [args…]");
  }
  if (isUrl(server)) return { label: server, url: toUrl(server), headers };
  const config = await loadServers(parsed.flags.config, process.cwd(), term.env);
  if (config === undefined) {
    throw new TypeError(`no config file names ${server}: pass --config <path> (an mcp.json)`);
  }
  const entry = config.servers[server];
  if (entry === undefined) {
    const known = Object.keys(config.servers);
    const names = known.join(", ") || "none";
    throw new TypeError(
      `${config.path} has no server ${server}${didYouMean(server, known)} (it has: ${names})`,
    );
  }
  return entryServerSpec(server, entry, parsed);
}

/** The server of config entry `name`, with the `--header` flags over its own headers. */
export function entryServerSpec(name: string, entry: ServerEntry, parsed: ParsedArgs): ServerSpec {
  return fromEntry(name, entry, headerRecord(parsed.flags.headers));
}

/** How a command wants the client. */
export interface OpenOptions {
  /** The OAuth login to run (`login`); otherwise stored tokens are used when there are some. */
  login?: Pick<OAuthOptions, "onAuthorizationUrl" | "onDeviceCode" | "flow">;
  /** Check each call's arguments against the tool's schema (the client's `validate`). */
  validate?: boolean;
  /**
   * Keep shaped results over budget in the results folder of the config directory, where
   * `read-result` (another run) finds them.
   */
  spill?: boolean;
  /** Stops connecting (Ctrl-C): the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** The server, when the caller has already read it from the command line. */
  spec?: ServerSpec;
}

/** `promise`, or an `AbortError` once `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException("Interrupted", "AbortError"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A ready client, the server it reached, and how to close it. */
export interface OpenClient {
  /** The client. */
  client: McpClient;
  /** The server. */
  spec: ServerSpec;
  /** Closes the client; its warnings from then on (work cut short by closing) are dropped. */
  close(): Promise<void>;
}

const STDERR_LINE_MAX = 4096;

/**
 * `--verbose`'s copy of a server's stderr: whole lines (or 4 KiB pieces), each through
 * `clean`, so an escape sequence split across chunks is still removed whole.
 */
function stderrLines(term: Terminal): (chunk: string) => void {
  let pending = "";
  return (chunk) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf("\n")) >= 0 || pending.length >= STDERR_LINE_MAX) {
      const cut = end >= 0 && end < STDERR_LINE_MAX ? end + 1 : STDERR_LINE_MAX;
      term.err(clean(pending.slice(0, cut).replace(/\r?\n$/, "")) + "\n");
      pending = pending.slice(cut);
    }
  };
}

/**
 * Connects to the server the command line names, and waits until it is ready.
 *
 * @returns The ready client, the server it reached, and its `close`.
 */
export async function openClient(
  parsed: ParsedArgs,
  term: Terminal,
  options: OpenOptions = {},
): Promise<OpenClient> {
  const spec = options.spec ?? await serverSpec(parsed, term);
  // Not while a login waits for the browser: that says what it waits for itself.
  const stop = options.login ? () => {} : startConnecting(term, spec.label);
  try {
    return await connectSpec(spec, parsed, term, options);
  } finally {
    stop();
  }
}

/** Options of {@linkcode connectSpec} beyond {@linkcode OpenOptions}. */
export interface ConnectOptions extends OpenOptions {
  /** Where the client's warnings go (default: a `warning:` line on standard error). */
  onWarning?: (message: string) => void;
  /** Print neither the wire nor the server's stderr, even with `--verbose` (many at once). */
  quiet?: boolean;
}

/**
 * Connects to `spec` with the command line's flags, and waits until it is ready.
 *
 * @returns The ready client, the server it reached, and its `close`.
 */
export async function connectSpec(
  spec: ServerSpec,
  parsed: ParsedArgs,
  term: Terminal,
  options: ConnectOptions = {},
): Promise<OpenClient> {
  const { flags } = parsed;
  let transport: Transport;
  if (spec.url !== undefined) {
    const tokens = tokenFile(configDir(term.env));
    const hasAuthHeader = Object.keys(spec.headers).some((h) =>
      h.toLowerCase() === "authorization"
    );
    const useOAuth = !hasAuthHeader &&
      (options.login !== undefined || tokens.has(spec.url, spec.profile));
    const oauth: OAuthOptions | undefined = useOAuth
      ? {
        store: tokens.store,
        callback: loopbackCallback(),
        clientMetadata: { clientName: "conduit-mcp CLI" },
        ...(spec.profile === undefined ? {} : { profile: spec.profile }),
        ...(options.login?.flow === undefined ? {} : { flow: options.login.flow }),
        ...(options.login?.onDeviceCode ? { onDeviceCode: options.login.onDeviceCode } : {}),
        onAuthorizationUrl: options.login?.onAuthorizationUrl ?? (() => {
          throw new Error("the stored login is no longer valid");
        }),
      }
      : undefined;
    transport = streamableHttp(spec.url, {
      headers: spec.headers,
      ...(oauth ? { auth: { oauth } } : {}),
    });
  } else {
    const command = spec.command!;
    transport = stdio({
      ...command,
      stderr: flags.verbose && !options.quiet ? stderrLines(term) : "buffer",
    });
  }
  if (flags.verbose && !options.quiet) {
    transport = tapped(transport, term, Object.values(spec.headers));
  }
  const timeout = flags.timeout ?? 60_000;
  const answers = cliAnswers(parsed, term, spec.label, spec.elicitation);
  const client = createClient({
    handler: answers.handler,
    elicitation: answers.elicitation,
    transport,
    protocol: (flags.protocol ?? "auto") as ClientOptions["protocol"],
    requestTimeout: timeout,
    reconnect: false,
    ...(options.validate ? { validate: true } : {}),
    ...(options.spill ? { shape: { spill: fileStore(join(configDir(term.env), "results")) } } : {}),
    clientInfo: { name: "conduit-mcp-cli", version: "0.1.0" },
    // The client's warnings (a tool left out, a stale listing…): one line each, over the
    // progress line on a terminal.
    onWarning: (message) => {
      // A refused sampling request was explained already (how to configure one).
      if (closing || message.includes(SAMPLING_REFUSED)) return;
      if (options.onWarning) options.onWarning(message);
      else term.err(`${term.tty ? "\r\x1b[2K" : ""}warning: ${clean(message)}\n`);
    },
  });
  let closing = false;
  const close = () => {
    closing = true;
    return client.close();
  };
  try {
    await untilAborted(
      client.ready(options.login ? undefined : Math.max(timeout, 30_000)),
      options.signal,
    );
  } catch (error) {
    // Also on Ctrl-C while connecting: closing stops a server child that is starting.
    await close();
    throw error;
  }
  return { client, spec, close };
}

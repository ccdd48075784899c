/**
 * The three stdio contestants behind one shape: our client, the official
 * `@modelcontextprotocol/client` 2.x, and a raw NDJSON loop with no client library (write
 * JSON lines, match ids). Each module is imported only when its contestant runs, so a
 * worker process holds one client library and its RSS is that client's.
 *
 * @module
 */

import { execPath, readLines, runtime, spawn } from "./_lib.ts";

/** The contestants; `link` (our transport alone, driven like the raw floor) is HTTP's only. */
export type ClientName = "raw" | "ours" | "official" | "link";
export type Mode = "auto" | "legacy";
export type ServerName = "minimal" | "everything";

/** A connected client: `call()` makes one `tools/call` of `echo`. */
export interface Session {
  /** The era the client ended up in. */
  era: string;
  call(): Promise<unknown>;
  close(): Promise<void>;
}

/** How to start a stdio server. */
export interface ServerCommand {
  command: string;
  args: string[];
  /**
   * Where the server runs, for ours and the raw loop: in a session of its own (`"own"`, the
   * default: how our transport starts a server, `setsid`), or in the benchmark's (`"same"`:
   * ours with `processGroup: false`). The official client starts its server its own way.
   */
  session?: "own" | "same";
}

const here = (path: string) => decodeURIComponent(new URL(path, import.meta.url).pathname);

/**
 * The command of the minimal server or of server-everything (always Node). The minimal
 * server runs under the benchmark's runtime unless `serverRuntime` names another one.
 */
export function serverCommand(server: ServerName, serverRuntime?: string): ServerCommand {
  if (server === "everything") {
    return {
      command: "node",
      args: [
        here("../node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "stdio",
      ],
    };
  }
  const script = here("./_servers/stdio_server.mjs");
  if (serverRuntime === "node") return { command: "node", args: [script] };
  if (serverRuntime !== undefined && serverRuntime !== runtime) {
    const bin = here(`../node_modules/.bin/${serverRuntime}`);
    return serverRuntime === "bun"
      ? { command: bin, args: [script] }
      : { command: bin, args: ["run", "--no-lock", "-q", script] };
  }
  return runtime === "bun"
    ? { command: execPath(), args: [script] }
    : { command: execPath(), args: ["run", "--no-lock", "-q", script] };
}

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";
export const CLIENT_INFO = { name: "bench-raw", version: "1.0.0" };
const ARGS = { message: "hello" };

/** Connects `client` to a new server process in `mode`. */
export function connectStdio(
  client: ClientName,
  server: ServerCommand,
  mode: Mode,
): Promise<Session> {
  switch (client) {
    case "raw":
      return connectRaw(server, mode);
    case "ours":
      return connectOurs({
        command: server.command,
        args: server.args,
        stderr: "ignore",
        ...(server.session === "same" ? { processGroup: false } : {}),
      }, mode);
    case "official":
      return connectOfficial(server, mode);
    case "link":
      throw new Error("the link contestant is HTTP's only");
  }
}

// ---- ours ------------------------------------------------------------------------------

interface OurClient {
  callTool(name: string, args: Record<string, unknown>): Promise<{ content: unknown[] }>;
  era(): string;
  close(): Promise<void>;
}
interface OurModule {
  connect?: (target: unknown, options?: Record<string, unknown>) => Promise<OurClient>;
  connectClient: (options: Record<string, unknown>) => Promise<OurClient>;
  stdio: (options: Record<string, unknown>) => unknown;
  streamableHttp: (url: string, options?: Record<string, unknown>) => unknown;
}

/**
 * Connects our client the way a user would: `connect(target, options)` from `mod.ts`
 * (`connectClient` with the matching transport while `connect` is not there yet).
 */
export async function connectOurs(
  target: string | { command: string; args: string[]; stderr: "ignore"; processGroup?: boolean },
  mode: Mode,
): Promise<Session> {
  const mod = await import("../mod.ts") as unknown as OurModule;
  const options = { protocol: mode, reconnect: false };
  const client = typeof mod.connect === "function"
    ? await mod.connect(target, options)
    : await mod.connectClient({
      transport: typeof target === "string" ? mod.streamableHttp(target) : mod.stdio(target),
      ...options,
    });
  return {
    era: client.era(),
    call: () => client.callTool("echo", ARGS),
    close: () => client.close(),
  };
}

// ---- official --------------------------------------------------------------------------

function connectOfficial(server: ServerCommand, mode: Mode): Promise<Session> {
  return connectOfficialOver(mode, async () => {
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    return new StdioClientTransport({
      command: server.command,
      args: server.args,
      stderr: "ignore",
    });
  });
}

/** What the official client connects over. */
export type OfficialTransport = Parameters<
  InstanceType<typeof import("@modelcontextprotocol/client").Client>["connect"]
>[0];

/**
 * Connects the official client in `mode` over the transport `transport()` makes (called
 * once the client module is loaded), and wraps it as a {@linkcode Session}.
 */
export async function connectOfficialOver(
  mode: Mode,
  transport: () => Promise<OfficialTransport>,
): Promise<Session> {
  const { Client } = await import("@modelcontextprotocol/client");
  const client = new Client(
    { name: "bench-official", version: "1.0.0" },
    mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  await client.connect(await transport());
  const version = client.getNegotiatedProtocolVersion() ?? "";
  return {
    era: version === MODERN ? "modern" : "legacy",
    call: () => client.callTool({ name: "echo", arguments: ARGS }),
    close: () => client.close(),
  };
}

// ---- raw NDJSON loop ---------------------------------------------------------------------

interface Reply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

async function connectRaw(server: ServerCommand, mode: Mode): Promise<Session> {
  // Started the way our transport starts a server (a session of its own) unless told.
  const child = spawn([server.command, ...server.args], { session: server.session ?? "own" });
  const encoder = new TextEncoder();
  const pending = new Map<number, (reply: Reply) => void>();
  let nextId = 1;
  const reading = readLines(child.stdout, (line) => {
    if (line === "") return;
    const message = JSON.parse(line);
    const resolve = pending.get(message.id);
    if (resolve !== undefined) {
      pending.delete(message.id);
      resolve(message);
    }
  }).catch(() => {});
  const request = (method: string, params: Record<string, unknown>): Promise<Reply> => {
    const id = nextId++;
    const promise = new Promise<Reply>((resolve) => pending.set(id, resolve));
    child.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"));
    return promise;
  };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  let era = "legacy";
  if (mode === "auto") {
    const reply = await request("server/discover", { _meta: meta });
    const versions = reply.result?.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN)) era = "modern";
  }
  if (era === "legacy") {
    const init = await request("initialize", {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`);
    child.write(
      encoder.encode(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n",
      ),
    );
  }
  const modern = era === "modern";
  return {
    era,
    async call() {
      const reply = await request(
        "tools/call",
        modern ? { name: "echo", arguments: ARGS, _meta: meta } : { name: "echo", arguments: ARGS },
      );
      if (reply.error !== undefined) throw new Error(reply.error.message);
      return reply.result;
    },
    async close() {
      child.endInput();
      const timer = setTimeout(() => child.kill("SIGTERM"), 2000);
      await child.exited;
      clearTimeout(timer);
      await reading;
    },
  };
}

/**
 * The contestants of the peak-memory benchmark: our client with every size limit set to the
 * message size, the official `@modelcontextprotocol/client` 2.x (it has no limits), and a
 * raw floor with no client library (stdio: a streaming decoder into one text, cut at the
 * newline; HTTP: `response.json()`, or `response.text()` cut at the event's `data:`). Each
 * makes `tools/call` of `big`, which the minimal server answers with a response of exactly
 * the asked size. Modules load only when their contestant runs.
 *
 * @module
 */

import { spawn } from "./_lib.ts";
import { LEGACY, type Mode, serverCommand } from "./_stdio_clients.ts";
import type { ClientName } from "./_stdio_clients.ts";

/**
 * How the message travels: a stdio line, an HTTP JSON body (with a `Content-Length`, or
 * `chunked` without one), or one SSE event.
 */
export type PeakPath = "stdio" | "json" | "chunked" | "sse";

/** A connected contestant: `big(bytes)` asks for a response of `bytes` bytes. */
export interface PeakSession {
  /** The text length of the result of `tools/call` of `big` (what the caller keeps). */
  big(bytes: number): Promise<unknown>;
  close(): Promise<void>;
}

interface BigResult {
  content: { text: string }[];
}

/** Connects `client` over `path` (`url` for HTTP) with limits of `limit` bytes. */
export async function connectPeak(
  client: ClientName,
  path: PeakPath,
  url: string,
  limit: number,
  mode: Mode,
): Promise<PeakSession> {
  const server = serverCommand("minimal");
  if (client === "ours") {
    const { connect } = await import("../mod.ts");
    const target = path === "stdio"
      ? { command: server.command, args: server.args, stderr: "ignore", maxMessageBytes: limit }
      : url;
    const http = { maxResponseBytes: limit, maxEventBytes: limit };
    const ours = await connect(target as Parameters<typeof connect>[0], {
      protocol: mode,
      reconnect: false,
      requestTimeout: 120_000,
      ...(path === "stdio" ? {} : { http }),
    });
    return {
      big: (bytes) => ours.callTool("big", { bytes }),
      close: () => ours.close(),
    };
  }
  if (client === "official") {
    const { Client } = await import("@modelcontextprotocol/client");
    let transport;
    if (path === "stdio") {
      const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
      // Its buffer limit (10 MB by default) counts the newline too.
      transport = new StdioClientTransport({
        ...server,
        stderr: "ignore",
        maxBufferSize: limit + 1,
      });
    } else {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
      transport = new StreamableHTTPClientTransport(new URL(url));
    }
    const official = new Client(
      { name: "bench-official", version: "1.0.0" },
      mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
    );
    await official.connect(transport);
    return {
      big: (bytes) =>
        official.callTool({ name: "big", arguments: { bytes } }, { timeout: 120_000 }),
      close: () => official.close(),
    };
  }
  return path === "stdio" ? await rawStdio(server.command, server.args) : await rawHttp(url);
}

// ---- raw floors ------------------------------------------------------------------------------

const encoder = new TextEncoder();
const INIT = {
  protocolVersion: LEGACY,
  capabilities: {},
  clientInfo: { name: "raw", version: "1" },
};

async function rawStdio(command: string, args: string[]): Promise<PeakSession> {
  const child = spawn([command, ...args]);
  const waiting = new Map<number, (message: unknown) => void>();
  let nextId = 1;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of child.stdout) {
      let piece = decoder.decode(chunk, { stream: true });
      for (let end = piece.indexOf("\n"); end >= 0; end = piece.indexOf("\n")) {
        const line = text + piece.slice(0, end);
        text = "";
        piece = piece.slice(end + 1);
        const message = JSON.parse(line) as { id: number };
        waiting.get(message.id)?.(message);
        waiting.delete(message.id);
      }
      text += piece;
    }
  })().catch(() => {});
  const request = (method: string, params: unknown) => {
    const id = nextId++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    const reply = new Promise<unknown>((resolve) => waiting.set(id, resolve));
    child.write(encoder.encode(line));
    return reply as Promise<{ result: BigResult }>;
  };
  await request("initialize", INIT);
  child.write(
    encoder.encode(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"),
  );
  return {
    big: async (bytes) =>
      (await request("tools/call", { name: "big", arguments: { bytes } })).result,
    async close() {
      child.endInput();
      await child.exited;
      await reading;
    },
  };
}

async function rawHttp(url: string): Promise<PeakSession> {
  let nextId = 1;
  let headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const post = async (method: string, params: unknown, id?: number) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    const response = await fetch(url, { method: "POST", headers, body });
    if (id === undefined) {
      await response.body?.cancel();
      return { response, message: undefined };
    }
    if ((response.headers.get("content-type") ?? "").startsWith("application/json")) {
      return { response, message: await response.json() };
    }
    const text = await response.text();
    const start = text.indexOf("data: ") + 6;
    return { response, message: JSON.parse(text.slice(start, text.indexOf("\n", start))) };
  };
  const init = await post("initialize", INIT, nextId++);
  const session = init.response.headers.get("mcp-session-id");
  headers = { ...headers, "mcp-protocol-version": LEGACY };
  if (session !== null) headers["mcp-session-id"] = session;
  await post("notifications/initialized", undefined);
  return {
    async big(bytes) {
      const { message } = await post("tools/call", { name: "big", arguments: { bytes } }, nextId++);
      return (message as { result: BigResult }).result;
    },
    async close() {
      const response = await fetch(url, { method: "DELETE", headers });
      await response.body?.cancel();
    },
  };
}

/** The text length of a `big` result, to check the contestant got the whole message. */
export function textLength(result: unknown): number {
  return (result as BigResult | undefined)?.content?.[0]?.text?.length ?? -1;
}

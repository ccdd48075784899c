/**
 * Shared set-up for the HTTP fault tests: a client on a fresh fault server (both eras),
 * request matchers for injected plays, and small waits.
 *
 * @module
 */

import { createClient } from "../../client/client.ts";
import type { ClientOptions, McpClient, ToolResult } from "../../client/types.ts";
import { streamableHttp, type StreamableHttpOptions } from "../../transports/streamable_http.ts";
import {
  type FaultRequest,
  type FaultServer,
  startFaultServer,
} from "../fixtures/fault_http_server.ts";

/** The two eras, with the fixture mode that speaks each. */
export const ERAS = [["modern", "dual"], ["legacy", "legacy-only"]] as const;
/** Fast request retries. */
export const RETRY = { attempts: 3, initialDelay: 1, maxDelay: 5, jitter: 0 };

/** A ready client on a fault server; disposing closes both. */
export interface Faulty {
  server: FaultServer;
  client: McpClient;
  warnings: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A ready client on a fresh fault server in `mode` (`setup` runs before the client starts;
 * `via` reaches a given server through another URL, such as a relay).
 */
export async function faulty(
  mode: "dual" | "legacy-only",
  http: StreamableHttpOptions = {},
  options: Partial<ClientOptions> = {},
  setup?: (server: FaultServer) => void,
  via?: { server: FaultServer; url: URL },
): Promise<Faulty> {
  const server = via?.server ?? await startFaultServer({ core: { mode } });
  setup?.(server);
  const warnings: string[] = [];
  const client = createClient({
    transport: streamableHttp(via?.url ?? server.url, http),
    reconnect: { attempts: 2, initialDelay: 1, maxDelay: 5, jitter: 0 },
    retry: RETRY,
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  await client.ready();
  return {
    server,
    client,
    warnings,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

/** Matches the POST of a `tools/call` of `name` (any tool when omitted). */
export const call = (name?: string) => (r: FaultRequest) =>
  r.method === "POST" && r.body?.method === "tools/call" &&
  (name === undefined || r.body.params?.name === name);
/** Matches the POST of a `name` request. */
export const method = (name: string) => (r: FaultRequest) =>
  r.method === "POST" && r.body?.method === name;
/** A play that answers requests `match` accepts with `answer`. */
export const when =
  (match: (r: FaultRequest) => boolean, answer: (r: FaultRequest) => Response) =>
  (
    r: FaultRequest,
  ) => match(r) ? answer(r) : undefined;

/** The text of a tool result's first block. */
export const textOf = (result: ToolResult) =>
  String((result.content[0] as { text?: unknown }).text);
/** Calls `echo` and returns its text. */
export const echo = async (client: McpClient, message = "ok") =>
  textOf(await client.callTool("echo", { message }));

/** The POSTs of `method` the server received. */
export const posts = (server: FaultServer, name: string) => server.requests.filter(method(name));

/** The GETs the server received. */
export const gets = (server: FaultServer) => server.requests.filter((r) => r.method === "GET");
/** A log notification carrying `data`. */
export const notification = (data: string) => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", data },
});

/** Polls `get` until it returns a value. */
export async function until<T>(get: () => T | undefined, timeout = 10_000): Promise<T> {
  const end = Date.now() + timeout;
  for (let value = get();; value = get()) {
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

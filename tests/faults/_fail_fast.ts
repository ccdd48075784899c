/**
 * Shared set-up for the fail-fast tests: a connect report from a Deno child started without
 * some permission (or on a copy of the library with no `package.json`), HTTP servers that
 * record what they were asked, and a legacy in-process server.
 *
 * @module
 */

import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { McpClient } from "../../client/types.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { serve, type ServeHandler, type Server } from "../../runtime/serve.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import type { InProcessServer } from "../../transports/in_process.ts";
import { assert } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";

export const ROOT = new URL("../../", import.meta.url);
export const DENO = fileURLToPath(new URL("node_modules/.bin/deno", ROOT));
const REPORT = fileURLToPath(new URL("./_connect_report.ts", import.meta.url));
/** Retrying would take minutes: a test passes only if the client gives up at once. */
export const PATIENT = { attempts: 5, initialDelay: 60_000, jitter: 0 } as const;

export interface Report {
  connected?: boolean;
  kind?: string;
  reason?: string;
  message?: string;
  attempts?: number;
}

/** Runs `_connect_report.ts` under Deno with `flags` (never `-A`) and reads its report. */
export async function report(flags: string[], args: string[], cwd?: string): Promise<Report> {
  const child = spawnProcess({
    command: DENO,
    args: ["run", "--no-prompt", "--no-config", ...flags, REPORT, ...args],
    cwd,
  });
  await child.stdin.close();
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  await child.exited;
  const line = out.trim().split("\n").at(-1) ?? "";
  assert(line.startsWith("{"), `no report from the child: ${out}\n${err}`);
  return JSON.parse(line);
}

/** An HTTP server on 127.0.0.1 that records each request's method and JSON-RPC method. */
export async function recordingServer(
  answer: (rpc: JsonObject | undefined, index: number) => Response,
): Promise<{ server: Server; seen: string[] }> {
  const seen: string[] = [];
  const handler: ServeHandler = async (request) => {
    const rpc = request.method === "POST" ? await request.json() as JsonObject : undefined;
    seen.push(`${request.method} ${rpc?.method ?? ""}`.trim());
    return answer(rpc, seen.length - 1);
  };
  return { server: await serve(handler), seen };
}

/** How `ready()` failed (well before its generous timeout, or the test fails). */
export function failed(client: McpClient) {
  return mcpError(client.ready(20_000));
}

/** A copy of the library with no package.json beside it: its lazy imports cannot resolve. */
export function libraryCopy(): { dir: string; entry: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), "conduit-nodeps-"));
  // What the package publishes: its entries and source folders, nothing of node_modules.
  const config = JSON.parse(readFileSync(fileURLToPath(new URL("deno.json", ROOT)), "utf8"));
  for (const part of config.publish.include as string[]) {
    if (!part.endsWith("/") && !part.endsWith(".ts")) continue;
    cpSync(fileURLToPath(new URL(part, ROOT)), join(dir, part), { recursive: true });
  }
  const entry = pathToFileURL(join(dir, "mod.ts")).href;
  return { dir, entry, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

export const NET_ONLY = ["--allow-read", "--allow-env", "--allow-net=127.0.0.1"];

/** A legacy in-process server; `call` answers `tools/call` (or not). */
export function legacyServer(
  call: (message: JsonObject, send: (message: JsonObject) => void) => void,
): InProcessServer {
  return {
    connect: (peer) => ({
      receive(message: JsonRpcMessage) {
        const m = message as unknown as JsonObject;
        const send = (out: JsonObject) => peer.send(out as unknown as JsonRpcMessage);
        if (m.id === undefined) return;
        if (m.method === "initialize") {
          const params = m.params as JsonObject;
          const result = { protocolVersion: params.protocolVersion, capabilities: { tools: {} } };
          return send({
            jsonrpc: "2.0",
            id: m.id,
            result: { ...result, serverInfo: { name: "x" } },
          });
        }
        if (m.method === "tools/call") return call(m, send);
        send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
      },
    }),
  };
}

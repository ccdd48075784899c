/**
 * Starting a benchmark's Streamable HTTP server on 127.0.0.1 in its own process: the minimal
 * server (`_servers/http_server.mjs`, under the benchmark's runtime, JSON responses; event
 * streams with `sse`) or server-everything in `streamableHttp` mode (Node, SSE responses).
 *
 * @module
 */

import { type Child, readLines, runtimeArgv, spawn } from "./_lib.ts";
import type { ServerName } from "./_stdio_clients.ts";

const here = (path: string) => decodeURIComponent(new URL(path, import.meta.url).pathname);

/** A server that is listening. */
export interface RunningServer {
  /** Its MCP endpoint. */
  url: string;
  /** Stops its process (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
}

/** Starts a fresh server on 127.0.0.1 and waits for its port. */
export async function startServer(
  server: ServerName,
  options: { sse?: boolean } = {},
): Promise<RunningServer> {
  let child: Child;
  let announcements: ReadableStream<Uint8Array>;
  if (server === "minimal") {
    child = spawn(runtimeArgv(here("./_servers/http_server.mjs")), {
      stdout: "pipe",
      env: options.sse ? { BENCH_SSE: "1" } : {},
    });
    announcements = child.stdout;
  } else {
    child = spawn([
      "node",
      "--import",
      here("../tests/interop/_loopback_preload.mjs"),
      here("../node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
      "streamableHttp",
    ], { stdout: "ignore", stderr: "pipe", env: { PORT: "0" } });
    announcements = child.stderr!;
  }
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${server} server did not start`)), 30_000);
    // Keep reading after the announcement so the server never blocks on a full pipe.
    readLines(announcements, (line) => {
      const match = /^LISTENING (\d+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    }).then(() => reject(new Error(`${server} server exited before listening`)), reject);
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await child.exited;
      clearTimeout(timer);
    },
  };
}

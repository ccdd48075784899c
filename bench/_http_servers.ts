/**
 * The servers of bench/http: a fresh one on 127.0.0.1 per worker, either the minimal server
 * (`_servers/http_server.mjs`, same runtime, JSON responses) or server-everything in
 * `streamableHttp` mode (Node, SSE responses, bound to 127.0.0.1 by
 * `tests/interop/_loopback_preload.mjs`).
 *
 * @module
 */

import { type Child, readLines, spawn } from "./_process.ts";
import { runtimeArgv } from "./_runtime.ts";
import type { ServerName } from "./_stdio_clients.ts";

const here = (path: string) => decodeURIComponent(new URL(path, import.meta.url).pathname);

/** A started server: its endpoint, and how to stop it. */
export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts a fresh server on 127.0.0.1 and waits for its port. */
export async function startServer(
  server: ServerName,
  options: { sse?: boolean; chunked?: boolean } = {},
): Promise<RunningServer> {
  let child: Child;
  let announcements: ReadableStream<Uint8Array>;
  if (server === "minimal") {
    child = spawn(runtimeArgv(here("./_servers/http_server.mjs")), {
      stdout: "pipe",
      env: {
        ...(options.sse ? { BENCH_SSE: "1" } : {}),
        ...(options.chunked ? { BENCH_CHUNKED: "1" } : {}),
      },
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

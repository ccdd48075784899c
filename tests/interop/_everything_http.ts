/**
 * Starts the real `@modelcontextprotocol/server-everything` in `streamableHttp` mode under
 * Node, forced onto 127.0.0.1 by `_loopback_preload.mjs`, on a free port; keeps its log
 * lines (it logs each session, GET stream and DELETE on stdout) and stops it.
 *
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

/** A running server-everything. */
export interface EverythingHttp {
  /** Its MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: URL;
  /** Its stdout and stderr lines so far. */
  log: string[];
  /** Resolves with the first log line (already logged or future) matching `pattern`. */
  waitForLog(pattern: RegExp, timeout?: number): Promise<string>;
  /** Stops it (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
  /** Same as `stop`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function lines(stream: Readable | null, onLine: (line: string) => void): void {
  let buffered = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf("\n")) !== -1) {
      onLine(buffered.slice(0, end).replace(/\r$/, ""));
      buffered = buffered.slice(end + 1);
    }
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Starts server-everything over Streamable HTTP on 127.0.0.1 (`port`, default a free one). */
export async function startEverythingHttp(port = 0): Promise<EverythingHttp> {
  const child = spawn(
    "node",
    [
      "--import",
      here("./_loopback_preload.mjs"),
      here("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
      "streamableHttp",
    ],
    { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const log: string[] = [];
  const waiting: { pattern: RegExp; resolve(line: string): void }[] = [];
  const onLine = (line: string) => {
    log.push(line);
    for (const waiter of [...waiting]) {
      if (waiter.pattern.test(line)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  lines(child.stdout, onLine);
  lines(child.stderr, onLine);

  const waitForLog = (pattern: RegExp, timeout = 5_000): Promise<string> => {
    const found = log.find((line) => pattern.test(line));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(waiter), 1);
        reject(new Error(`server-everything never logged ${pattern}; log:\n${log.join("\n")}`));
      }, timeout);
      const waiter = {
        pattern,
        resolve(line: string) {
          clearTimeout(timer);
          resolve(line);
        },
      };
      waiting.push(waiter);
    });
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exited(child);
      clearTimeout(timer);
    })();

  try {
    const listening = await Promise.race([
      waitForLog(/^LISTENING \d+ /, 30_000),
      exited(child).then(() => {
        throw new Error(`server-everything exited before listening:\n${log.join("\n")}`);
      }),
    ]);
    const [, port, address] = listening.split(" ");
    if (address !== "127.0.0.1") throw new Error(`server-everything listens on ${address}`);
    return {
      url: new URL(`http://127.0.0.1:${port}/mcp`),
      log,
      waitForLog,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

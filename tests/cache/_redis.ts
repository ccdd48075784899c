// A real redis-server for tests: started on 127.0.0.1 on a free port, without persistence,
// and stopped by the test.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { type RespClient, respClient } from "../_resp.ts";

/** A running redis-server. */
export interface RedisServer {
  port: number;
  /** A new connection (closed by `close()` too). */
  client(): Promise<RespClient>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts redis-server and waits until it answers PING. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const clients: RespClient[] = [];
  const connectOnce = async () => {
    const end = Date.now() + 10_000;
    for (;;) {
      try {
        const c = await respClient(port);
        await c.command(["PING"]);
        return c;
      } catch (error) {
        if (Date.now() > end) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  await (await connectOnce()).close();
  return {
    port,
    async client() {
      const c = await connectOnce();
      clients.push(c);
      return c;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

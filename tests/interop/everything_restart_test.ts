// The real @modelcontextprotocol/server-everything over Streamable HTTP, killed and started
// again on the same port in the middle of a session. After a restart it answers the old
// session id with 400 + -32000 "Bad Request: No valid session ID provided": the client
// starts a new session by itself. While it is down, the client is `reconnecting` and calls
// made meanwhile wait for it to come back.
import {
  connect,
  type FetchLike,
  isMcpError,
  type McpClient,
  type McpError,
  streamableHttp,
  type ToolResult,
} from "../../http.ts";
import { assert, assertEquals, AssertionError, test } from "../_harness.ts";
import { type EverythingHttp, startEverythingHttp } from "./_everything_http.ts";

const URI = "demo://resource/static/document/architecture.md";
// Generous: a restart of the server under load takes a few seconds.
const reconnect = { attempts: 200, initialDelay: 50, maxDelay: 250, jitter: 0 };

function text(result: ToolResult): string {
  return result.content.map((block) => String(block.text ?? "")).join("");
}

async function waitFor(check: () => boolean, what: string, timeout = 15_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > end) throw new AssertionError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (isMcpError(error)) return error;
    throw error;
  }
  throw new AssertionError("expected the promise to reject");
}

/** The id of the session the server logged last (`Session initialized with ID: …`). */
function lastSession(server: EverythingHttp): string | undefined {
  const prefix = "Session initialized with ID: ";
  return server.log.findLast((line) => line.startsWith(prefix))?.slice(prefix.length).trim();
}

/** Runs `body` with a server on a port that the test may restart; stops whatever runs. */
async function withRestarts(
  body: (servers: { current: EverythingHttp; restart(): Promise<EverythingHttp> }) => Promise<
    void
  >,
): Promise<void> {
  const started: EverythingHttp[] = [await startEverythingHttp()];
  const port = Number(started[0].url.port);
  const servers = {
    current: started[0],
    async restart() {
      await servers.current.stop();
      servers.current = await startEverythingHttp(port);
      started.push(servers.current);
      return servers.current;
    },
  };
  try {
    await body(servers);
  } finally {
    for (const server of started) await server.stop();
  }
}

test(
  "server-everything restarted on the same port: the next call succeeds on a new session, subscription made again",
  async () => {
    await withRestarts(async (servers) => {
      await using client: McpClient = await connect(servers.current.url, {
        requestTimeout: 15_000,
        reconnect,
      });
      const logged: string[] = [];
      client.subscribeNotifications((n) => {
        if (n.method === "notifications/message") logged.push(String(n.params.data));
      });
      await client.subscribe(URI);
      assertEquals(text(await client.callTool("echo", { message: "before" })), "Echo: before");
      const before = lastSession(servers.current);

      const restarted = await servers.restart();
      assertEquals(text(await client.callTool("echo", { message: "after" })), "Echo: after");
      assertEquals(client.status().state, "ready");
      const after = lastSession(restarted);
      assert(after !== undefined && after !== before, "a new session on the restarted server");
      await waitFor(
        () => logged.some((line) => line.includes(URI) && line.includes(after!)),
        "the subscription made again on the new session",
      );
      assertEquals(text(await client.callTool("echo", { message: "again" })), "Echo: again");
    });
  },
  { timeout: 90_000 },
);

test(
  "server-everything down for a while: reconnecting with attempts; a call made meanwhile waits and succeeds",
  async () => {
    await withRestarts(async (servers) => {
      await using client: McpClient = await connect(servers.current.url, {
        requestTimeout: 30_000,
        reconnect,
      });
      assertEquals(text(await client.callTool("echo", { message: "up" })), "Echo: up");
      await servers.current.stop();

      // The call that finds the server gone fails (it may have reached it): kind transport.
      const failed = await rejection(client.callTool("echo", { message: "lost" }));
      assertEquals([failed.kind, failed.reason], ["transport", "network"]);
      assertEquals(client.status().state, "reconnecting");
      await waitFor(() => client.status().attempts > 1, "reconnect attempts while down");

      const queued = client.callTool("echo", { message: "queued" });
      const restarted = await servers.restart();
      assertEquals(text(await queued), "Echo: queued");
      const status = client.status();
      assertEquals([status.state, status.attempts, status.era], ["ready", 0, "legacy"]);
      assert(lastSession(restarted) !== undefined, "a new session on the server that came back");
    });
  },
  { timeout: 90_000 },
);

test(
  "server-everything: a renewal that fails (the server went down again) releases the requests queued behind it",
  async () => {
    await withRestarts(async (servers) => {
      let initializes = 0;
      const gate = Promise.withResolvers<void>();
      const held = Promise.withResolvers<void>();
      const fetch: FetchLike = async (input, init) => {
        const request = new Request(input, init);
        // No GET stream: the call, not the stream, is the first to find the session gone.
        if (request.method === "GET") return new Response(null, { status: 405 });
        if (request.method === "POST") {
          const { method } = await request.clone().json();
          if (method === "initialize" && ++initializes === 2) {
            held.resolve();
            await gate.promise; // the server goes down meanwhile
          }
        }
        return await globalThis.fetch(request);
      };
      await using client: McpClient = await connect(
        streamableHttp(servers.current.url, { fetch }),
        {
          requestTimeout: 30_000,
          reconnect,
        },
      );
      assertEquals(text(await client.callTool("echo", { message: "up" })), "Echo: up");
      await servers.restart();

      const first = rejection(client.callTool("echo", { message: "first" }));
      await held.promise; // the new session's initialize is on its way
      const queued = [
        rejection(client.callTool("echo", { message: "second" }, { timeout: 60_000 })),
        rejection(client.listTools({ timeout: 60_000 })),
      ];
      await servers.current.stop();
      gate.resolve();
      for (const error of [await first, ...await Promise.all(queued)]) {
        assertEquals([error.kind, error.reason], ["transport", "session_renewal_failed"]);
      }

      await servers.restart();
      await client.ready(30_000);
      assertEquals(text(await client.callTool("echo", { message: "back" })), "Echo: back");
    });
  },
  { timeout: 90_000 },
);

// Failures no retry can fix end connecting at once, with their own reason and the runtime's
// words in the message; a wrong-shaped stdio answer fails its call at once; progress cannot
// hold a call open past the default ceiling; readyTimeout is a hard deadline.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { connect } from "../../client/connect.ts";
import { createClient } from "../../client/client.ts";
import type { McpClient } from "../../client/types.ts";
import type { JsonObject, JsonRpcMessage } from "../../protocol/jsonrpc.ts";
import { serve, type ServeHandler, type Server } from "../../runtime/serve.ts";
import { spawnProcess } from "../../runtime/spawn.ts";
import { inProcess, type InProcessServer } from "../../transports/in_process.ts";
import { stdio } from "../../transports/stdio.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import type { Transport } from "../../transports/transport.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  scriptCommand,
  test,
} from "../_harness.ts";
import { mcpError, wrapTransport } from "../client/_helpers.ts";
import { TEST_CERT, TEST_KEY } from "./_tls_cert.ts";

const ROOT = new URL("../../", import.meta.url);
const DENO = fileURLToPath(new URL("node_modules/.bin/deno", ROOT));
const REPORT = fileURLToPath(new URL("./_connect_report.ts", import.meta.url));
/** Retrying would take minutes: a test passes only if the client gives up at once. */
const PATIENT = { attempts: 5, initialDelay: 60_000, jitter: 0 } as const;

interface Report {
  connected?: boolean;
  kind?: string;
  reason?: string;
  message?: string;
  attempts?: number;
}

/** Runs `_connect_report.ts` under Deno with `flags` (never `-A`) and reads its report. */
async function report(flags: string[], args: string[], cwd?: string): Promise<Report> {
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
async function recordingServer(
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
function failed(client: McpClient) {
  return mcpError(client.ready(20_000));
}

test("fail fast: a command that does not exist gives up at once (command_not_found)", async () => {
  const transport = wrapTransport(stdio({ command: "conduit-no-such-command-xyz" }));
  const client = createClient({ transport, reconnect: PATIENT });
  try {
    const error = await failed(client);
    assertEquals([error.kind, error.reason], ["transport", "command_not_found"]);
    assertStringIncludes(error.message, '"conduit-no-such-command-xyz"');
    // The runtime's own words are in the message, not only in `cause`.
    assertMatch(error.message, /was not found \(.+\)$/);
    assertEquals(transport.opens.length, 1);
    assertEquals([client.status().state, client.status().attempts], ["closed", 0]);
  } finally {
    await client.close();
  }
});

test("fail fast: Deno without --allow-run refuses the spawn (permission_denied)", async () => {
  const entry = new URL("mod.ts", ROOT).href;
  const result = await report(["--allow-read", "--allow-env"], [entry, "stdio", DENO]);
  assertEquals([result.kind, result.reason, result.attempts], [
    "transport",
    "permission_denied",
    0,
  ]);
  assertStringIncludes(result.message ?? "", "permission denied (");
  assertStringIncludes(result.message ?? "", "--allow-run");
});

test("fail fast: Deno without --allow-net refuses the fetch (permission_denied)", async () => {
  const { server, seen } = await recordingServer(() => new Response(null, { status: 500 }));
  try {
    const entry = new URL("mod.ts", ROOT).href;
    const url = new URL("mcp", server.url).href;
    const result = await report(["--allow-read", "--allow-env"], [entry, "http", url]);
    assertEquals([result.kind, result.reason, result.attempts], [
      "transport",
      "permission_denied",
      0,
    ]);
    assertStringIncludes(result.message ?? "", "--allow-net");
    assertEquals(seen, []);
  } finally {
    await server.close();
  }
});

for (const [probe, init] of [[404, 404], [405, 405], [404, 405]]) {
  test(`fail fast: HTTP ${probe} to the probe and ${init} to initialize is endpoint_not_found`, async () => {
    const { server, seen } = await recordingServer((rpc) =>
      new Response("Not here", { status: rpc?.method === "server/discover" ? probe : init })
    );
    const client = createClient({
      transport: streamableHttp(new URL("mcp", server.url)),
      reconnect: PATIENT,
    });
    try {
      const error = await failed(client);
      assertEquals([error.kind, error.reason], ["transport", "endpoint_not_found"]);
      assertStringIncludes(error.message, `server/discover with HTTP ${probe}`);
      assertStringIncludes(error.message, `initialize with HTTP ${init}`);
      assertEquals(client.status().attempts, 0);
      assertEquals(seen.filter((s) => s.startsWith("POST")), [
        "POST server/discover",
        "POST initialize",
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });
}

test("fail fast: https:// to a server that does not speak TLS gives up at once (tls)", async () => {
  const { server, seen } = await recordingServer(() => new Response(null, { status: 500 }));
  const url = new URL("mcp", server.url);
  url.protocol = "https:";
  const client = createClient({ transport: streamableHttp(url), reconnect: PATIENT });
  try {
    const error = await failed(client);
    assertEquals([error.kind, error.reason], ["transport", "tls"]);
    assertStringIncludes(error.message, "the TLS handshake failed (");
    assertEquals(client.status().attempts, 0);
    assertEquals(seen, []);
  } finally {
    await client.close();
    await server.close();
  }
});

test("fail fast: a certificate the client does not trust gives up at once (tls)", async () => {
  const tls = createServer({ key: TEST_KEY, cert: TEST_CERT }, (_request, response) => {
    response.statusCode = 500;
    response.end();
  });
  await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
  const { port } = tls.address() as { port: number };
  const client = createClient({
    transport: streamableHttp(`https://localhost:${port}/mcp`),
    reconnect: PATIENT,
  });
  try {
    const error = await failed(client);
    assertEquals([error.kind, error.reason], ["transport", "tls"]);
    assertMatch(error.message, /TLS handshake failed \(.*certificate/i);
    assertEquals(client.status().attempts, 0);
  } finally {
    await client.close();
    await new Promise((resolve) => tls.close(resolve));
  }
});

/** A copy of the library with no package.json beside it: its lazy imports cannot resolve. */
function libraryCopy(): { dir: string; entry: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), "conduit-nodeps-"));
  for (const part of ["mod.ts", "http.ts", "_shared_exports.ts"]) {
    cpSync(fileURLToPath(new URL(part, ROOT)), join(dir, part));
  }
  for (const sub of ["protocol", "client", "transports", "runtime", "oauth"]) {
    cpSync(fileURLToPath(new URL(sub, ROOT)), join(dir, sub), { recursive: true });
  }
  const entry = pathToFileURL(join(dir, "mod.ts")).href;
  return { dir, entry, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

const NET_ONLY = ["--allow-read", "--allow-env", "--allow-net=127.0.0.1"];

test("fail fast: eventsource-parser that does not load is dependency_missing, at once", async () => {
  using copy = libraryCopy();
  const { server, seen } = await recordingServer((rpc) => {
    const result = {
      protocolVersion: (rpc?.params as JsonObject | undefined)?.protocolVersion,
      capabilities: {},
      serverInfo: { name: "sse-only", version: "1.0.0" },
    };
    const event = JSON.stringify({ jsonrpc: "2.0", id: rpc?.id, result });
    return new Response(`event: message\ndata: ${event}\n\n`, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  try {
    const url = new URL("mcp", server.url).href;
    const result = await report(NET_ONLY, [copy.entry, "http", url, "legacy"], copy.dir);
    assertEquals([result.kind, result.reason, result.attempts], [
      "transport",
      "dependency_missing",
      0,
    ]);
    assertMatch(result.message ?? "", /"eventsource-parser" package failed to load \(.+\)/);
    assertEquals(seen.filter((s) => s.startsWith("POST")), ["POST initialize"]);
  } finally {
    await server.close();
  }
});

test("fail fast: OAuth libraries that do not load are dependency_missing, at once", async () => {
  using copy = libraryCopy();
  const { server, seen } = await recordingServer(() => new Response(null, { status: 500 }));
  try {
    const url = new URL("mcp", server.url).href;
    const result = await report(NET_ONLY, [copy.entry, "http", url, "oauth"], copy.dir);
    assertEquals([result.kind, result.reason, result.attempts], [
      "transport",
      "dependency_missing",
      0,
    ]);
    assertMatch(result.message ?? "", /the OAuth libraries failed to load \(.+\)/);
    assertEquals(seen, []);
  } finally {
    await server.close();
  }
});

test("fail fast: a wrong-shaped answer over stdio fails its call at once", async () => {
  const server = scriptCommand(new URL("./_wrong_shape_server.ts", import.meta.url));
  const client = createClient({ transport: stdio(server), reconnect: PATIENT });
  try {
    await client.ready(20_000);
    for (const shape of ["string_result", "both", "neither", "bad_version"]) {
      const error = await mcpError(client.callTool(shape, {}, { timeout: 60_000 }));
      assertEquals([error.kind, error.reason], ["protocol", "malformed_body"], shape);
      assertStringIncludes(error.message, 'the "tools/call" request is not a JSON-RPC message');
    }
    // The link goes on.
    const fine = await client.callTool("fine", {});
    assertEquals(fine.content[0].text, "fine");
  } finally {
    await client.close();
  }
});

/** A legacy in-process server; `call` answers `tools/call` (or not). */
function legacyServer(
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

test("fail fast: a wrong-shaped answer in process fails its call at once", async () => {
  const server = legacyServer((m, send) => send({ jsonrpc: "2.0", id: m.id, result: "a string" }));
  const client = createClient({ transport: inProcess(server) });
  try {
    const error = await mcpError(client.callTool("echo", {}, { timeout: 60_000 }));
    assertEquals([error.kind, error.reason], ["protocol", "malformed_body"]);
  } finally {
    await client.close();
  }
});

test("fail fast: progress for ever ends at the default maxTotalTimeout (10 × timeout)", async () => {
  const timers: ReturnType<typeof setInterval>[] = [];
  const server = legacyServer((m) => {
    const token = ((m.params as JsonObject)._meta as JsonObject).progressToken;
    let progress = 0;
    const send = (out: JsonObject) => connection?.send(out as unknown as JsonRpcMessage);
    timers.push(setInterval(() => {
      send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: ++progress },
      });
    }, 10));
  });
  let connection: { send(message: JsonRpcMessage): void } | undefined;
  const spying: InProcessServer = {
    connect: (peer) => {
      connection = peer;
      return server.connect(peer);
    },
  };
  const client = createClient({ transport: inProcess(spying), requestTimeout: 60 });
  try {
    await client.ready(20_000);
    let seen = 0;
    const error = await mcpError(client.callTool("forever", {}, { onProgress: () => seen++ }));
    assertEquals([error.kind, error.reason], ["timeout", "max_total_timeout"]);
    assert(seen > 0, "progress should have restarted the timeout");
  } finally {
    for (const timer of timers) clearInterval(timer);
    await client.close();
  }
});

test("fail fast: readyTimeout is a hard deadline that closing does not extend", async () => {
  // `sleep` never answers and ignores stdin's end: closing waits the whole grace period.
  let closing: Promise<void> | undefined;
  let closed = false;
  const inner = stdio({ command: "sleep", args: ["30"], closeGracePeriod: 1_500 });
  const transport: Transport = {
    kind: inner.kind,
    async open(sink) {
      const link = await inner.open(sink);
      return {
        send: (message, options) => link.send(message, options),
        setProtocol: (protocol) => link.setProtocol(protocol),
        close: () => {
          closing ??= link.close().finally(() => (closed = true));
          return closing;
        },
      };
    },
  };
  const error = await mcpError(connect(transport, { readyTimeout: 100 }));
  assertEquals([error.kind, error.reason], ["timeout", "not_ready"]);
  assert(closing !== undefined, "connect should have started closing the link");
  assert(!closed, "connect should not have waited for the close grace period");
  await closing;
});

// Interop with a modern-era (2026-07-28) server built on the official
// @modelcontextprotocol/server 2.x (tests/fixtures/modern_sdk_server.ts): over stdio (the
// fixture as a script under the current runtime) and over Streamable HTTP on 127.0.0.1:0.
// `auto` must pick the modern era; the `_meta` envelope is checked on the wire.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as connectHttp } from "../../http.ts";
import { connect } from "../../mod.ts";
import type { McpClient, Progress, ToolResult } from "../../client/types.ts";
import {
  MODERN_SDK_SERVER_NAME,
  type ModernSdkRequest,
  startModernSdkHttp,
} from "../fixtures/modern_sdk_server.ts";
import {
  assert,
  assertArrayIncludes,
  assertEquals,
  assertStringIncludes,
  scriptCommand,
  test,
} from "../_harness.ts";

const MODERN = "2026-07-28";
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

interface WireMessage {
  id?: unknown;
  method?: string;
  params?: { _meta?: Record<string, unknown>; [key: string]: unknown };
}

function text(result: ToolResult): string {
  return result.content.map((block) => String(block.text ?? "")).join("");
}

/** The fixture script over stdio, logging what it receives to a file. */
async function stdioClient(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "conduit-modern-sdk-"));
  const wireLog = join(dir, "wire.jsonl");
  const script = scriptCommand(new URL("../fixtures/modern_sdk_server.ts", import.meta.url));
  const client = await connect({
    ...script,
    env: { MODERN_SDK_WIRE_LOG: wireLog, ...env },
    closeGracePeriod: 1_000,
    terminateGracePeriod: 1_000,
  }, { requestTimeout: 15_000, readyTimeout: 30_000, reconnect: false });
  const wire = (): { pid: number; message: WireMessage }[] => {
    try {
      return readFileSync(wireLog, "utf8").split("\n").filter(Boolean).map((line) =>
        JSON.parse(line)
      );
    } catch {
      return [];
    }
  };
  const dispose = async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { client, wire, dispose };
}

/** The common list/call checks, the same over both transports. */
async function listAndCall(client: McpClient): Promise<void> {
  const tools = await client.listAllTools();
  assertEquals(tools.map((t) => t.name).sort(), [
    "add",
    "count",
    "echo",
    "erase",
    "peek",
    "weather",
    "whoami",
  ]);
  assertEquals(text(await client.callTool("echo", { message: "héllo, modern" })), "héllo, modern");
  const sum = await client.callTool("add", { a: 2, b: 40 });
  assertEquals(sum.isError, false);
  assertEquals(sum.structuredContent, { sum: 42 });

  const prompts = await client.listAllPrompts();
  assertEquals(prompts.map((p) => p.name), ["greet"]);
  const greeting = await client.getPrompt("greet", { name: "Ada" });
  assertEquals(greeting.messages[0].content.text, "Hello, Ada!");

  const resources = await client.listAllResources();
  assertArrayIncludes(resources.map((r) => r.uri), ["fixture://readme"]);
  const readme = await client.readResource("fixture://readme");
  assertEquals(readme.contents[0].text, "modern readme");
  const templates = await client.listAllResourceTemplates();
  assertEquals(templates.map((t) => t.uriTemplate), ["fixture://items/{id}"]);
  const item = await client.readResource("fixture://items/7");
  assertEquals(item.contents[0].text, "item 7");

  // Invalid arguments are the SDK's tool error, a normal result.
  const bad = await client.callTool("add", { a: "two" });
  assertEquals(bad.isError, true);
}

/** The envelope the SDK's handler saw (the `whoami` tool reports it). */
async function whoami(client: McpClient) {
  const result = await client.callTool("whoami", {});
  return result.structuredContent as {
    era: string;
    method: string;
    envelope: Record<string, unknown> | null;
  };
}

test(
  "modern SDK over stdio: auto picks 2026-07-28 with server/discover on one process",
  async () => {
    const { client, wire, dispose } = await stdioClient();
    try {
      assertEquals(client.era(), "modern");
      const info = client.serverInfo();
      assertEquals(info.version, MODERN);
      assertEquals(info.serverInfo?.name, MODERN_SDK_SERVER_NAME);
      assertStringIncludes(info.instructions ?? "", "@modelcontextprotocol/server 2.x");
      assert(typeof info.capabilities.tools === "object", "tools capability");

      await listAndCall(client);
      const progress: Progress[] = [];
      const counted = await client.callTool("count", { to: 3 }, {
        onProgress: (p) => progress.push(p),
      });
      assertEquals(text(counted), "counted to 3");
      assertEquals(progress.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]]);

      const seen = await whoami(client);
      assertEquals(seen.era, "modern");
      assertEquals(seen.envelope?.[PROTOCOL_VERSION], MODERN);
      assertEquals((seen.envelope?.[CLIENT_INFO] as { name?: string })?.name, "conduit-mcp");

      const messages = wire();
      const requests = messages.filter((m) => m.message.method !== undefined);
      assertEquals(requests[0].message.method, "server/discover", "the first request is the probe");
      assert(!requests.some((m) => m.message.method === "initialize"), "no legacy handshake");
      assertEquals(new Set(messages.map((m) => m.pid)).size, 1, "one server process");
      for (const { message } of requests.filter((m) => m.message.id !== undefined)) {
        const meta = message.params?._meta ?? {};
        assertEquals(meta[PROTOCOL_VERSION], MODERN, `${message.method} carries the version`);
        assert(typeof meta[CLIENT_CAPABILITIES] === "object", `${message.method} capabilities`);
        assertEquals((meta[CLIENT_INFO] as { name?: string })?.name, "conduit-mcp");
      }
    } finally {
      await dispose();
    }
  },
  { timeout: 60_000 },
);

test("modern SDK over stdio: setLogLevel rides in _meta; ping is server/discover", async () => {
  const { client, wire, dispose } = await stdioClient({ MODERN_SDK_LEGACY: "reject" });
  try {
    assertEquals(client.era(), "modern");
    await client.setLogLevel("warning");
    await client.ping();
    const seen = await whoami(client);
    assertEquals(seen.envelope?.[LOG_LEVEL], "warning");
    const methods = wire().map((m) => m.message.method);
    assert(!methods.includes("logging/setLevel"), `no logging/setLevel: ${methods}`);
    assertEquals(methods.filter((m) => m === "server/discover").length, 2, "probe + ping");
    const call = wire().find((m) => m.message.method === "tools/call")?.message;
    assertEquals(call?.params?._meta?.[LOG_LEVEL], "warning");
  } finally {
    await dispose();
  }
}, { timeout: 60_000 });

/** POSTs by JSON-RPC method. */
function posts(requests: ModernSdkRequest[], method: string): ModernSdkRequest[] {
  return requests.filter((r) => r.method === "POST" && (r.body as WireMessage)?.method === method);
}

test("modern SDK over HTTP: auto picks 2026-07-28; headers and _meta on the wire", async () => {
  await using server = await startModernSdkHttp();
  const client = await connectHttp(server.url, { requestTimeout: 15_000, reconnect: false });
  try {
    assertEquals(client.era(), "modern");
    assertEquals(client.serverInfo().version, MODERN);
    assertEquals(client.serverInfo().serverInfo?.name, MODERN_SDK_SERVER_NAME);
    await listAndCall(client);

    const seen = await whoami(client);
    assertEquals(seen.era, "modern");
    assertEquals(seen.envelope?.[PROTOCOL_VERSION], MODERN);

    const [probe] = posts(server.requests, "server/discover");
    assertEquals(server.requests[0], probe, "the first request is the probe");
    assertEquals(probe.headers["mcp-protocol-version"], MODERN);
    assertEquals(probe.headers["mcp-method"], "server/discover");
    assertEquals(probe.status, 200);
    assertEquals(posts(server.requests, "initialize"), [], "no legacy handshake");
    const [echo] = posts(server.requests, "tools/call").filter((r) =>
      (r.body as WireMessage).params?.name === "echo"
    );
    assertEquals(echo.headers["mcp-name"], "echo");
    assertEquals(echo.headers["mcp-method"], "tools/call");
    const [readme] = posts(server.requests, "resources/read");
    assertEquals(readme.headers["mcp-name"], "fixture://readme");
    for (
      const request of server.requests.filter((r) => (r.body as WireMessage)?.id !== undefined)
    ) {
      const body = request.body as WireMessage;
      assertEquals(body.params?._meta?.[PROTOCOL_VERSION], MODERN, `${body.method} _meta`);
      assertEquals(request.headers["mcp-protocol-version"], MODERN, `${body.method} header`);
      assertEquals(request.headers["mcp-session-id"], undefined, "no session in the modern era");
    }
    // The SDK accepted every request (the bad call is a tool error inside a 200).
    const refused = server.requests.filter((r) => r.status !== 200 && r.status !== 202);
    assertEquals(refused.map((r) => [(r.body as WireMessage)?.method, r.status]), []);
  } finally {
    await client.close();
  }
  assert(server.requests.every((r) => r.method === "POST"), "modern: no GET stream, no DELETE");
}, { timeout: 60_000 });

test("modern SDK over HTTP: an x-mcp-header argument is mirrored and accepted", async () => {
  await using server = await startModernSdkHttp({ legacy: "reject" });
  await using client = await connectHttp(server.url, { requestTimeout: 15_000, reconnect: false });
  const tools = await client.listAllTools();
  assert(tools.some((t) => t.name === "weather"), "the tool with x-mcp-header is kept");
  assertEquals(text(await client.callTool("weather", { region: "Oslo" })), "sunny in Oslo");
  assertEquals(text(await client.callTool("weather", { region: "Zürich" })), "sunny in Zürich");
  const calls = posts(server.requests, "tools/call");
  assertEquals(calls.map((r) => r.headers["mcp-param-region"]), [
    "Oslo",
    `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode("Zürich")))}?=`,
  ]);
  assertEquals(calls.map((r) => r.status), [200, 200]);
}, { timeout: 60_000 });

test("modern SDK over HTTP: progress arrives over the SSE response", async () => {
  await using server = await startModernSdkHttp();
  await using client = await connectHttp(server.url, { requestTimeout: 15_000, reconnect: false });
  const progress: Progress[] = [];
  const counted = await client.callTool("count", { to: 4 }, {
    onProgress: (p) => progress.push(p),
  });
  assertEquals(text(counted), "counted to 4");
  assertEquals(progress.map((p) => [p.progress, p.total, p.message]), [
    [1, 4, "step 1"],
    [2, 4, "step 2"],
    [3, 4, "step 3"],
    [4, 4, "step 4"],
  ]);
  const [call] = posts(server.requests, "tools/call");
  assertStringIncludes(call.contentType ?? "", "text/event-stream", "the SDK upgraded to SSE");
  const [list] = posts(server.requests, "tools/list");
  assertStringIncludes(list?.contentType ?? "application/json", "application/json");
}, { timeout: 60_000 });

test("modern SDK over HTTP: protocol legacy uses the SDK's stateless 2025 fallback", async () => {
  await using server = await startModernSdkHttp();
  await using client = await connectHttp(server.url, {
    protocol: "legacy",
    requestTimeout: 15_000,
    reconnect: false,
  });
  assertEquals(client.era(), "legacy");
  assertEquals(text(await client.callTool("echo", { message: "old style" })), "old style");
  assertEquals(posts(server.requests, "server/discover"), [], "no probe when legacy is forced");
  assertEquals(posts(server.requests, "initialize").length, 1);
});

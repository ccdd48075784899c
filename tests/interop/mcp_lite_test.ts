// A server built with mcp-lite 0.10 (from npm), served over Streamable HTTP on 127.0.0.1. It
// speaks 2025-06-18 and 2025-03-26 but answers 2025-03-26 to any version it lacks: the client
// asks once more with the newest version it offers below the one refused, and speaks
// 2025-06-18 with it, stateless and with sessions. A server that speaks only 2025-03-26 is
// spoken to in 2025-03-26 (offered last).
import { InMemorySessionAdapter, McpServer, StreamableHttpTransport } from "mcp-lite";
import { connect, isContent, resultText } from "../../mod.ts";
import { serve } from "../../runtime/serve.ts";
import { assert, assertEquals, test } from "../_harness.ts";

function liteServer(sessions: boolean) {
  const mcp = new McpServer({ name: "lite", version: "0.10.0" });
  mcp.tool("echo", {
    description: "Echoes the message",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    },
    handler: (args: { message: string }) => ({
      content: [{ type: "text", text: `echo: ${args.message}` }],
      structuredContent: { echoed: args.message },
    }),
  });
  const transport = new StreamableHttpTransport(
    sessions ? { sessionAdapter: new InMemorySessionAdapter({ maxEventBufferSize: 64 }) } : {},
  );
  return transport.bind(mcp);
}

/** Serves `handle`, recording the protocolVersion of each initialize it gets. */
async function served(handle: (request: Request) => Promise<Response>) {
  const asked: string[] = [];
  const server = await serve(async (request) => {
    if (request.method === "POST") {
      const body = await request.clone().json().catch(() => undefined);
      if (body?.method === "initialize") asked.push(body.params?.protocolVersion);
    }
    return await handle(request);
  });
  return { server, asked, url: new URL("/mcp", server.url) };
}

for (const sessions of [false, true]) {
  test(`mcp-lite 0.10 over HTTP (${sessions ? "sessions" : "stateless"}): asked again, it speaks 2025-06-18`, async () => {
    const { server, asked, url } = await served(liteServer(sessions));
    await using _server = server;
    const warnings: string[] = [];
    await using client = await connect(url, {
      onWarning: (message) => warnings.push(message),
      readyTimeout: 10_000,
    });
    assertEquals([client.era(), client.status().version], ["legacy", "2025-06-18"]);
    assertEquals(asked, ["2025-11-25", "2025-06-18"]);
    assertEquals(client.serverInfo().serverInfo?.name, "lite");
    const tools = await client.listAllTools();
    assertEquals(tools.map((tool) => tool.name), ["echo"]);
    const result = await client.callTool("echo", { message: "hi" });
    const first = result.content.find((block) => isContent(block, "text"));
    assertEquals(first?.text, "echo: hi");
    assertEquals(resultText(result), "echo: hi");
    assertEquals(result.structuredContent, { echoed: "hi" });
  });
}

test("a server that speaks only 2025-03-26 is spoken to in 2025-03-26, offered last", async () => {
  const lite = liteServer(false);
  // The same server, made to answer 2025-03-26 whatever it is asked (and to refuse the
  // header of any other version), as servers of that revision do.
  const { server, asked, url } = await served(async (request) => {
    const header = request.headers.get("mcp-protocol-version");
    if (header !== null && header !== "2025-03-26") {
      return new Response("unsupported protocol version", { status: 400 });
    }
    if (request.method !== "POST") return await lite(request);
    const body = await request.clone().json().catch(() => undefined);
    if (body?.method !== "initialize") return await lite(request);
    const pinned = { ...body, params: { ...body.params, protocolVersion: "2025-03-26" } };
    return await lite(
      new Request(request.url, {
        method: "POST",
        headers: request.headers,
        body: JSON.stringify(pinned),
      }),
    );
  });
  await using _server = server;
  await using client = await connect(url, {
    onWarning: () => {},
    readyTimeout: 10_000,
    handler: { elicitation: () => ({ action: "decline" }) },
  });
  assertEquals([client.era(), client.status().version], ["legacy", "2025-03-26"]);
  // Asked once more below the version refused; the answer stays 2025-03-26, which it speaks.
  assertEquals(asked, ["2025-11-25", "2025-06-18"]);
  const result = await client.callTool("echo", { message: "old" });
  assertEquals(resultText(result), "echo: old");
});

test("a server that answers a version the client does not speak is asked once more, then refused", async () => {
  const { server, asked, url } = await served(async (request) => {
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const body = await request.json().catch(() => undefined);
    if (body?.method !== "initialize") {
      return Response.json({
        jsonrpc: "2.0",
        id: body?.id ?? null,
        error: { code: -32601, message: "nope" },
      });
    }
    return Response.json({
      jsonrpc: "2.0",
      id: body.id,
      result: {
        protocolVersion: "2024-11-05",
        capabilities: {},
        serverInfo: { name: "old", version: "1" },
      },
    });
  });
  await using _server = server;
  const error = await connect(url, { onWarning: () => {}, readyTimeout: 10_000 }).then(
    () => undefined,
    (e) => e,
  );
  assert(error !== undefined, "connect fails");
  assertEquals(error.reason, "no_common_version");
  assert(error.message.includes("version 2024-11-05"), error.message);
  assertEquals(asked, ["2025-11-25", "2025-06-18"]);
});

// Failures no retry can fix end connecting at once, with their own reason and the runtime's
// words in the message, whatever the reconnect settings.
import { createServer } from "node:https";
import { createClient } from "../../client/client.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { stdio } from "../../transports/stdio.ts";
import { streamableHttp } from "../../transports/streamable_http.ts";
import { fetchFailure } from "../../transports/_fetch_failure.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes, test } from "../_harness.ts";
import { wrapTransport } from "../client/_helpers.ts";
import {
  DENO,
  failed,
  libraryCopy,
  NET_ONLY,
  PATIENT,
  recordingServer,
  report,
  ROOT,
} from "./_fail_fast.ts";
import { TEST_CERT, TEST_KEY } from "./_tls_cert.ts";

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

function failure(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { name }, extra);
}

test("fail fast: fetch failures no retry can fix, as Deno and Bun report them", () => {
  const deep = (message: string) =>
    new TypeError("fetch failed", { cause: failure("Error", message) });
  const table: [unknown, string | undefined][] = [
    [failure("NotCapable", 'Requires net access to "x:1"'), "permission_denied"],
    [failure("PermissionDenied", "denied"), "permission_denied"],
    [deep("client error (Connect): invalid peer certificate: UnknownIssuer"), "tls"],
    [deep("client error (Connect): received corrupt message of type InvalidContentType"), "tls"],
    [
      failure("TypeError", "self signed certificate", { code: "DEPTH_ZERO_SELF_SIGNED_CERT" }),
      "tls",
    ],
    [failure("TypeError", "The TLS handshake failed", { code: "EPROTO" }), "tls"],
    [deep("tcp connect error: Connection refused (os error 111)"), undefined],
    [failure("TypeError", "Unable to connect", { code: "ConnectionRefused" }), undefined],
    [failure("TypeError", "fetch failed", { code: "ECONNRESET" }), undefined],
    ["a string", undefined],
  ];
  for (const [error, reason] of table) {
    assertEquals(fetchFailure(error)?.reason, reason, String((error as Error).message ?? error));
  }
  // The runtime's words reach the message with URLs cut to their origin (no path, no query).
  const words = fetchFailure(
    deep("error sending request for url (https://h.example/mcp?key=k1): invalid peer certificate"),
  );
  assertEquals(
    words?.detail,
    "error sending request for url (https://h.example): invalid peer certificate",
  );
});

test("fail fast: a copy of the library with no packages at all reads an event stream", async () => {
  // The event stream grammar is the library's own: a server that answers in SSE needs no
  // package (the same copy fails at once where a package is needed, below).
  using copy = libraryCopy();
  const { server, seen } = await recordingServer((rpc) => {
    if (rpc?.id === undefined) return new Response(null, { status: 202 });
    const result = {
      protocolVersion: (rpc?.params as JsonObject | undefined)?.protocolVersion,
      capabilities: {},
      serverInfo: { name: "sse-only", version: "1.0.0" },
    };
    const event = JSON.stringify({ jsonrpc: "2.0", id: rpc?.id, result });
    return new Response(`: keep-alive\r\nevent: message\r\ndata: ${event}\r\n\r\n`, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  try {
    const url = new URL("mcp", server.url).href;
    const result = await report(NET_ONLY, [copy.entry, "http", url, "legacy"], copy.dir);
    assertEquals(result, { connected: true });
    assertEquals(seen.filter((s) => s.startsWith("POST")).slice(0, 1), ["POST initialize"]);
  } finally {
    await server.close();
  }
});

test("fail fast: a schema validator that does not load is dependency_missing, and no call goes out", async () => {
  using copy = libraryCopy();
  const tool = {
    name: "echo",
    inputSchema: { type: "object", properties: { message: { type: "string" } } },
  };
  const { server, seen } = await recordingServer((rpc) => {
    if (rpc?.id === undefined) return new Response(null, { status: 202 });
    const params = rpc?.params as JsonObject | undefined;
    const result = rpc?.method === "initialize"
      ? {
        protocolVersion: params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "validated", version: "1.0.0" },
      }
      : rpc?.method === "tools/list"
      ? { tools: [tool] }
      : { content: [{ type: "text", text: "hi" }] };
    return Response.json({ jsonrpc: "2.0", id: rpc?.id, result });
  });
  try {
    const url = new URL("mcp", server.url).href;
    const result = await report(NET_ONLY, [copy.entry, "http", url, "validate"], copy.dir);
    assertEquals([result.kind, result.reason], ["transport", "dependency_missing"]);
    assertMatch(result.message ?? "", /"@cfworker\/json-schema" package failed to load \(.+\)/);
    // Connected, then refused at the call, before it went out.
    assert(seen.includes("POST initialize"), `connected: ${seen.join(", ")}`);
    assert(!seen.includes("POST tools/call"), "a call went out unvalidated");
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

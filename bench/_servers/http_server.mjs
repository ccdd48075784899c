// A minimal MCP server over Streamable HTTP that answers at once with `application/json`:
// modern era (POST only, headers checked against the body) and legacy era (initialize →
// Mcp-Session-Id, 202 for notifications, 405 for the GET stream, DELETE ends the session).
// Runs under Deno (Deno.serve), Bun (Bun.serve) and Node (node:http), bound to 127.0.0.1
// on a free port, which it prints as `LISTENING <port>` on stdout. Serves `/mcp`. With
// BENCH_SSE=1 in its environment it answers requests after the handshake with an event
// stream (one event) instead. With BENCH_CHUNKED=1 every JSON body goes out as a stream in
// 64 KiB pieces, with no Content-Length (chunked transfer encoding).
import { answer } from "./_mcp.mjs";

const env = (name) => globalThis.Deno?.env.get(name) ?? globalThis.process?.env[name];
const SSE = env("BENCH_SSE") === "1";
const CHUNKED = env("BENCH_CHUNKED") === "1";
const PIECE = 64 * 1024;
const SSE_HEADERS = { "content-type": "text/event-stream" };

const sessions = new Set();
const JSON_HEADERS = { "content-type": "application/json" };

function reply(status, body, extra) {
  return {
    status,
    headers: extra === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...extra },
    body: body === undefined ? "" : JSON.stringify(body),
  };
}

function rpcError(id, code, message) {
  return { jsonrpc: "2.0", id: id ?? null, error: { code, message } };
}

/** The whole server: method, a header getter and the body text → status, headers, body. */
function serve(method, path, header, text) {
  if (path !== "/mcp") return { status: 404, headers: {}, body: "" };
  const session = header("mcp-session-id");
  if (method === "GET") return { status: 405, headers: { allow: "POST, DELETE" }, body: "" };
  if (method === "DELETE") {
    if (session === null || !sessions.delete(session)) {
      return { status: 404, headers: {}, body: "" };
    }
    return { status: 200, headers: {}, body: "" };
  }
  if (method !== "POST") return { status: 405, headers: { allow: "POST" }, body: "" };
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return reply(400, rpcError(null, -32700, "Parse error"));
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    return reply(400, rpcError(null, -32600, "Invalid request"));
  }
  const version = message.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
  if (typeof version === "string") {
    // Modern: the mirrored headers must match the body.
    if (header("mcp-protocol-version") !== version || header("mcp-method") !== message.method) {
      return reply(400, rpcError(message.id, -32020, "Header mismatch"));
    }
  } else if (message.method === "initialize") {
    const response = answer(message);
    const id = crypto.randomUUID();
    sessions.add(id);
    return reply(200, response, { "mcp-session-id": id });
  } else {
    // Legacy after initialize: a known session is required.
    if (session === null) return reply(400, rpcError(message.id, -32000, "No session"));
    if (!sessions.has(session)) {
      return reply(404, rpcError(message.id, -32001, "Session not found"));
    }
  }
  if (message.id === undefined || message.id === null) {
    return { status: 202, headers: {}, body: "" };
  }
  const response = answer(message);
  if (response === undefined) return { status: 202, headers: {}, body: "" };
  if (response.error !== undefined && typeof version === "string") {
    const code = response.error.code;
    return reply(code === -32601 ? 404 : code === -32022 || code === -32602 ? 400 : 200, response);
  }
  if (SSE) {
    return {
      status: 200,
      headers: SSE_HEADERS,
      body: `event: message\ndata: ${JSON.stringify(response)}\n\n`,
    };
  }
  return reply(200, response);
}

async function webHandler(request) {
  const url = new URL(request.url);
  const text = request.method === "POST" ? await request.text() : "";
  const out = serve(request.method, url.pathname, (name) => request.headers.get(name), text);
  const body = out.body === "" ? null : CHUNKED ? pieces(out.body) : out.body;
  return new Response(body, { status: out.status, headers: out.headers });
}

/** `text` as a stream of 64 KiB pieces (so the response has no Content-Length). */
function pieces(text) {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + PIECE));
      at += PIECE;
    },
  });
}

function announce(port) {
  console.log(`LISTENING ${port}`);
}

if (typeof Deno !== "undefined") {
  Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => announce(port) },
    webHandler,
  );
} else if (typeof Bun !== "undefined") {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: webHandler });
  announce(server.port);
} else {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const path = req.url.split("?")[0];
      const out = serve(req.method, path, (name) => req.headers[name] ?? null, text);
      res.writeHead(out.status, { ...out.headers, "content-length": Buffer.byteLength(out.body) });
      res.end(out.body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => announce(server.address().port));
}

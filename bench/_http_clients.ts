/**
 * The three Streamable HTTP contestants behind one shape: our client, the official
 * `@modelcontextprotocol/client` 2.x, and the raw `fetch` floor (one POST per call with
 * the headers the era requires, no client library). Modules are imported only when their
 * contestant runs.
 *
 * @module
 */

import type { ClientName, Mode, Session } from "./_stdio_clients.ts";
import { CLIENT_INFO, connectOfficialOver, connectOurs, LEGACY, MODERN } from "./_stdio_clients.ts";

export type { ClientName, Mode, Session };

const ARGS = { message: "hello" };

/**
 * Connects `client` to the MCP endpoint `url` in `mode`. `"link"` is our Streamable HTTP
 * transport alone, driven like the raw floor (no client core): what our transport's code and
 * state add to the process, apart from the client's.
 */
export function connectHttp(
  client: ClientName,
  url: string,
  mode: Mode,
): Promise<Session> {
  switch (client) {
    case "link":
      return connectLink(url, mode);
    case "raw":
      return connectRaw(url, mode);
    case "ours":
      return connectOurs(url, mode);
    case "official":
      return connectOfficial(url, mode);
  }
}

// ---- our transport alone --------------------------------------------------------------------

async function connectLink(url: string, mode: Mode): Promise<Session> {
  const { streamableHttp } = await import("../transports/streamable_http.ts");
  const pending = new Map<unknown, (reply: Reply) => void>();
  const link = await streamableHttp(url).open({
    message(message) {
      const id = (message as Reply).id;
      const resolve = pending.get(id);
      if (resolve !== undefined) {
        pending.delete(id);
        resolve(message as Reply);
      }
    },
    closed() {},
  });
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>): Promise<Reply> => {
    const id = nextId++;
    const reply = new Promise<Reply>((resolve) => pending.set(id, resolve));
    return link.send({ jsonrpc: "2.0", id, method, params }).then(() => reply);
  };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  let era: "modern" | "legacy" = "legacy";
  if (mode === "auto") {
    link.setProtocol({ era: "modern", version: MODERN });
    const reply = await request("server/discover", { _meta: meta }).catch(() => ({} as Reply));
    const versions = reply.result?.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN)) era = "modern";
  }
  if (era === "legacy") {
    link.setProtocol({ era: "legacy", version: LEGACY });
    const init = await request("initialize", {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`);
    await link.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  const params = era === "modern"
    ? { name: "echo", arguments: ARGS, _meta: meta }
    : { name: "echo", arguments: ARGS };
  return {
    era,
    async call() {
      const reply = await request("tools/call", params);
      if (reply.error !== undefined) throw new Error(reply.error.message);
      return reply.result;
    },
    close: () => link.close(),
  };
}

// ---- official --------------------------------------------------------------------------

function connectOfficial(url: string, mode: Mode): Promise<Session> {
  return connectOfficialOver(mode, async () => {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    return new StreamableHTTPClientTransport(new URL(url));
  });
}

// ---- raw fetch floor -----------------------------------------------------------------------

interface Reply {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * Reads one JSON-RPC reply: a JSON body, or the event of an SSE body that carries the reply
 * (resolved as soon as that event is in; the rest of the body drains in the background so
 * the connection can be reused).
 */
async function readReply(response: Response, id: number): Promise<Reply> {
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("application/json")) return await response.json();
  if (!type.startsWith("text/event-stream") || response.body === null) {
    const text = await response.text();
    throw new Error(`HTTP ${response.status} ${type}: ${text.slice(0, 200)}`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.search(/\r?\n\r?\n/)) >= 0) {
      const event = text.slice(0, end);
      text = text.slice(end).replace(/^\r?\n\r?\n/, "");
      const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart()).join("\n");
      if (data === "") continue;
      const message = JSON.parse(data) as Reply;
      if (message.id === id) {
        void (async () => {
          while (!(await reader.read()).done);
        })().catch(() => {});
        return message;
      }
    }
  }
  throw new Error("no reply on the event stream");
}

async function connectRaw(url: string, mode: Mode): Promise<Session> {
  let nextId = 1;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const base = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  let era = "legacy";
  if (mode === "auto") {
    const id = nextId++;
    const response = await fetch(url, {
      method: "POST",
      headers: { ...base, "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "server/discover",
        params: { _meta: meta },
      }),
    });
    if (response.ok) {
      const reply = await readReply(response, id);
      const versions = reply.result?.supportedVersions;
      if (Array.isArray(versions) && versions.includes(MODERN)) era = "modern";
    } else {
      await response.body?.cancel();
    }
  }
  let headers: Record<string, string>;
  let session: string | null = null;
  if (era === "modern") {
    headers = {
      ...base,
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "echo",
    };
  } else {
    const id = nextId++;
    const response = await fetch(url, {
      method: "POST",
      headers: base,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO },
      }),
    });
    session = response.headers.get("mcp-session-id");
    const init = await readReply(response, id);
    const version = String(init.result?.protocolVersion ?? LEGACY);
    headers = { ...base, "mcp-protocol-version": version };
    if (session !== null) headers["mcp-session-id"] = session;
    const ack = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    await ack.body?.cancel();
  }
  const modern = era === "modern";
  return {
    era,
    async call() {
      const id = nextId++;
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: modern
            ? { name: "echo", arguments: ARGS, _meta: meta }
            : { name: "echo", arguments: ARGS },
        }),
      });
      const reply = await readReply(response, id);
      if (reply.error !== undefined) throw new Error(reply.error.message);
      return reply.result;
    },
    async close() {
      if (session !== null) {
        const response = await fetch(url, { method: "DELETE", headers });
        await response.body?.cancel();
      }
    },
  };
}

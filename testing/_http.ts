/**
 * Private: the mock server behind a `fetch`-shaped handler, speaking Streamable HTTP in both
 * eras. Modern: one connection per POST, the mirrored headers checked, the modern statuses.
 * Legacy: a connection per `Mcp-Session-Id`, the client's answers POSTed back, a GET stream for
 * what belongs to no request, DELETE. A request is answered as JSON when its answer comes
 * first, else as an event stream carrying what comes before it.
 *
 * @module
 */

import type { JsonObject, JsonRpcId, JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { META_PROTOCOL_VERSION } from "../protocol/meta.ts";
import { type Conn, type Core, objectOr } from "./_core.ts";
import { openConnection } from "./_connection.ts";

const encoder = new TextEncoder();

/** Options of the HTTP handler. */
export interface HttpOptions {
  /** Require `Authorization: Bearer <bearer>` (401 with a challenge otherwise). */
  bearer?: string;
}

interface Reply {
  push(message: JsonRpcMessage): void;
  response: Promise<Response>;
}

function statusOf(message: JsonRpcMessage, modern: boolean): number {
  if (!modern || !("error" in message)) return 200;
  const { code, message: text } = message.error;
  if (code === -32601) return 404;
  if (code === -32020 || code === -32021 || code === -32022) return 400;
  return code === -32602 && text.startsWith("Missing required _meta") ? 400 : 200;
}

/** A reply to request `id`: JSON if its answer comes first, else an event stream. */
function reply(
  id: JsonRpcId,
  modern: boolean,
  headers: HeadersInit,
  onCancel: () => void,
  onEnd: () => void,
): Reply {
  let resolve!: (response: Response) => void;
  const response = new Promise<Response>((r) => (resolve = r));
  let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return {
    response,
    push(message) {
      if (ended) return;
      const final = !("method" in message) && "id" in message && message.id === id;
      if (stream === undefined && final) {
        resolve(Response.json(message, { status: statusOf(message, modern), headers }));
        return end();
      }
      if (stream === undefined) {
        const body = new ReadableStream<Uint8Array>({
          start: (c) => void (stream = c),
          cancel: () => {
            end();
            onCancel();
          },
        });
        const sse = { "content-type": "text/event-stream", "cache-control": "no-cache" };
        resolve(
          new Response(body, { headers: { ...sse, ...Object.fromEntries(new Headers(headers)) } }),
        );
      }
      try {
        stream!.enqueue(encoder.encode(`data: ${JSON.stringify(message)}\n\n`));
        if (final) {
          stream!.close();
          end();
        }
      } catch {
        end();
      }
    },
  };
}

function rpcError(code: number, message: string, status: number): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

interface Session {
  conn: Conn;
  replies: Map<JsonRpcId, Reply>;
  standalone?: ReadableStreamDefaultController<Uint8Array>;
}

const NAME_PARAM: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

function headerProblem(
  request: Request,
  message: JsonObject,
  version: unknown,
): string | undefined {
  if (request.headers.get("mcp-protocol-version") !== version) {
    return "MCP-Protocol-Version does not match _meta";
  }
  if (request.headers.get("mcp-method") !== message.method) {
    return "Mcp-Method does not match the body";
  }
  const key = NAME_PARAM[String(message.method)];
  if (key !== undefined && request.headers.get("mcp-name") === null) return "Mcp-Name is missing";
  return undefined;
}

/** The `fetch`-shaped handler of `core`. */
export function httpHandler(
  core: Core,
  options: HttpOptions = {},
): (request: Request) => Promise<Response> {
  const sessions = new Map<string, Session>();
  let count = 0;

  const openSession = (id: string): Session => {
    const session: Session = { replies: new Map(), conn: undefined! };
    session.conn = openConnection(core, {
      send(message, related) {
        const target = related === undefined ? undefined : session.replies.get(related);
        if (target) target.push(message);
        else session.standalone?.enqueue(encoder.encode(`data: ${JSON.stringify(message)}\n\n`));
      },
      close() {
        sessions.delete(id);
      },
    }, "http");
    sessions.set(id, session);
    return session;
  };

  const post = async (request: Request, headers: Record<string, string>): Promise<Response> => {
    let message: JsonObject | undefined;
    try {
      message = objectOr(await request.json());
    } catch {
      message = undefined;
    }
    if (!message || message.jsonrpc !== "2.0") return rpcError(-32700, "Parse error", 400);
    const rpc = message as unknown as JsonRpcMessage;
    const hasId = "id" in message && message.id !== null && message.id !== undefined;
    const id = message.id as JsonRpcId;
    const version = objectOr(objectOr(message.params)?._meta)?.[META_PROTOCOL_VERSION];
    const eras = core.def.eras ?? "both";
    const modern = eras === "modern" || (eras === "both" && typeof version === "string");
    if (modern && typeof message.method === "string") {
      // (Without a _meta version the connection answers -32602, with status 400.)
      const problem = version === undefined ? undefined : headerProblem(request, message, version);
      if (problem) return rpcError(-32020, `Header mismatch: ${problem}`, 400);
      const slot: { target?: Reply } = {};
      const conn = openConnection(core, { send: (m) => slot.target?.push(m), close() {} }, "http");
      if (!hasId) {
        conn.receive(rpc, headers);
        conn.close();
        return new Response(null, { status: 202 });
      }
      const target = slot.target = reply(id, true, {}, () => conn.close(), () => conn.close());
      conn.receive(rpc, headers);
      return target.response;
    }
    if (message.method === "initialize" && hasId) {
      const sessionId = `mock-session-${++count}`;
      const session = openSession(sessionId);
      const answer = reply(
        id,
        false,
        { "mcp-session-id": sessionId },
        () => {},
        () => session.replies.delete(id),
      );
      session.replies.set(id, answer);
      session.conn.receive(rpc, headers);
      return answer.response;
    }
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) return rpcError(-32000, "Bad Request: no session id", 400);
    const session = sessions.get(sessionId);
    if (!session) return rpcError(-32001, "Session not found", 404);
    if (!hasId || !("method" in message)) {
      session.conn.receive(rpc, headers);
      return new Response(null, { status: 202 });
    }
    const answer = reply(id, false, {}, () => {}, () => session.replies.delete(id));
    session.replies.set(id, answer);
    session.conn.receive(rpc, headers);
    return answer.response;
  };

  return async (request) => {
    if (
      options.bearer !== undefined &&
      request.headers.get("authorization") !== `Bearer ${options.bearer}`
    ) {
      return new Response("unauthorized", {
        status: 401,
        headers: { "www-authenticate": 'Bearer realm="mock"' },
      });
    }
    const headers = Object.fromEntries([...request.headers].map(([k, v]) => [k.toLowerCase(), v]));
    if (request.method === "POST") return await post(request, headers);
    const session = sessions.get(request.headers.get("mcp-session-id") ?? "");
    if (request.method === "GET" && session && !session.standalone) {
      const body = new ReadableStream<Uint8Array>({
        start: (c) => void (session.standalone = c),
        cancel: () => void (session.standalone = undefined),
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    if (request.method === "DELETE" && session) {
      session.conn.close();
      sessions.delete(request.headers.get("mcp-session-id")!);
      return new Response(null, { status: 200 });
    }
    if (request.method === "GET" && session) {
      return new Response("a GET stream is open", { status: 409 });
    }
    return new Response("method not allowed", { status: 405 });
  };
}

/**
 * Private: one outgoing request as the OAuth middleware sees it, ready to be sent again
 * with other credentials, and the operation it belongs to (step-ups are counted per
 * operation).
 *
 * @module
 */

import type { FetchLike } from "./_util.ts";

/** A request the middleware can send (again), with headers decorated per attempt. */
export interface Prepared {
  url: URL;
  method: string;
  signal?: AbortSignal;
  /** Whether the request can be sent again (its body can be re-read). */
  replayable: boolean;
  /** The MCP method and name (`tools/call echo`), else the HTTP method and URL. */
  operation: string;
  send(next: FetchLike, decorate: (headers: Headers) => Promise<void>): Promise<Response>;
}

/**
 * Reads a `fetch` call's arguments once. Bodies that can be sent again (strings, bytes,
 * forms, blobs; `Request`s are cloned) make the request replayable; a stream body is not.
 */
export function prepare(input: Request | URL | string, init: RequestInit | undefined): Prepared {
  if (input instanceof Request) {
    const base = init === undefined ? input : new Request(input, init);
    return {
      url: new URL(base.url),
      method: base.method,
      signal: base.signal,
      replayable: true,
      operation: operationOf(base.headers, undefined, base.method, base.url),
      async send(next, decorate) {
        const headers = new Headers(base.headers);
        await decorate(headers);
        return next(new Request(base.clone(), { headers }));
      },
    };
  }
  const url = new URL(String(input));
  const method = (init?.method ?? "GET").toUpperCase();
  const body = init?.body;
  const replayable = body === undefined || body === null || typeof body === "string" ||
    body instanceof URLSearchParams || body instanceof ArrayBuffer || ArrayBuffer.isView(body) ||
    (typeof Blob !== "undefined" && body instanceof Blob);
  const headersInit = init?.headers;
  return {
    url,
    method,
    signal: init?.signal ?? undefined,
    replayable,
    operation: operationOf(
      new Headers(headersInit),
      typeof body === "string" ? body : undefined,
      method,
      url.href,
    ),
    async send(next, decorate) {
      const headers = new Headers(headersInit);
      await decorate(headers);
      return next(input, { ...init, headers });
    },
  };
}

/** Step-ups are counted per operation: the MCP method and name, else the HTTP method and URL. */
function operationOf(
  headers: Headers,
  body: string | undefined,
  method: string,
  url: string,
): string {
  const mcpMethod = headers.get("mcp-method");
  if (mcpMethod !== null) return `${mcpMethod} ${headers.get("mcp-name") ?? ""}`;
  if (body !== undefined) {
    try {
      const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } };
      if (typeof message.method === "string") {
        return `${message.method} ${
          typeof message.params?.name === "string" ? message.params.name : ""
        }`;
      }
    } catch {
      // not JSON-RPC
    }
  }
  return `${method} ${url}`;
}

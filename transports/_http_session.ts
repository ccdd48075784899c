/**
 * Private: telling a lost legacy session from an ordinary error status. The spec answers an
 * unknown `Mcp-Session-Id` with 404, but real servers (the official SDKs, and servers built
 * on them such as `@modelcontextprotocol/server-everything` after a restart) answer 400 with
 * a JSON-RPC error such as `-32000 "Bad Request: No valid session ID provided"`, a plain
 * text body, or `-32001 "Session not found"`. Only an answer to a request that carried a
 * session id is read this way: a 400 to a request without one is an ordinary bad request.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";

/** Words by which a 400 says the session is unknown, missing, or was never initialized. */
const LOST_WORDS = /session|not initiali[sz]ed/i;

/** The JSON-RPC code servers use for an unknown session (`Session not found`). */
const SESSION_NOT_FOUND = -32001;

/** JSON-RPC codes a 400 about the session comes with (server error, invalid request). */
const SESSION_CODES = new Set([-32000, -32600]);

/**
 * Whether an error status answering a request that carried a session id says the session
 * is gone: a 404; a 4xx with JSON-RPC error `-32001`; or a 400 whose JSON-RPC error
 * (`-32000` or `-32600`) or plain-text body speaks of the session (or of a server that was
 * not initialized). A 400 with any other JSON-RPC error (`-32602` invalid params, a
 * protocol version refused…) is not, nor is any other status.
 *
 * @param status The HTTP status.
 * @param body The body as text (possibly cut short, or empty).
 * @returns Whether the session is lost.
 *
 * @example
 * ```ts ignore
 * isSessionLoss(400, '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,' +
 *   '"message":"Bad Request: No valid session ID provided"}}'); // true
 * isSessionLoss(400, '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad uri"}}'); // false
 * ```
 */
export function isSessionLoss(status: number, body: string): boolean {
  if (status === 404) return true;
  if (status < 400 || status > 499 || status === 401 || status === 403) return false;
  const error = rpcErrorOf(body);
  if (error !== undefined) {
    if (error.code === SESSION_NOT_FOUND) return true;
    return status === 400 && SESSION_CODES.has(error.code) && LOST_WORDS.test(error.message);
  }
  return status === 400 && LOST_WORDS.test(body);
}

/** The `error` member of a JSON-RPC error body, or `undefined` when `body` is not one. */
function rpcErrorOf(body: string): { code: number; message: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = (value as { error?: unknown } | null)?.error as
    | { code?: unknown; message?: unknown }
    | undefined;
  if (typeof error !== "object" || error === null || !Number.isInteger(error.code)) {
    return undefined;
  }
  return {
    code: error.code as number,
    message: typeof error.message === "string" ? error.message : "",
  };
}

/**
 * The error of a request that found its legacy session lost: kind `transport`, reason
 * `session_expired` (the client starts a new session and sends the request again once).
 *
 * @param status The HTTP status that said so, when one did.
 * @returns The error.
 */
export function sessionExpiredError(status?: number): McpError {
  return new McpError(
    `The server's session expired${status === undefined ? "" : ` (HTTP ${status})`}; ` +
      "initialize again",
    {
      kind: "transport",
      reason: "session_expired",
      data: status === undefined ? undefined : { status },
    },
  );
}

/**
 * Private: what a Streamable HTTP link makes of the answer to one POST: a new session id, an
 * auth or status error, a lost session, a JSON-RPC error body, a JSON response, an event
 * stream, or nothing.
 *
 * @module
 */

import { McpError, serverErrorReason } from "../protocol/errors.ts";
import { isNotification, isRequest, type JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { discard, isRetryableStatus, mediaType, statusError } from "./_http.ts";
import { readBoundedAnswer } from "./_long_body.ts";
import { authError } from "./_http_auth_error.ts";
import { SESSION_HEADER } from "./_http_request.ts";
import { decodeOrThrow, describe, parseErrorBody, readErrorText } from "./_http_response.ts";
import { isSessionLoss } from "./_http_session.ts";
import { readPostStream, type StreamContext } from "./_http_streams.ts";

/** The link's side of a POST's answer: its streams, and the session and handshake news. */
export interface PostContext extends StreamContext {
  /** A legacy `initialize` succeeded: its session id (if valid), and the session is back. */
  sessionStarted(id: string | undefined): void;
  /** The legacy `notifications/initialized` was accepted. */
  initializedSent(): void;
}

/** Handles the server's answer to the POST of `message` (`carried`: the session it sent). */
export async function onPostResponse(
  context: PostContext,
  message: JsonRpcMessage,
  modern: boolean,
  response: Response,
  carried: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  const { config, deliver, deliverResponse, sessionExpired, warn } = context;
  const request = isRequest(message) ? message : undefined;
  const what = describe(message);
  const status = response.status;
  if (!modern && request?.method === "initialize" && response.ok) {
    const id = response.headers.get(SESSION_HEADER);
    const valid = id !== null && /^[\x21-\x7e]+$/.test(id);
    if (id !== null && !valid) warn("Ignored a session id that is not visible ASCII");
    context.sessionStarted(valid ? id : undefined);
  }
  if (status === 401 || status === 403) {
    discard(response);
    throw authError(response, what);
  }
  if (status === 404 && carried !== undefined) {
    discard(response);
    throw sessionExpired(carried);
  }
  if (isRetryableStatus(status)) {
    discard(response);
    throw statusError(response, what);
  }
  if (!response.ok) {
    const text = await readErrorText(response);
    // Real servers answer a session they no longer know with 400 (or -32001), not 404.
    if (carried !== undefined && isSessionLoss(status, text)) {
      throw sessionExpired(carried, status);
    }
    const rpcError = parseErrorBody(text, status);
    if (rpcError === undefined) throw statusError(response, what);
    if (request !== undefined) {
      deliver({ ...rpcError, id: rpcError.id ?? request.id });
      return;
    }
    throw new McpError(`The server rejected ${what}: ${rpcError.error.message}`, {
      kind: "server",
      reason: serverErrorReason(rpcError.error.code),
      code: rpcError.error.code,
      data: rpcError.error.data,
    });
  }
  if (request === undefined) {
    discard(response);
    if (!modern && isNotification(message) && message.method === "notifications/initialized") {
      context.initializedSent();
    }
    return;
  }
  const type = mediaType(response.headers.get("content-type"));
  if (type === "text/event-stream" && response.body !== null) {
    await readPostStream(context, { request, what, legacy: !modern, response, signal });
    return;
  }
  if (type === "application/json") {
    const text = await readBoundedAnswer(response, config.maxResponseBytes);
    if (text === "") {
      throw new McpError(`The server answered ${what} with an empty body`, {
        kind: "protocol",
        reason: "malformed_body",
      });
    }
    deliverResponse(request, decodeOrThrow(text, what), what);
    return;
  }
  discard(response);
  if (status === 202 || status === 204 || response.body === null) {
    throw new McpError(`The server accepted ${what} (HTTP ${status}) but sent no response`, {
      kind: "protocol",
      reason: "no_response",
    });
  }
  throw new McpError(
    `The server answered ${what} with Content-Type ${
      JSON.stringify(type || "(none)")
    }, not JSON or an event stream`,
    { kind: "protocol", reason: "unexpected_content_type" },
  );
}

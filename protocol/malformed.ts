/**
 * Private: the one error for an answer that is not a JSON-RPC message, whatever carried it
 * (an HTTP body or event, a stdio line, an in-process message).
 *
 * @module
 */

import { McpError } from "./errors.ts";
import type { DecodeFailure } from "./jsonrpc.ts";

/** Why an answer was refused: the decoder's reason and description (and a size limit). */
export interface AnswerFailure {
  /** The decoder's reason, or `too_large` for an answer over the transport's limit. */
  reason: DecodeFailure;
  /** What was wrong, for the message. */
  detail: string;
  /** For `too_large`: the limit, in bytes. */
  limit?: number;
}

/**
 * The error of a request whose answer is not a JSON-RPC message: kind `protocol`, reason
 * `malformed_body`, `data.reason` the decoder's reason. An answer over the transport's size
 * limit (`too_large`) is reason `response_too_large` with `data.limit`, as over HTTP.
 *
 * @param what The request, e.g. `the "tools/call" request`.
 * @param failure Why the answer was refused.
 * @param text The answer's text, when known (the message shows its first 60 characters).
 * @returns The error.
 */
export function malformedAnswer(what: string, failure: AnswerFailure, text?: string): McpError {
  if (failure.reason === "too_large") {
    return new McpError(`The server's answer to ${what} is too large (${failure.detail})`, {
      kind: "protocol",
      reason: "response_too_large",
      data: failure.limit === undefined ? {} : { limit: failure.limit },
    });
  }
  const preview = text === undefined
    ? ""
    : `: ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}`;
  return new McpError(
    `The server's answer to ${what} is not a JSON-RPC message (${failure.detail})${preview}`,
    { kind: "protocol", reason: "malformed_body", data: { reason: failure.reason } },
  );
}

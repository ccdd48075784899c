/**
 * Private: the one error for an answer that is not a JSON-RPC message, whatever carried it
 * (an HTTP body or event, a stdio line, an in-process message).
 *
 * @module
 */

import { McpError } from "./errors.ts";
import type { DecodeFailure } from "./jsonrpc.ts";

/**
 * The error of a request whose answer is not a JSON-RPC message: kind `protocol`, reason
 * `malformed_body`, `data.reason` the decoder's reason.
 *
 * @param what The request, e.g. `the "tools/call" request`.
 * @param failure Why the decoder refused the answer.
 * @param text The answer's text, when known (the message shows its first 60 characters).
 * @returns The error.
 */
export function malformedAnswer(
  what: string,
  failure: { reason: DecodeFailure; detail: string },
  text?: string,
): McpError {
  const preview = text === undefined
    ? ""
    : `: ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}`;
  return new McpError(
    `The server's answer to ${what} is not a JSON-RPC message (${failure.detail})${preview}`,
    { kind: "protocol", reason: "malformed_body", data: { reason: failure.reason } },
  );
}

/**
 * Private: the stable `reason` of an `McpError` for a JSON-RPC error the server returned,
 * derived from its code (protocol.md §1.6). Pure.
 *
 * @module
 */

/** The codes that mean something, and their reasons. */
const REASONS: ReadonlyMap<number, string> = new Map([
  [-32700, "parse_error"],
  [-32600, "invalid_request"],
  [-32601, "method_not_found"],
  [-32602, "invalid_params"],
  [-32603, "internal_error"],
  // -32000..-32019 are implementation codes with no meaning, except this one from
  // earlier servers.
  [-32002, "resource_not_found"],
  [-32020, "header_mismatch"],
  [-32021, "missing_required_client_capability"],
  [-32022, "unsupported_protocol_version"],
  // 2025-11-25 only.
  [-32042, "url_elicitation_required"],
]);

/**
 * The reason for a server's JSON-RPC error code: its snake_case name for a code the
 * protocol defines, else `server_error`.
 *
 * @param code The error's `code` (anything: servers send what they like).
 * @returns A stable snake_case reason.
 *
 * @example
 * ```ts
 * import { serverErrorReason } from "./error_reason.ts";
 *
 * if (serverErrorReason(-32601) !== "method_not_found") throw new Error();
 * if (serverErrorReason(-32001) !== "server_error") throw new Error();
 * ```
 */
export function serverErrorReason(code: unknown): string {
  return (typeof code === "number" ? REASONS.get(code) : undefined) ?? "server_error";
}

/**
 * A server error's message with its code after it, unless the message already names the
 * code (servers built on the official SDKs write `MCP error -32602: …`): the code is said
 * once.
 *
 * @param text The error's `message`.
 * @param code The error's `code`, when it has one.
 * @returns The text for the client's error message.
 *
 * @example
 * ```ts
 * import { withErrorCode } from "./error_reason.ts";
 *
 * if (withErrorCode("Invalid arguments", -32602) !== "Invalid arguments (-32602)") throw new Error();
 * if (withErrorCode("MCP error -32602: Invalid arguments", -32602) !== "MCP error -32602: Invalid arguments") {
 *   throw new Error();
 * }
 * ```
 */
export function withErrorCode(text: string, code: unknown): string {
  if (code === undefined || code === null) return text;
  const named = String(code);
  const at = text.indexOf(named);
  // The code as a number of its own in the text (not a part of a longer one).
  const alone = at >= 0 && !/\d/.test(text[at + named.length] ?? "") &&
    !/[\d-]/.test(text[at - 1] ?? "");
  return alone ? text : `${text} (${named})`;
}

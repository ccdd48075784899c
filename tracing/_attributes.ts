/**
 * Private: the attributes of the client's spans and metrics, named as the OpenTelemetry
 * semantic conventions for MCP name them (`mcp.method.name`, `gen_ai.tool.name`,
 * `jsonrpc.request.id`, `mcp.protocol.version`, `error.type`, `network.transport`,
 * `server.address`, …); what they do not name is under `conduit.`. Every string passes the
 * transport's redaction, so no credential it knows reaches a span.
 *
 * @module
 */

import { isMcpError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/jsonrpc.ts";
import type { Secrets } from "../protocol/secrets.ts";
import type { TraceAttributes } from "./types.ts";

/** The longest string attribute or status message recorded (longer ones are clipped). */
const MAX_TEXT = 1024;

function nameOf(params: JsonObject | undefined): string | undefined {
  const name = params?.name;
  return typeof name === "string" ? name : undefined;
}

/**
 * The span name: `{mcp.method.name} {target}`, the target being the tool or prompt name.
 *
 * @param method The method.
 * @param params Its params.
 * @returns The name.
 */
export function spanName(method: string, params: JsonObject | undefined): string {
  if (method !== "tools/call" && method !== "prompts/get") return method;
  const name = nameOf(params);
  return name === undefined ? method : `${method} ${name}`;
}

/**
 * The attributes a request's span starts with (no argument values unless `recordArguments`).
 *
 * @param method The method.
 * @param params Its params.
 * @param recordArguments Record the tool call's arguments.
 * @returns The attributes.
 */
export function requestAttributes(
  method: string,
  params: JsonObject | undefined,
  recordArguments: boolean,
): TraceAttributes {
  const attributes: TraceAttributes = { "mcp.method.name": method };
  if (method === "tools/call") {
    attributes["gen_ai.operation.name"] = "execute_tool";
    attributes["gen_ai.tool.name"] = nameOf(params);
    if (recordArguments && params?.arguments !== undefined) {
      attributes["gen_ai.tool.call.arguments"] = json(params.arguments);
    }
  } else if (method === "prompts/get") {
    attributes["gen_ai.prompt.name"] = nameOf(params);
  } else if (
    method === "resources/read" || method === "resources/subscribe" ||
    method === "resources/unsubscribe"
  ) {
    const uri = params?.uri;
    if (typeof uri === "string") attributes["mcp.resource.uri"] = uri;
  }
  return attributes;
}

/** A JSON text of `value`, clipped (or `undefined` when it has none). */
export function json(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : clip(text);
  } catch {
    return undefined;
  }
}

/** `text`, clipped to {@linkcode MAX_TEXT} characters. */
export function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}…`;
}

/**
 * `error.type` of a failed request: the JSON-RPC error code when the server answered with
 * one, else the client's stable reason (or kind), else `_OTHER`.
 *
 * @param error What the request failed with.
 * @returns The low-cardinality error type.
 */
export function errorType(error: unknown): string {
  if (isMcpError(error)) {
    if (error.code !== undefined) return String(error.code);
    return error.reason ?? error.kind;
  }
  if (error instanceof TypeError) return "TypeError";
  return "_OTHER";
}

/** The attributes of a failed request: `error.type`, the JSON-RPC code, the client's kind. */
export function errorAttributes(error: unknown): TraceAttributes {
  const attributes: TraceAttributes = { "error.type": errorType(error) };
  if (isMcpError(error)) {
    if (error.code !== undefined) attributes["rpc.response.status_code"] = String(error.code);
    attributes["conduit.error.kind"] = error.kind;
    if (error.reason !== undefined) attributes["conduit.error.reason"] = error.reason;
  }
  return attributes;
}

/**
 * What every span of a client's transport carries: `network.transport` (`pipe` for stdio,
 * `tcp` for HTTP), `network.protocol.name`, and `server.address` / `server.port` of an
 * HTTP server (the host only: never its path, query or user info).
 *
 * @param transport The client's transport.
 * @returns The attributes.
 */
export function transportAttributes(transport: { kind: string; url?: URL }): TraceAttributes {
  if (transport.kind === "stdio") return { "network.transport": "pipe" };
  if (transport.kind !== "http") return {};
  const attributes: TraceAttributes = {
    "network.transport": "tcp",
    "network.protocol.name": "http",
  };
  const url = transport.url;
  if (url instanceof URL) {
    attributes["server.address"] = url.hostname.replace(/^\[|\]$/g, "");
    attributes["server.port"] = url.port !== ""
      ? Number(url.port)
      : url.protocol === "https:"
      ? 443
      : 80;
  }
  return attributes;
}

/**
 * `attributes` with every credential the transport knows redacted, and clipped strings.
 *
 * @param attributes The attributes.
 * @param secrets The transport's credentials, if any.
 * @returns Clean attributes (the same object when nothing changed).
 */
export function cleanAttributes(
  attributes: TraceAttributes,
  secrets: Secrets | undefined,
): TraceAttributes {
  if (secrets === undefined || secrets.empty) return attributes;
  return secrets.value(attributes);
}

/** A status message for `error`: its message, redacted and clipped. */
export function statusMessage(error: unknown, secrets: Secrets | undefined): string {
  const text = error instanceof Error ? error.message : String(error);
  const clean = secrets === undefined || secrets.empty ? text : secrets.text(text);
  return clip(clean);
}

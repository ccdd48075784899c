/**
 * The transport contract: how the client reaches a server, whatever carries the bytes.
 *
 * A {@linkcode Transport} is a recipe; each {@linkcode Transport.open} makes one live
 * {@linkcode TransportLink} (one server process, one HTTP origin with its session), so the
 * client reconnects by opening again. Messages from the server go to the
 * {@linkcode TransportSink} given to `open`.
 *
 * @module
 */

import type { McpError } from "../protocol/errors.ts";
import type { DecodeFailure, JsonRpcMessage, JsonRpcRequest } from "../protocol/jsonrpc.ts";
import type { Era } from "../protocol/versions.ts";
import type { CacheTarget, CacheTargetWants } from "../cache/digest.ts";
import type { Containment } from "../sandbox/profile.ts";

export type { Containment };

/** Which kind of transport this is; the client's era rules depend on it. */
export type TransportKind = "stdio" | "http" | "in_process";

/** Where a link delivers what the server sends. */
export interface TransportSink {
  /** One decoded message from the server: a response, a notification or a request. */
  message(message: JsonRpcMessage): void;
  /**
   * The link ended without `close()` being called (the process exited, the stream broke).
   * Called at most once. Pending requests should fail with kind `transport`.
   */
  closed(error: McpError): void;
  /** A diagnostic worth a log line (a skipped garbage line, a dropped tool); never secret. */
  warn?(message: string): void;
  /**
   * A line a stdio server wrote on stdout that is not a JSON-RPC message (a stray
   * `console.log`), as written (the server's own text: print it only through a sanitiser);
   * it is skipped, with a `warn` too. For diagnostic views such as a CLI's `--verbose`.
   */
  skipped?(line: string): void;
  /**
   * An answer to the request `id` arrived in a shape that is not JSON-RPC (such as
   * `"result": "a string"`, or both `result` and `error`), or over the link's size limit
   * (reason `too_large`, with the `limit`): that request should fail at once (see
   * `malformedAnswer`). Links that cannot tell the request (HTTP fails its send) never call
   * it.
   */
  malformed?(
    id: string | number,
    failure: { reason: DecodeFailure; detail: string; limit?: number },
  ): void;
  /**
   * The longest wait a server may ask of the link, in milliseconds: an event stream's
   * `retry:` or a `Retry-After` longer than this is capped to it (the client passes its
   * `retry.maxRetryAfter`; default one minute).
   */
  maxRetryAfter?: number;
}

/** Per-message options for {@linkcode TransportLink.send}. */
export interface SendOptions {
  /**
   * Aborted when the request is cancelled or times out. HTTP aborts the fetch (which is
   * the modern cancellation); other transports may ignore it.
   */
  signal?: AbortSignal;
  /**
   * The request's own controller (its `signal` is the one above, when that is given). A
   * link may abort it itself, e.g. when the link closes, instead of linking a new signal to
   * it; the sender must not reuse it for another message.
   */
  controller?: AbortController;
}

/** The protocol the client settled on for a link. */
export interface LinkProtocol {
  /** `modern` or `legacy`. */
  era: Era;
  /** The negotiated version, e.g. `"2025-11-25"`. */
  version: string;
}

/**
 * The raw outcome of an HTTP `server/discover` probe, as `classifyProbe("http", …)` reads it,
 * with what the client needs to act on the verdict.
 */
export interface HttpProbeResult {
  /** The HTTP status. */
  status: number;
  /** The response's `Content-Type`, if any. */
  contentType: string | null;
  /** The response body (bounded in size). */
  body: Uint8Array;
  /** `Retry-After` in milliseconds, when the server sent one. */
  retryAfterMs?: number;
  /** The `WWW-Authenticate` challenge, when the server sent one. */
  challenge?: string;
}

/** One live connection to a server. */
export interface TransportLink {
  /**
   * Sends one message. For a request, the response arrives through the sink's `message`.
   * Rejects with an `McpError` when the message could not be delivered (HTTP status errors,
   * malformed bodies, a closed process), which fails that request alone.
   */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /**
   * Tells the link which protocol the client settled on (after `initialize` or a modern
   * verdict). A legacy HTTP link starts sending `MCP-Protocol-Version` and may open its
   * GET stream; other links may ignore it.
   */
  setProtocol(protocol: LinkProtocol): void;
  /**
   * HTTP only: POSTs a `server/discover` probe and returns the raw HTTP outcome instead of
   * delivering it to the sink.
   */
  probe?(request: JsonRpcRequest, options?: SendOptions): Promise<HttpProbeResult>;
  /** HTTP only: the legacy session id the server handed out (`Mcp-Session-Id`), if any. */
  sessionId?(): string | undefined;
  /**
   * What the link saw that may explain a server that does not answer (stdio: the lines on
   * stdout that are not JSON-RPC, the stderr tail), sanitised, redacted and cut short; or
   * `undefined` when there is nothing to say.
   */
  diagnose?(): string | undefined;
  /** Closes the link (ends the process, deletes the HTTP session). Idempotent. */
  close(): Promise<void>;
}

/** A way to reach a server: opening it makes a fresh {@linkcode TransportLink}. */
export interface Transport {
  /** Which kind of transport this is. */
  readonly kind: TransportKind;
  /**
   * How long one request may wait for an interactive login (OAuth), in milliseconds, when
   * the transport runs one; the client lets its era probe wait that long.
   */
  readonly authTimeout?: number;
  /** Opens a new link; rejects with an `McpError` (kind `transport`) when it cannot. */
  open(sink: TransportSink): Promise<TransportLink>;
  /**
   * Names the server and the credentials' identity for a shared cache, as digests
   * (`transports/cache_target.ts`); without it the client uses a process-local name.
   * `wants.endpoint === false`: the caller does not need `endpoint`, which may then be left
   * out (its digest not made).
   */
  cacheTarget?(wants?: CacheTargetWants): Promise<CacheTarget>;
  /**
   * How the server process is contained (stdio): `"deno-permissions"`, `"bwrap"` or
   * `"none"`; `undefined` while not known yet. Absent for transports that start no process.
   */
  containment?(): Containment | undefined;
}

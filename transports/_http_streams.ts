/**
 * Private: the event streams of a Streamable HTTP link. A POST's stream carries the
 * request's notifications (and, in the legacy era, server requests) before its response;
 * the legacy GET stream carries what the server sends unprompted. A legacy stream that
 * ends early is resumed with a GET carrying `Last-Event-ID`, after the server's `retry:`.
 *
 * Every wait a server chooses (`retry:`, `Retry-After`) is bounded: at least
 * `MIN_STREAM_DELAY` (or the link's own `reconnectDelay`, when shorter) and at most
 * `maxRetryAfter` (the client's `retry.maxRetryAfter`; a longer one is capped to it). Streams
 * that bring no message back off, whether they failed or ended cleanly.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { JsonRpcMessage, JsonRpcRequest } from "../protocol/jsonrpc.ts";
import { isErrorResponse, isResult } from "../protocol/jsonrpc.ts";
import {
  abortError,
  discard,
  fetchSameOrigin,
  isRetryableStatus,
  mediaType,
  sleep,
  statusError,
} from "./_http.ts";
import { authError } from "./_http_auth_error.ts";
import type { LinkConfig, RequestHeaders } from "./_http_request.ts";
import type { LongAnswer } from "./_long_body.ts";
import { readErrorText } from "./_http_response.ts";
import { isSessionLoss } from "./_http_session.ts";
import { SseReader } from "./_sse.ts";
import { DEFAULT_MAX_RETRY_AFTER, MIN_STREAM_DELAY, serverDelay } from "../clock/timer.ts";

/** What the stream readers need from their link. */
export interface StreamContext {
  config: LinkConfig;
  /** Hands a message from the server to the sink. */
  deliver(message: JsonRpcMessage): void;
  /** Hands the response to `request` to the sink, or throws when it is not one. */
  deliverResponse(request: JsonRpcRequest, message: JsonRpcMessage, what: string): void;
  warn(text: string): void;
  /** Legacy GET headers (session, version, credentials, `Last-Event-ID`). */
  headersFor(lastEventId?: string): Promise<RequestHeaders>;
  /** Forgets the session `carried` and returns the `session_expired` error (`status`: 404). */
  sessionExpired(carried: string, status?: number): McpError;
  /** Decodes one event's data as a JSON-RPC message, or throws a `protocol` error. */
  decode(text: string | LongAnswer, what: string): JsonRpcMessage;
  /** The longest wait a server may ask for, in ms (default `DEFAULT_MAX_RETRY_AFTER`). */
  maxRetryAfter?: number;
}

/** The longest backoff between reconnects of a stream that brings nothing. */
const MAX_STREAM_BACKOFF = 30_000;

/** How a link's streams bound the waits a server asks for. */
interface Waits {
  /** A server's wait (`retry:` or `Retry-After`), bounded; `undefined` gives the default. */
  bound(ms: number | undefined): number;
  /** The wait after `quiet` reconnects in a row that brought no message. */
  backoff(base: number, quiet: number): number;
}

function waits(context: StreamContext): Waits {
  const { reconnectDelay } = context.config;
  const floor = Math.min(MIN_STREAM_DELAY, reconnectDelay);
  const ceiling = context.maxRetryAfter ?? DEFAULT_MAX_RETRY_AFTER;
  return {
    bound: (ms) => ms === undefined ? reconnectDelay : serverDelay(ms, floor, ceiling),
    backoff: (base, quiet) =>
      quiet <= 0 ? base : Math.max(base, Math.min(MAX_STREAM_BACKOFF, base * 2 ** (quiet - 1))),
  };
}

/** The POST whose event stream {@linkcode readPostStream} reads. */
export interface PostStream {
  request: JsonRpcRequest;
  what: string;
  legacy: boolean;
  response: Response;
  signal: AbortSignal;
}

function streamEnded(what: string, cause?: unknown): McpError {
  return new McpError(`The server's stream for ${what} ended before the response`, {
    kind: "transport",
    reason: "stream_ended",
    cause,
  });
}

/** GETs the endpoint for an event stream (resuming after `lastEventId` when given). */
async function getStream(
  context: StreamContext,
  lastEventId: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  const { headers, session } = await context.headersFor(lastEventId);
  const response = await fetchSameOrigin({
    fetch: context.config.fetch,
    url: context.config.url,
    method: "GET",
    headers,
    signal,
    maxRedirects: context.config.maxRedirects,
  });
  if (response.status === 401 || response.status === 403) {
    discard(response);
    throw authError(response, "the event stream request");
  }
  if (response.status === 404 && session !== undefined) {
    discard(response);
    throw context.sessionExpired(session);
  }
  if (response.status === 405) {
    discard(response);
    throw new McpError("The server offers no GET event stream (HTTP 405)", {
      kind: "transport",
      reason: "no_get_stream",
    });
  }
  if (
    session !== undefined && !response.ok && !isRetryableStatus(response.status) &&
    isSessionLoss(response.status, await readErrorText(response))
  ) {
    throw context.sessionExpired(session, response.status);
  }
  if (!response.ok) {
    discard(response);
    throw statusError(response, "the event stream request");
  }
  if (mediaType(response.headers.get("content-type")) !== "text/event-stream" || !response.body) {
    discard(response);
    throw new McpError("The server answered the event stream request without an event stream", {
      kind: "protocol",
      reason: "unexpected_content_type",
    });
  }
  return response;
}

/**
 * Reads a POST's event stream until the response to its request, delivering everything
 * before it. Legacy streams that end early are resumed by GET with `Last-Event-ID`.
 */
export async function readPostStream(context: StreamContext, post: PostStream): Promise<void> {
  const { request, what, signal } = post;
  const { maxEventBytes, maxReconnects } = context.config;
  const wait = waits(context);
  let stream = new SseReader(post.response.body!, maxEventBytes);
  let lastEventId: string | undefined;
  let retry: number | undefined;
  let idle = 0;
  while (true) {
    let progressed = false;
    let broken: unknown;
    try {
      for (let event; (event = await stream.next()) !== undefined;) {
        progressed = true;
        if (event.data === "") continue;
        const message = context.decode(event.data, what);
        if (isResult(message) || isErrorResponse(message)) {
          // The same check as a JSON answer: the response to another request fails this one.
          context.deliverResponse(request, message, what);
          return;
        }
        context.deliver(message);
      }
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      if (error instanceof McpError) throw error;
      broken = error;
    } finally {
      stream.close();
    }
    lastEventId = resumePoint(stream, lastEventId);
    retry = stream.retry ?? retry;
    if (!post.legacy || lastEventId === undefined) throw streamEnded(what, broken);
    idle = progressed ? 0 : idle + 1;
    if (idle > maxReconnects) throw streamEnded(what, broken);
    await sleep(wait.backoff(wait.bound(retry), idle), signal);
    let resumed: Response;
    try {
      resumed = await getStream(context, lastEventId, signal);
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      if (error instanceof McpError && error.reason === "no_get_stream") {
        throw streamEnded(what, error);
      }
      throw error;
    }
    stream = new SseReader(resumed.body!, maxEventBytes);
  }
}

/** Where a stream resumes after `stream`: its last id, kept from before, or reset by `id:`. */
function resumePoint(stream: SseReader, before: string | undefined): string | undefined {
  const id = stream.lastEventId ?? before;
  return id === "" ? undefined : id;
}

/**
 * Runs the legacy GET stream until `signal` aborts: delivers every event, reconnects after
 * a graceful close (honouring `retry:`, sending `Last-Event-ID`), backs off on failures and
 * on streams that bring no message, and stops for good on 405, 401/403, an expired session,
 * or more than `maxReconnects` attempts in a row that failed or ended without any event.
 * The first error of such a run warns once (a clean end, quietly, only counts); the stop
 * warns again.
 */
export async function openGetStream(context: StreamContext, signal: AbortSignal): Promise<void> {
  const { maxEventBytes, maxReconnects } = context.config;
  const wait = waits(context);
  let lastEventId: string | undefined;
  let retry: number | undefined;
  let failures = 0; // attempts in a row that failed or ended without any event
  let quiet = 0; // attempts in a row that delivered no message
  let warned = false; // warned since the last message
  /** Counts a failed attempt (`loud`: an error, which warns once a run); false: stop. */
  const failed = (text: string, loud: boolean) => {
    failures++;
    if (failures > maxReconnects) {
      context.warn(`The GET event stream stopped after ${failures} attempts: ${text}`);
      return false;
    }
    if (loud && !warned) {
      warned = true;
      context.warn(`The GET event stream failed (${text}); reconnecting`);
    }
    return true;
  };
  while (!signal.aborted) {
    let delay: number;
    quiet++;
    try {
      const response = await getStream(context, lastEventId, signal);
      const stream = new SseReader(response.body!, maxEventBytes);
      let events = 0;
      try {
        for (let event; (event = await stream.next()) !== undefined;) {
          events++;
          failures = 0;
          if (event.data === "") continue;
          let message: JsonRpcMessage;
          try {
            message = context.decode(event.data, "the event stream");
          } catch (error) {
            context.warn(`Skipped an event on the GET stream: ${(error as Error).message}`);
            continue;
          }
          if (isResult(message) || isErrorResponse(message)) {
            // Each response comes on its request's own POST (or that stream's resumption).
            context.warn("Skipped a response on the GET stream: it answers no request made there");
            continue;
          }
          quiet = 0;
          warned = false; // the stream works again: a new run of failures warns anew
          context.deliver(message);
        }
      } finally {
        stream.close();
        lastEventId = resumePoint(stream, lastEventId);
        retry = stream.retry ?? retry;
      }
      if (signal.aborted) return;
      // A clean end that carried no event at all counts as a failure.
      if (events === 0 && !failed("the server ended it without any event", false)) return;
      delay = wait.backoff(wait.bound(retry), quiet);
    } catch (error) {
      const reason = error instanceof McpError ? error.reason : undefined;
      if (reason === "session_expired") {
        // (Forgetting the session also aborted this stream's signal.)
        context.warn(`The GET event stream stopped: ${(error as McpError).message}`);
        return;
      }
      if (signal.aborted || reason === "no_get_stream") return;
      if (
        error instanceof McpError &&
        (error.kind === "auth" ||
          (reason === "http_status" && !isRetryableStatus(statusOf(error))))
      ) {
        context.warn(`The GET event stream stopped: ${error.message}`);
        return;
      }
      if (!failed(String(error), true)) return;
      const after = retryAfterOf(error);
      delay = after === undefined ? wait.backoff(wait.bound(retry), quiet) : wait.bound(after);
    }
    try {
      await sleep(delay, signal);
    } catch {
      return;
    }
  }
}

function statusOf(error: McpError): number {
  const status = (error.data as { status?: unknown } | undefined)?.status;
  return typeof status === "number" ? status : 0;
}

function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof McpError)) return undefined;
  const after = (error.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof after === "number" ? after : undefined;
}

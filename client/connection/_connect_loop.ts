/**
 * Private: how a connection gets ready. It opens a link with its session, negotiates on it,
 * and after a transport failure connects again with backoff, until it gives up into
 * `closed`; the first modern handshake pins the modern era. A handshake does not reset the
 * attempts: only a link that stayed ready for `STABLE_CONNECTION` ms does, so a server that
 * dies right after each handshake is given up on per `reconnect.attempts`.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import { isRequest, type JsonObject } from "../../protocol/jsonrpc.ts";
import type { Era } from "../../protocol/versions.ts";
import { DEFAULT_MAX_RETRY_AFTER } from "../../clock/timer.ts";
import { backoffDelay, delay } from "../_async.ts";
import { type ConnectionState, gaveUpError, lastAttemptError } from "./_state.ts";
import { connectionError, dropLink, negotiateContext, restoreLogLevel } from "./_steps.ts";
import { envelopeBuilder } from "./_envelope.ts";
import { retryable } from "./_retry.ts";
import type { LinkHandle, Negotiated } from "./_link.ts";
import { negotiate } from "./negotiate.ts";
import { createServerRequests } from "../handler/server_requests.ts";
import { createSession } from "./session.ts";

/** The connect loop of one connection. */
export interface Connector {
  /** Stops a running loop and starts connecting (after a backoff delay when `delayFirst`). */
  start(delayFirst: boolean): void;
  /** Drops the current link that cannot go on and reconnects (as after a transport failure). */
  abandon(handle: LinkHandle, error: McpError): void;
  /** Stops the loop and drops every link. */
  dropAll(error: McpError): Promise<void>;
}

/**
 * Creates the connect loop of a connection.
 *
 * @param s The connection.
 * @param release Sends the requests that waited for `handle` to be ready.
 * @returns The loop's controls.
 */
export function createConnector(
  s: ConnectionState,
  release: (handle: LinkHandle) => void,
): Connector {
  const { options, events, room } = s;
  // A server's Retry-After is honoured up to this; a longer one is capped to it.
  const maxRetryAfter = options.retry === false
    ? DEFAULT_MAX_RETRY_AFTER
    : options.retry.maxRetryAfter;

  const build = envelopeBuilder(options);
  const state = { era: "legacy" as Era, version: "", capabilities: {} as JsonObject };
  const prepare = (_method: string, params: JsonObject | undefined, progressToken?: number) => {
    const negotiated = s.negotiated;
    if (negotiated !== undefined) {
      state.era = negotiated.era;
      state.version = negotiated.version;
      state.capabilities = s.capabilities;
    }
    return build(negotiated && state, s.logLevel, params, progressToken);
  };

  const openLink = async (signal: AbortSignal): Promise<LinkHandle> => {
    // Filled in once the transport opened; the session only sends after that.
    const handle = {} as LinkHandle;
    const inbox = createServerRequests({
      options,
      protocol: () => s.negotiated,
      respond: (response) => session.respond(response),
      signal,
    });
    const session = createSession({
      send: (message, sendOptions) => {
        if (s.capture !== undefined && isRequest(message)) {
          s.takeCapture(message.method)?.onId(message.id);
        }
        return handle.link.send(message, sendOptions);
      },
      prepare,
      cancelByNotification: () =>
        s.negotiated?.era === "legacy" || options.transport.kind !== "http",
      onNotification: (notification) => {
        inbox.notification(notification);
        if (handle === s.current || s.attemptLinks.has(handle)) {
          events.notification(notification);
        }
      },
      onRequest: (request) => inbox.request(request),
    });
    handle.session = session;
    handle.link = await options.transport.open({
      message: (message) => session.handle(message),
      malformed: (id, failure) => session.malformed(id, failure),
      closed: (error) => linkClosed(handle, error),
      warn: options.warn,
      maxRetryAfter,
    });
    s.attemptLinks.add(handle);
    if (signal.aborted) {
      await dropLink(s, handle, new McpError("Connection attempt abandoned", { kind: "closed" }));
      throw signal.reason;
    }
    return handle;
  };

  const giveUp = (last: McpError) => {
    // Attempts made: the first connect's first attempt is not counted as a retry.
    const made = s.attempts + (s.negotiated === undefined ? 1 : 0);
    const error = lastAttemptError(last, made, Date.now() - s.startedAt);
    s.close(gaveUpError(error), error);
    room.rejectAll(error);
    room.settle(error);
    events.closed();
  };

  const becomeReady = (handle: LinkHandle, outcome: Negotiated) => {
    s.becomeReady(handle, outcome);
    handle.link.setProtocol({ era: outcome.era, version: outcome.version });
    restoreLogLevel(s, handle, outcome);
    room.settle();
    release(handle);
    events.ready?.({ era: outcome.era, renewed: false });
  };

  const connectOnce = async (signal: AbortSignal) => {
    let handle = await openLink(signal);
    try {
      const reopen = async () => {
        await dropLink(
          s,
          handle,
          new McpError("Reopening for the legacy era", { kind: "transport" }),
        );
        handle = await openLink(signal);
        return handle;
      };
      const [final, outcome] = await negotiate(
        negotiateContext(s, handle, reopen, s.negotiated?.era),
      );
      if (signal.aborted) throw signal.reason;
      return [final, outcome] as const;
    } catch (error) {
      await dropLink(s, handle, connectionError(error));
      throw error;
    }
  };

  const loop = async (signal: AbortSignal, delayFirst: boolean) => {
    for (let wait = delayFirst;; wait = true) {
      if (wait) {
        const max = options.reconnect === false ? 0 : options.reconnect.attempts;
        if (s.attempts >= max) return giveUp(s.lastError ?? connectionError(undefined));
        const attempt = s.countAttempt();
        const backoff = options.reconnect === false
          ? 0
          : backoffDelay(attempt, options.reconnect, options.random);
        const lastError = s.lastError;
        const retryAfter = lastError?.data && typeof lastError.data === "object"
          ? Number((lastError.data as JsonObject).retryAfterMs ?? 0)
          : 0;
        const pause = Math.max(backoff, Math.min(retryAfter || 0, maxRetryAfter));
        if (s.negotiated === undefined && lastError !== undefined) {
          // The first connect says each retry: a server that cannot start is not silent.
          const said = lastError.message.replace(/\s*\n\s*/g, " ");
          const line = said.length > 300 ? `${said.slice(0, 300)}…` : said;
          options.warn(
            `Connecting failed (attempt ${attempt}): ${line}; trying again in ${
              Math.round(pause)
            } ms`,
          );
        }
        try {
          await delay(pause, signal);
        } catch {
          return;
        }
      }
      // Traced: each attempt (the link and the handshake) is a span.
      if (options.trace?.loaded() !== undefined) await options.trace.loaded();
      const trace = options.trace?.span("mcp.client.connect", {
        "conduit.connect.attempt": s.attempts,
        "conduit.connect.reconnect": wait,
      });
      try {
        const [handle, outcome] = await (trace === undefined ? connectOnce(signal) : trace.run(() =>
          connectOnce(signal)
        ));
        if (trace !== undefined) {
          const sessionId = handle.link.sessionId?.();
          options.trace!.negotiated(
            { ...outcome, serverName: outcome.serverInfo?.name, sessionId },
            trace,
          );
          trace.end();
        }
        if (signal.aborted) return;
        return becomeReady(handle, outcome);
      } catch (error) {
        trace?.end(connectionError(error));
        if (signal.aborted) return;
        const failure = connectionError(error);
        s.attemptFailed(failure);
        if (!retryable(failure)) return giveUp(failure);
      }
    }
  };

  const start = (delayFirst: boolean) => {
    loop(s.newRun().signal, delayFirst).catch((error) => giveUp(connectionError(error)));
  };

  function linkClosed(handle: LinkHandle, error: McpError) {
    handle.session.failAll(error);
    if (!s.detach(handle, error) || s.state !== "ready") return;
    s.lose();
    start(true);
  }

  return {
    start,
    abandon(handle, error) {
      if (!s.detach(handle, error)) return;
      s.lose();
      void dropLink(s, handle, error);
      start(true);
    },
    async dropAll(error) {
      s.stopRun();
      const handles = [...s.attemptLinks, ...(s.current ? [s.current] : [])];
      await Promise.all(handles.map((handle) => dropLink(s, handle, error)));
    },
  };
}

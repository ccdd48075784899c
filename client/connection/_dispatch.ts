/**
 * Private: the way of a request through the connection. It is sent at once on the ready
 * link or waits in the queue until ready, within its timeout; a request answered with a
 * retryable HTTP status is retried as the `retry` option says, and one that found the
 * legacy session expired waits for a new session (started once for all such requests) and
 * goes again. A request that could not reach the server fails, and the connection goes to
 * `reconnecting` (so the requests after it queue until the server answers again).
 *
 * @module
 */

import { cancelledError, isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { backoffDelay, delay } from "../_async.ts";
import type { ConnectionState, Outgoing } from "./_state.ts";
import { negotiateContext, restoreLogLevel, sendOn } from "./_steps.ts";
import type { LinkHandle, Negotiated } from "./_link.ts";
import { renewLegacySession } from "./negotiate.ts";

/** The request path of one connection. */
export interface Dispatcher {
  /** Sends now when ready, else queues (again, for a retry) until ready. */
  dispatch(
    method: string,
    params: JsonObject | undefined,
    opts: Outgoing,
    startedAt: number,
  ): Promise<JsonObject>;
  /** Sends every queued request on `handle`, which just became ready. */
  release(handle: LinkHandle): void;
}

/**
 * Creates the request path of a connection.
 *
 * @param s The connection.
 * @param abandon Drops a link that cannot go on and reconnects.
 * @returns The request path.
 */
export function createDispatcher(
  s: ConnectionState,
  abandon: (handle: LinkHandle, error: McpError) => void,
): Dispatcher {
  const { options, room } = s;

  /** Milliseconds left of a request's timeout. */
  const budget = (opts: Outgoing, startedAt: number) =>
    Math.min(
      (opts.timeout ?? options.requestTimeout) - (Date.now() - startedAt),
      opts.maxTotalTimeout === undefined
        ? Infinity
        : opts.maxTotalTimeout - (Date.now() - startedAt),
    );

  const dispatch = (
    method: string,
    params: JsonObject | undefined,
    opts: Outgoing,
    startedAt: number,
  ): Promise<JsonObject> => {
    if (s.state === "closed") return Promise.reject(s.closedError);
    if (s.state === "ready" && s.current && s.renewal === undefined) {
      return transmit(s.current, method, params, opts, startedAt);
    }
    return room.enqueue(method, params, opts, budget(opts, startedAt));
  };

  /** Sends on `handle`, renewing an expired session or retrying an HTTP status as needed. */
  const transmit = (
    handle: LinkHandle,
    method: string,
    params: JsonObject | undefined,
    opts: Outgoing,
    startedAt: number,
  ): Promise<JsonObject> => {
    const generation = s.sessionGeneration;
    return sendOn(s, handle, method, params, opts, startedAt).catch((error: unknown) =>
      recover(error, generation, handle, method, params, opts, startedAt)
    );
  };

  /** After a failed send: renew the session, or wait and retry, or rethrow. */
  const recover = async (
    error: unknown,
    generation: number,
    handle: LinkHandle,
    method: string,
    params: JsonObject | undefined,
    opts: Outgoing,
    startedAt: number,
  ): Promise<JsonObject> => {
    if (!isMcpError(error)) throw error;
    if (error.kind === "transport" && error.reason === "session_expired") {
      if (opts.renewed) {
        throw new McpError(
          `${method} failed: the server's session expired again right after a new one started`,
          { kind: "transport", reason: "session_expired", cause: error },
        );
      }
      await renewSession(handle, generation);
      return dispatch(method, params, { ...opts, startedAt, renewed: true }, startedAt);
    }
    if (error.kind === "transport" && error.reason === "network") {
      // The server cannot be reached: the link is gone, as after a process exit. The
      // request fails (it may have reached the server); later ones queue until reconnected.
      abandon(handle, error);
      throw error;
    }
    const policy = options.retry;
    if (policy === false || error.kind !== "transport" || error.reason !== "http_status") {
      throw error;
    }
    // The retry policy loads with the first answer of an HTTP status.
    const { retryDelay } = await import("./_status_retry.ts");
    const retries = opts.statusRetries ?? 0;
    const wait = retryDelay(
      method,
      error,
      retries,
      policy,
      (attempt) => backoffDelay(attempt, policy, options.random),
    );
    if (wait === undefined || wait >= budget(opts, startedAt)) throw error;
    // Traced: the wait and the attempt after it are a child span of the request's.
    const retry = opts.trace?.child("mcp.client.retry", {
      "conduit.retry.attempt": retries + 1,
      "conduit.retry.delay_ms": wait,
      "conduit.retry.after": error.reason ?? error.kind,
    });
    try {
      await delay(wait, opts.signal);
    } catch {
      const cancelled = cancelledError(method, opts.signal);
      retry?.end(cancelled);
      throw cancelled;
    }
    const again = dispatch(
      method,
      params,
      { ...opts, startedAt, statusRetries: retries + 1 },
      startedAt,
    );
    return retry === undefined ? again : again.then((result) => {
      retry.end();
      return result;
    }, (failure: unknown) => {
      retry.end(failure);
      throw failure;
    });
  };

  const release = (handle: LinkHandle) =>
    room.release((item) =>
      transmit(
        handle,
        item.method,
        item.params,
        item.options,
        item.options.startedAt ?? item.queuedAt,
      )
    );

  /**
   * Renews the legacy session of `handle` once for every request that saw it expire (a
   * request sent before a renewal that already happened just goes again).
   */
  const renewSession = (handle: LinkHandle, generation: number): Promise<void> => {
    if (handle !== s.current || generation !== s.sessionGeneration) return Promise.resolve();
    return s.renewing(handle, () => renew(handle));
  };

  const renew = async (handle: LinkHandle): Promise<void> => {
    const reopen = () => Promise.reject(new McpError("No reopening here", { kind: "transport" }));
    const ctx = negotiateContext(s, handle, reopen, "legacy");
    let outcome: Negotiated;
    try {
      await Promise.resolve(); // let `renewal` be set before anything settles
      outcome = await renewLegacySession(
        ctx,
        handle,
        s.negotiated?.version ?? options.versions[0],
      );
    } catch (error) {
      s.renewalEnded(handle);
      const current = handle === s.current;
      const failure = new McpError(
        `The server's session expired and a new one could not be started (${
          error instanceof Error ? error.message : String(error)
        })`,
        { kind: "transport", reason: "session_renewal_failed", cause: error },
      );
      // The requests that queued behind the renewal learn at once why it failed.
      if (current) room.rejectAll(failure);
      abandon(handle, failure);
      throw failure;
    }
    s.renewalEnded(handle, outcome);
    if (handle !== s.current) return;
    handle.link.setProtocol({ era: outcome.era, version: outcome.version });
    restoreLogLevel(s, handle, outcome);
    if (s.state === "ready") release(handle);
    s.events.ready?.({ era: outcome.era, renewed: true });
  };

  return { dispatch, release };
}

/**
 * Private: one server of a hub. It holds one client for the hub's life; when the client
 * fails to start, or gives up reconnecting and closes, the member waits a backoff delay and
 * revives it with `reconnect()`, again and again (as the hub's `reconnect` settings say).
 * The restarts count (and the delay grows) until a start stayed up for
 * `STABLE_CONNECTION` ms (`clock/timer.ts`), so a server that dies right after each handshake is
 * given up on per `attempts`.
 * Its notifications go on to the hub with the server's name.
 *
 * @module
 */

import { attemptCount, startTimer, type Timer } from "../clock/timer.ts";
import { isMcpError, McpError } from "../protocol/errors.ts";
import type { McpClient } from "../client/types.ts";
import type {
  HubNotification,
  HubReconnectOptions,
  HubServerState,
  HubServerStatus,
} from "./types.ts";

/** The restart backoff with every default filled in. */
export type Backoff = Required<HubReconnectOptions>;

/** What a member needs from the hub. */
export interface MemberDeps {
  /** The server's name. */
  name: string;
  /** Its client (created, and connecting, already). */
  client: McpClient;
  /** The restart backoff, or `false` for none. */
  backoff: Backoff | false;
  /** Where diagnostics go. */
  warn(message: string): void;
  /** Where its notifications go. */
  publish(notification: HubNotification): void;
  /** The jitter source. */
  random(): number;
}

/** One server of a hub. */
export interface Member {
  /** The server's name. */
  readonly name: string;
  /** Its client. */
  readonly client: McpClient;
  /** Its status. */
  status(): Omit<HubServerStatus, "start">;
  /** Settles once the first start succeeded or failed. */
  readonly settled: Promise<void>;
  /**
   * The client, when requests to it can be sent (ready, or connecting and so queueing them).
   *
   * @throws {McpError} kind `unavailable`, reason `server_unavailable` (the failure as cause).
   */
  use(): McpClient;
  /** Stops restarting and closes the client. */
  close(): Promise<void>;
}

/**
 * The delay before restart `n` (1-based): exponential, capped, with jitter.
 *
 * @param backoff The settings.
 * @param n The restart's number.
 * @param random The jitter source.
 * @returns Milliseconds.
 */
export function restartDelay(backoff: Backoff, n: number, random: () => number): number {
  const base = Math.min(backoff.maxDelay, backoff.initialDelay * backoff.factor ** (n - 1));
  return Math.max(0, Math.round(base * (1 + backoff.jitter * (2 * random() - 1))));
}

/**
 * Starts following one server's client.
 *
 * @param deps The client and what the member reports to.
 * @returns The member.
 */
export function createMember(deps: MemberDeps): Member {
  const { name, client, backoff } = deps;
  let waiting: "waiting" | "failed" | undefined;
  const restarts = attemptCount();
  let error: McpError | undefined;
  let nextRetry: number | undefined;
  let timer: Timer | undefined;
  let closing = false;
  const pump = new AbortController();

  const failed = (cause: unknown) => {
    if (closing || waiting !== undefined) return;
    // Failed before it was stable: the restarts go on counting where they left off.
    restarts.lost();
    error = isMcpError(cause) ? cause : new McpError(`Server "${name}" failed`, {
      kind: "unavailable",
      reason: "server_failed",
      cause,
    });
    if (backoff === false || restarts.attempts >= backoff.attempts) {
      waiting = "failed";
      deps.warn(`Server "${name}" failed (${error.kind}/${error.reason ?? "?"}); not restarting`);
      return;
    }
    waiting = "waiting";
    const ms = restartDelay(backoff, restarts.failed(), deps.random);
    nextRetry = Date.now() + ms;
    deps.warn(
      `Server "${name}" failed (${error.kind}/${
        error.reason ?? "?"
      }); restart ${restarts.attempts} in ${ms} ms`,
    );
    timer = startTimer(restart, ms);
    timer.unref();
  };

  function restart() {
    timer = undefined;
    if (closing) return;
    waiting = undefined;
    nextRetry = undefined;
    client.reconnect().then(started, failed);
  }

  function started() {
    if (closing) return;
    restarts.up();
    error = undefined;
    follow();
  }

  // Forwards notifications; the iterator ends when the client closes (it gave up).
  async function follow() {
    try {
      for await (const notification of client.notifications({ signal: pump.signal })) {
        deps.publish({ server: name, ...notification });
      }
    } catch {
      // An aborted iterator: the hub is closing.
    }
    if (closing) return;
    failed(client.status().error ?? new McpError(`Server "${name}" closed`, { kind: "closed" }));
  }

  const settled = client.ready().then(started, failed);

  return {
    name,
    client,
    settled,
    status() {
      const inner = client.status();
      let state: HubServerState = closing ? "closed" : waiting ?? inner.state;
      // A client that closed by itself, before the member heard of it.
      if (state === "closed" && !closing) state = "waiting";
      const status: Omit<HubServerStatus, "start"> = {
        state,
        attempts: inner.attempts,
        restarts: restarts.attempts,
      };
      const last = inner.error ?? error;
      if (last !== undefined && state !== "ready") status.error = last;
      if (nextRetry !== undefined && state === "waiting") status.nextRetry = nextRetry;
      if (inner.era !== undefined) status.era = inner.era;
      if (inner.version !== undefined) status.version = inner.version;
      if (inner.containment !== undefined) status.containment = inner.containment;
      return status;
    },
    use() {
      const state = closing ? "closed" : waiting ?? client.status().state;
      if (state !== "closed" && state !== "waiting" && state !== "failed") return client;
      const cause = error ?? client.status().error;
      const why = cause === undefined ? "" : `: ${cause.message}`;
      throw new McpError(`Server "${name}" is unavailable${why}`, {
        kind: closing ? "closed" : "unavailable",
        reason: closing ? undefined : "server_unavailable",
        data: { server: name, state, restarts: restarts.attempts, nextRetry },
        cause,
      });
    },
    async close() {
      closing = true;
      timer?.clear();
      pump.abort();
      await client.close();
    },
  };
}

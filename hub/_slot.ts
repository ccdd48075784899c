/**
 * Private: one server of a hub and when it runs. An eager server's member (`_member.ts`:
 * its client, restarts, notifications) is made at once and lives as long as the hub. A lazy
 * server has none until something needs it running (a call, its catalogue to learn,
 * `hub.client(name)`): then a client is made and started, and after `idleMs` with no call in
 * flight it is closed again, back to `stopped`; the next need starts a fresh one.
 *
 * @module
 */

import { startTimer, type Timer } from "../clock/timer.ts";
import { McpError } from "../protocol/errors.ts";
import type { ClientOptions, McpClient } from "../client/types.ts";
import { createClient } from "../client/client.ts";
import { type Backoff, createMember, type Member } from "./_member.ts";
import type { HubNotification, HubServerStatus, HubStart } from "./types.ts";

/** What a slot needs from the hub. */
export interface SlotDeps {
  /** The server's name. */
  name: string;
  /** Its client's options (with the transport). */
  options: ClientOptions;
  /** When it starts. */
  start: HubStart;
  /** How long a lazy server stays up without calls. */
  idleMs: number;
  /** The restart backoff, or `false`. */
  backoff: Backoff | false;
  /** Where diagnostics go. */
  warn(message: string): void;
  /** Where its notifications go. */
  publish(notification: HubNotification): void;
  /** Told each time a fresh client of this server is made (its live catalogue is due). */
  started?(name: string): void;
}

/** One server of a hub, running or not. */
export interface Slot {
  /** The server's name. */
  readonly name: string;
  /** When it starts. */
  readonly start: HubStart;
  /** Whether a client of it exists now (starting, ready, or being restarted). */
  running(): boolean;
  /** The running member's first start settled; at once for a stopped server. */
  settled(): Promise<void>;
  /** The running client, as {@linkcode Member.use} (throws for a stopped server too). */
  use(): McpClient;
  /** Starts the server when stopped; returns its member. */
  wake(): Member;
  /**
   * Runs `work` with the server running (started and settled first), counted as a call in
   * flight for the idle timer.
   */
  with<T>(work: (client: McpClient) => Promise<T>): Promise<T>;
  /** Its status (without the catalogue part, which the hub adds). */
  status(): HubServerStatus;
  /** Stops it for good. */
  close(): Promise<void>;
}

/**
 * Makes the slot of one server; an eager one starts now.
 *
 * @param deps The server and what the slot reports to.
 * @returns The slot.
 * @throws {TypeError} From the client's option checks (eager servers).
 */
export function createSlot(deps: SlotDeps): Slot {
  const { name, start } = deps;
  let member: Member | undefined;
  let inFlight = 0;
  let idle: Timer | undefined;
  let starting = false;
  let closed = false;

  const spawn = (): Member => {
    const client = createClient({ onWarning: deps.warn, ...deps.options });
    const made = createMember({
      name,
      client,
      backoff: deps.backoff,
      warn: deps.warn,
      random: Math.random,
      publish: deps.publish,
    });
    member = made;
    if (start === "lazy") {
      starting = true;
      made.settled.finally(() => {
        if (member === made) starting = false;
      });
    }
    deps.started?.(name);
    return made;
  };

  const stop = () => {
    idle = undefined;
    if (inFlight > 0 || member === undefined || closed) return;
    const stopping = member;
    member = undefined;
    starting = false;
    stopping.close().catch((error) => deps.warn(`Server "${name}" failed to stop: ${error}`));
  };

  const arm = () => {
    idle?.clear();
    idle = undefined;
    if (start !== "lazy" || inFlight > 0 || !Number.isFinite(deps.idleMs)) return;
    idle = startTimer(stop, deps.idleMs);
    idle.unref();
  };

  if (start === "eager") spawn();

  const wake = () => {
    if (closed) {
      throw new McpError(`Server "${name}" is closed`, { kind: "closed" });
    }
    const running = member ?? spawn();
    if (inFlight === 0) arm();
    return running;
  };

  return {
    name,
    start,
    running: () => member !== undefined,
    settled: () => member?.settled ?? Promise.resolve(),
    use() {
      if (member !== undefined) return member.use();
      throw new McpError(`Server "${name}" is stopped`, {
        kind: closed ? "closed" : "unavailable",
        reason: closed ? undefined : "server_unavailable",
        data: { server: name, state: "stopped" },
      });
    },
    wake,
    async with(work) {
      inFlight++;
      idle?.clear();
      idle = undefined;
      try {
        const running = wake();
        await running.settled;
        return await work(running.use());
      } finally {
        inFlight--;
        arm();
      }
    },
    status() {
      if (member === undefined) {
        const stopped: HubServerStatus = {
          state: closed ? "closed" : "stopped",
          attempts: 0,
          restarts: 0,
          start,
        };
        // A stopped server's containment is what its transport plans, when it knows already.
        const containment = deps.options.transport?.containment?.();
        if (containment !== undefined) stopped.containment = containment;
        return stopped;
      }
      const status = { ...member.status(), start };
      if (starting && status.state === "connecting") status.state = "starting";
      return status;
    },
    async close() {
      closed = true;
      idle?.clear();
      idle = undefined;
      const running = member;
      if (running !== undefined) await running.close();
    },
  };
}

/**
 * A command's side of a kept session's socket: requests with ids, their replies, progress
 * and warnings as they come, cancelling by id, and every request failed at once (kind
 * `closed`) when the session goes away.
 *
 * @module
 */

import { McpError } from "../mod.ts";
import { connectUnix, type UnixConnection } from "../runtime/unix_socket.ts";
import { fromWire } from "./_keep_errors.ts";
import { line, lineSplitter, REPLY_LINE_MAX } from "./_keep_wire.ts";

/** One request's extras. */
export interface RequestExtras {
  /** Called with each progress notification of the request. */
  onProgress?: (progress: unknown) => void;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** An open channel to a session. */
export interface KeepChannel {
  /** Sends a request (`op` and its fields) and resolves with its result. */
  request(message: Record<string, unknown>, extras?: RequestExtras): Promise<unknown>;
  /** Called with each warning the session's client gives. */
  onWarning(listener: (warning: string) => void): void;
  /** Ends the channel. */
  close(): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onProgress?: (progress: unknown) => void;
}

/**
 * Opens a channel to the session at `socket`.
 *
 * @throws The system's error when nobody listens there (`ENOENT`, `ECONNREFUSED`).
 */
export async function openChannel(socket: string): Promise<KeepChannel> {
  const connection: UnixConnection = await connectUnix(socket);
  const pending = new Map<number, Pending>();
  const warningListeners: ((warning: string) => void)[] = [];
  let next = 1;
  let closed = false;
  const failAll = (error: Error) => {
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
  };
  connection.onClose(() => {
    closed = true;
    failAll(
      new McpError("The kept session ended before it answered", {
        kind: "closed",
        reason: "session_ended",
      }),
    );
  });
  connection.onData(lineSplitter(REPLY_LINE_MAX, (event) => {
    if ("refused" in event) {
      failAll(new McpError(`The kept session sent ${event.detail}`, { kind: "protocol" }));
      connection.close();
      return;
    }
    const message = event.message as Record<string, unknown>;
    if (typeof message.warning === "string") {
      for (const listener of warningListeners) listener(message.warning);
      return;
    }
    const entry = typeof message.id === "number" ? pending.get(message.id) : undefined;
    if (entry === undefined) {
      // A failure the session could not tie to a request: all of them fail.
      if (message.error !== undefined) failAll(fromWire(message.error));
      return;
    }
    if ("progress" in message) return entry.onProgress?.(message.progress);
    pending.delete(message.id as number);
    if ("error" in message) entry.reject(fromWire(message.error));
    else entry.resolve(message.result);
  }));
  return {
    request(message, extras = {}) {
      if (closed) {
        return Promise.reject(
          new McpError("The kept session has ended", { kind: "closed", reason: "session_ended" }),
        );
      }
      const id = next++;
      const { signal, onProgress } = extras;
      return new Promise((resolve, reject) => {
        const onAbort = () => void connection.write(line({ id: next++, op: "cancel", target: id }));
        const settle = () => signal?.removeEventListener("abort", onAbort);
        pending.set(id, {
          resolve: (value) => {
            settle();
            resolve(value);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
          ...(onProgress ? { onProgress } : {}),
        });
        signal?.addEventListener("abort", onAbort, { once: true });
        void connection.write(line({ ...message, id, ...(onProgress ? { progress: true } : {}) }));
      });
    },
    onWarning(listener) {
      warningListeners.push(listener);
    },
    close() {
      connection.close();
    },
  };
}

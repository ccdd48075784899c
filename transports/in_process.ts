/**
 * The in-process transport: the server is a message handler in the same process (a test
 * double, an embedded server, a bridge). Messages travel asynchronously and structured-cloned
 * in both directions, so it behaves like a real transport: no shared objects, no re-entrancy.
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { decodeMessage } from "../protocol/decode.ts";
import type { Transport, TransportLink, TransportSink } from "./transport.ts";
import { localName } from "../cache/digest.ts";

/** What an in-process server can do to the client it is connected to. */
export interface InProcessPeer {
  /**
   * Sends one message to the client. A string is raw text, decoded like a stdio line: text
   * that is not one JSON-RPC message is reported as a warning and skipped.
   */
  send(message: JsonRpcMessage | string): void;
  /**
   * Ends the connection from the server's side (like a process exit): the client sees the
   * link fail with kind `transport`. Messages sent before are still delivered.
   */
  close(reason?: string): void;
}

/** One connection of an in-process server: it receives the client's messages. */
export interface InProcessConnection {
  /** Receives one message from the client. */
  receive(message: JsonRpcMessage): void;
  /** Called when the connection ends, from either side. */
  close?(): void;
}

/**
 * A server that lives in the same process: each client link connects to it once.
 *
 * @example A server that answers `ping` and closes on anything else
 * ```ts
 * import type { InProcessServer } from "./in_process.ts";
 *
 * const server: InProcessServer = {
 *   connect: (peer) => ({
 *     receive(message) {
 *       if ("method" in message && message.method === "ping" && "id" in message) {
 *         peer.send({ jsonrpc: "2.0", id: message.id, result: {} });
 *       } else peer.close("unexpected message");
 *     },
 *   }),
 * };
 * if (typeof server.connect !== "function") throw new Error("unexpected");
 * ```
 */
export interface InProcessServer {
  /** Accepts a new connection; `peer` is how the server talks back. */
  connect(peer: InProcessPeer): InProcessConnection;
}

function transportError(message: string, reason: string, cause?: unknown): McpError {
  return new McpError(message, { kind: "transport", reason, cause });
}

function openLink(server: InProcessServer, sink: TransportSink): TransportLink {
  let linkClosed = false; // no more deliveries in either direction
  let peerEnded = false; // the server closed; already queued messages still arrive

  const finish = () => {
    if (linkClosed) return;
    linkClosed = true;
    try {
      connection.close?.();
    } catch {
      // The server's own clean-up failing changes nothing for the client.
    }
  };

  const endFromServer = (reason?: string) => {
    if (peerEnded || linkClosed) return;
    peerEnded = true;
    queueMicrotask(() => {
      if (linkClosed) return;
      finish();
      const detail = reason ? `: ${reason}` : "";
      sink.closed(transportError(`The in-process server closed the connection${detail}`, "closed"));
    });
  };

  const peer: InProcessPeer = {
    send(message) {
      if (peerEnded || linkClosed) return;
      let decoded;
      try {
        decoded = decodeMessage(typeof message === "string" ? message : structuredClone(message));
      } catch (cause) {
        sink.warn?.(`Skipped a message the in-process server sent: ${String(cause)}`);
        return;
      }
      if (!decoded.ok) {
        sink.warn?.(`Skipped a message from the in-process server (${decoded.reason})`);
        // An answer with a request's id: that request fails now (in order with the messages).
        const { id } = decoded;
        if (id !== undefined && sink.malformed) {
          queueMicrotask(() => {
            if (!linkClosed) sink.malformed?.(id, decoded);
          });
        }
        return;
      }
      const delivered = decoded.message;
      queueMicrotask(() => {
        if (!linkClosed) sink.message(delivered);
      });
    },
    close: endFromServer,
  };

  // Called only after `connect` returned: deliveries and `finish` run in later microtasks.
  let connection: InProcessConnection;
  try {
    connection = server.connect(peer);
  } catch (cause) {
    linkClosed = true;
    throw cause;
  }

  return {
    send(message) {
      if (linkClosed || peerEnded) {
        return Promise.reject(transportError("The in-process connection is closed", "closed"));
      }
      let copy: JsonRpcMessage;
      try {
        copy = structuredClone(message);
      } catch (cause) {
        return Promise.reject(
          new McpError("The message cannot be cloned", {
            kind: "protocol",
            reason: "not_serializable",
            cause,
          }),
        );
      }
      queueMicrotask(() => {
        if (linkClosed || peerEnded) return;
        try {
          connection.receive(copy);
        } catch (cause) {
          sink.warn?.(`The in-process server threw: ${String(cause)}`);
          endFromServer("the server threw");
        }
      });
      return Promise.resolve();
    },
    setProtocol() {},
    close() {
      finish();
      return Promise.resolve();
    },
  };
}

/**
 * A transport to a server in the same process. Each link calls `server.connect` once;
 * messages are delivered asynchronously (in a microtask) and structured-cloned.
 *
 * @param server The server: `connect(peer)` returns the connection receiving client messages.
 * @returns A transport of kind `"in_process"`.
 *
 * @example A tiny server that answers every request with an empty result
 * ```ts
 * import { inProcess } from "./in_process.ts";
 * import { isRequest } from "../protocol/jsonrpc.ts";
 *
 * const transport = inProcess({
 *   connect: (peer) => ({
 *     receive(message) {
 *       if (isRequest(message)) peer.send({ jsonrpc: "2.0", id: message.id, result: {} });
 *     },
 *   }),
 * });
 * const answer = Promise.withResolvers<unknown>();
 * const link = await transport.open({ message: answer.resolve, closed() {} });
 * await link.send({ jsonrpc: "2.0", id: 1, method: "ping" });
 * if (JSON.stringify(await answer.promise) !== '{"jsonrpc":"2.0","id":1,"result":{}}') {
 *   throw new Error("unexpected answer");
 * }
 * await link.close();
 * ```
 */
export function inProcess(server: InProcessServer): Transport {
  if (typeof server !== "object" || server === null || typeof server.connect !== "function") {
    throw new TypeError("inProcess: server must have a connect(peer) method");
  }
  return {
    kind: "in_process",
    // Transports to the same server object share cache entries, in this process only.
    cacheTarget: () => Promise.resolve({ server: localName(server), identity: "in-process" }),
    open(sink) {
      try {
        return Promise.resolve(openLink(server, sink));
      } catch (cause) {
        return Promise.reject(
          transportError("The in-process server refused the connection", "connect_failed", cause),
        );
      }
    },
  };
}

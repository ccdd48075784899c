/**
 * The legacy era's server-to-client requests on one link: `ping` is answered at once;
 * `sampling/createMessage`, `elicitation/create` and `roots/list` go to the handler when the
 * client declared the capability (else `-32601`, or `-32602` for an undeclared mode or
 * option); anything else gets `-32601`. Each request's handler sees a signal that aborts when
 * the server cancels the request (`notifications/cancelled`) or the link ends, and then no
 * answer is sent. A handler that throws gives the server a JSON-RPC error answer; nothing a
 * handler does can break the link.
 *
 * This is the inbox's stand-in: it answers `ping` and drops what a modern server or a closed
 * link sends; the rest of the inbox (`_server_inbox.ts`) loads with the first other request.
 * What arrives while it loads (requests, and the notifications that may cancel them) is
 * handed over in order once it is in, so each request is answered once and a cancellation
 * sent while the inbox loads holds.
 *
 * @module
 */

import type {
  JsonRpcErrorObject,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../../protocol/jsonrpc.ts";
import { era as eraOf } from "../../protocol/versions.ts";
import { capabilitiesFor } from "./capabilities.ts";
import { counted } from "../../transports/census.ts";
import type { ServerRequests, ServerRequestsOptions } from "./_server_inbox.ts";

export type { ServerRequests, ServerRequestsOptions } from "./_server_inbox.ts";

/**
 * Creates the inbox of one link.
 *
 * @param config The client's options, the link's protocol and its `respond`.
 * @returns The inbox.
 */
export function createServerRequests(config: ServerRequestsOptions): ServerRequests {
  const { options } = config;
  const send = (response: JsonRpcResponse) => {
    config.respond(response).catch((error) =>
      options.warn(`Could not answer the server's request ${String(response.id)}: ${error}`)
    );
  };
  // The link's version (a legacy one until negotiated) and what the client declares at it.
  const legacy = () => {
    const version = config.protocol()?.version ??
      options.versions.find((version) => eraOf(version) === "legacy") ?? "2025-11-25";
    return { version, declared: capabilitiesFor(options, "legacy", version) };
  };
  let inbox: ServerRequests | undefined;
  let loading: Promise<void> | undefined;
  // What arrived while the inbox loads, handed over in order once it is in.
  let queued: (JsonRpcRequest | JsonRpcNotification)[] = [];
  let waiting = 0; // the requests among them
  const load = () =>
    loading ??= import("./_server_inbox.ts").then(({ serverInbox }) => {
      const made = serverInbox(config, send, legacy);
      const handOver = queued;
      queued = [];
      waiting = 0;
      inbox = made;
      for (const message of handOver) {
        if ("id" in message) made.request(message);
        else made.notification(message);
      }
    }, (error) => {
      // Each request that waited gets an answer; the next request tries the load again.
      const failed = queued;
      queued = [];
      waiting = 0;
      loading = undefined;
      options.warn(`Could not load the answers to the server's requests: ${error}`);
      const answer: JsonRpcErrorObject = { code: -32603, message: "Internal error" };
      for (const message of failed) {
        if ("id" in message) send({ jsonrpc: "2.0", id: message.id, error: answer });
      }
    });
  counted("server_requests.running", () => inbox?.pending() ?? waiting);

  return {
    request(request) {
      if (config.protocol()?.era === "modern") {
        options.warn(`Ignored a ${request.method} request from a modern server (not allowed)`);
        return;
      }
      if (request.method === "ping") return send({ jsonrpc: "2.0", id: request.id, result: {} });
      if (inbox !== undefined) return inbox.request(request);
      if (config.signal.aborted) return;
      queued.push(request);
      waiting++;
      load();
    },
    notification(notification) {
      if (inbox !== undefined) return inbox.notification(notification);
      // Before the inbox loads no request runs: only one that waits for it can be cancelled.
      if (loading !== undefined && notification.method === "notifications/cancelled") {
        queued.push(notification);
      }
    },
    pending: () => inbox?.pending() ?? waiting,
  };
}

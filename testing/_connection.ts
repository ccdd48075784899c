/**
 * Private: one connection of the mock server, whatever carries it: it records each message,
 * routes requests to their era, answers them (never after a cancel), takes the client's
 * answers to its own requests, and reaches open connections for broadcasts.
 *
 * @module
 */

import type { JsonObject, JsonRpcId, JsonRpcMessage, JsonRpcRequest } from "../protocol/jsonrpc.ts";
import { META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID } from "../protocol/meta.ts";
import { type Conn, type Core, objectOr, type Out, type Outcome } from "./_core.ts";
import { legacy, modern } from "./_methods.ts";

function isModern(core: Core, conn: Conn, request: JsonRpcRequest): boolean {
  const eras = core.def.eras ?? "both";
  if (eras === "legacy" || request.method === "initialize") return false;
  if (eras === "modern") return true;
  const meta = objectOr(request.params?._meta);
  return meta !== undefined && META_PROTOCOL_VERSION in meta ||
    conn.legacyVersion === undefined && request.method === "server/discover";
}

/** Opens a connection of `core` that writes to `out`. */
export function openConnection(core: Core, out: Out, via: string): Conn {
  let closed = false;
  const conn: Conn = {
    via,
    initialized: false,
    subscriptions: new Set(),
    listens: new Map(),
    running: new Map(),
    waiting: new Map(),
    nextId: 1,
    send(message, related) {
      if (!closed) out.send(message, related);
    },
    receive(message, headers) {
      if (closed) return;
      if (!("method" in message)) {
        const id = "id" in message ? message.id : null;
        if (id !== null && id !== undefined) {
          conn.waiting.get(id)?.(message as unknown as JsonObject);
        }
        return;
      }
      const params = objectOr(message.params) ?? {};
      const record = { method: message.method, params, via, ...(headers ? { headers } : {}) };
      if (!("id" in message)) {
        core.requests.push(record);
        if (message.method === "notifications/initialized") conn.initialized = true;
        if (message.method === "notifications/cancelled") {
          const id = params.requestId as JsonRpcId;
          conn.running.get(id)?.abort(new Error(String(params.reason ?? "cancelled")));
          conn.listens.delete(id);
        }
        return;
      }
      const request = message as JsonRpcRequest;
      const era = isModern(core, conn, request) ? "modern" : "legacy";
      core.requests.push({ ...record, id: request.id, era });
      const controller = new AbortController();
      conn.running.set(request.id, controller);
      const handle = era === "modern" ? modern : legacy;
      handle(core, conn, request, controller.signal).then(
        (outcome) => answer(request.id, outcome, controller.signal),
        (error) =>
          answer(
            request.id,
            { error: { code: -32603, message: String(error) } },
            controller.signal,
          ),
      );
    },
    close() {
      if (closed) return;
      closed = true;
      core.conns.delete(conn);
      for (const controller of conn.running.values()) controller.abort(new Error("closed"));
    },
  };
  const answer = (id: JsonRpcId, outcome: Outcome | undefined, signal: AbortSignal) => {
    if (outcome === undefined) return; // stays open (a listen)
    conn.running.delete(id);
    if (signal.aborted) return; // cancelled: nothing more for this request
    if ("error" in outcome) conn.send({ jsonrpc: "2.0", id, error: outcome.error }, id);
    else conn.send({ jsonrpc: "2.0", id, result: outcome.result }, id);
  };
  core.conns.add(conn);
  return conn;
}

/** Sends `method` to every legacy session and to the modern listens `wants` accepts. */
export function broadcast(
  core: Core,
  method: string,
  params: JsonObject,
  wants: (filter: JsonObject) => boolean,
  legacyWants: (conn: Conn) => boolean = (conn) => conn.legacyVersion !== undefined,
): number {
  let sent = 0;
  for (const conn of [...core.conns]) {
    if (conn.legacyVersion !== undefined && legacyWants(conn)) {
      conn.send({ jsonrpc: "2.0", method, params } as JsonRpcMessage);
      sent++;
    }
    for (const [id, filter] of conn.listens) {
      if (!wants(filter)) continue;
      const _meta = { ...objectOr(params._meta), [META_SUBSCRIPTION_ID]: id };
      conn.send({ jsonrpc: "2.0", method, params: { ...params, _meta } }, id);
      sent++;
    }
  }
  return sent;
}

/** Ends every open modern listen with its graceful `complete` result. */
export function endListens(core: Core): void {
  for (const conn of [...core.conns]) {
    for (const id of [...conn.listens.keys()]) {
      conn.listens.delete(id);
      conn.running.delete(id);
      const result = { resultType: "complete", _meta: { [META_SUBSCRIPTION_ID]: id } };
      conn.send({ jsonrpc: "2.0", id, result }, id);
    }
  }
}

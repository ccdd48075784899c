/**
 * Private: change notifications in the modern era. One `subscriptions/listen` whose filter
 * holds every subscribed URI, the list changes the client follows and the tasks it awaits, replaced by a new listen
 * (once acknowledged) when that filter changes, routed by `subscriptionId`, reopened after a
 * drop with backoff, and opened again each time the connection becomes ready.
 *
 * @module
 */

import { isMcpError, McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcId } from "../../protocol/jsonrpc.ts";
import { META_CLIENT_CAPABILITIES, META_SUBSCRIPTION_ID } from "../../protocol/meta.ts";
import { withTasksExtension } from "../../protocol/tasks_extension.ts";
import { clearTimer, startTimer, type Timer } from "../../clock/timer.ts";
import { subscriptionsNotSupported } from "./_follow.ts";
import { isObject } from "../../protocol/json.ts";
import type { Listen, ListenDeps, ListenFilter, Listens, ListFlag } from "./_listen_types.ts";

/** The `_meta` key naming the listen a notification belongs to. */
export const SUBSCRIPTION_ID: string = META_SUBSCRIPTION_ID;

/** Failed reopenings of a dropped listen in a row before waiting for the next reconnect. */
const MAX_REOPENS = 8;

function subscriptionIdOf(params: JsonObject | undefined): JsonRpcId | undefined {
  const meta = params?._meta;
  if (!isObject(meta)) return undefined;
  const id = meta[SUBSCRIPTION_ID];
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}

function isEmpty(filter: ListenFilter): boolean {
  return filter.uris.length === 0 && filter.lists.length === 0 && !filter.taskIds?.length;
}

/** The request's `notifications` (a missing field means "not asked for"). */
function filterParams(uris: string[], lists: ListFlag[], taskIds: string[] = []): JsonObject {
  const notifications: JsonObject = {};
  for (const flag of lists) notifications[flag] = true;
  if (uris.length > 0) notifications.resourceSubscriptions = uris;
  if (taskIds.length > 0) notifications.taskIds = taskIds;
  return notifications;
}

/**
 * Creates the modern listens of a client.
 *
 * @param deps The connection, the subscribed URIs and settings.
 * @returns The listens.
 */
export function createListens(deps: ListenDeps): Listens {
  const { connection, warn } = deps;
  const wanted = () => !isEmpty(deps.filter());
  // Ids of listens we opened, newest last (bounded): their messages are ours to route.
  const ours: JsonRpcId[] = [];
  let active: Listen | undefined;
  const opening = new Set<Listen>();
  let generation = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let reopenTimer: Timer | undefined;
  let reopens = 0;
  let closed = false;

  const remember = (id: JsonRpcId) => {
    ours.push(id);
    if (ours.length > 64) ours.shift();
  };

  const ended = (listen: Listen, outcome: unknown) => {
    if (listen.ended) return;
    listen.ended = true;
    opening.delete(listen);
    if (listen.acked === undefined) {
      let error: unknown = outcome;
      if (outcome === undefined) {
        error = new McpError("The server ended subscriptions/listen without acknowledging it", {
          kind: "protocol",
          reason: "subscription_not_acknowledged",
        });
      } else if (isMcpError(outcome) && outcome.kind === "server" && outcome.code === -32601) {
        error = subscriptionsNotSupported("modern", outcome);
      }
      listen.ack.reject(error);
    }
    if (listen !== active) return;
    active = undefined;
    if (!listen.closing && !closed && wanted()) scheduleReopen();
  };

  const open = (filter: ListenFilter): Listen => {
    const listen: Listen = {
      uris: filter.uris,
      lists: filter.lists,
      taskIds: filter.taskIds ?? [],
      controller: new AbortController(),
      ack: Promise.withResolvers<Set<string>>(),
      ended: false,
      closing: false,
      generation,
    };
    listen.ack.promise.catch(() => {});
    opening.add(listen);
    const params: JsonObject = {
      notifications: filterParams(filter.uris, filter.lists, listen.taskIds),
    };
    // `taskIds` needs the tasks extension declared on the listen itself.
    if (listen.taskIds.length > 0 && deps.capabilities !== undefined) {
      params._meta = { [META_CLIENT_CAPABILITIES]: withTasksExtension(deps.capabilities()) };
    }
    connection.stream(
      "subscriptions/listen",
      params,
      {
        signal: listen.controller.signal,
        onId: (id) => {
          listen.id = id;
          remember(id);
        },
      },
    ).then(() => ended(listen, undefined), (error) => ended(listen, error));
    return listen;
  };

  const stop = (listen: Listen | undefined) => {
    if (listen === undefined || listen.ended) return;
    listen.closing = true;
    listen.controller.abort(new Error("The subscription was replaced or ended"));
  };

  const acknowledged = async (listen: Listen, timeout: number): Promise<void> => {
    let timer: Timer | undefined;
    const expired = new Promise<never>((_, reject) => {
      // No deadline (an infinite timeout): wait for the acknowledgment or the stream's end.
      if (!Number.isFinite(timeout)) return;
      timer = startTimer(
        () =>
          reject(
            new McpError(`The server did not acknowledge subscriptions/listen in ${timeout} ms`, {
              kind: "timeout",
              reason: "not_acknowledged",
            }),
          ),
        timeout,
      );
    });
    try {
      await Promise.race([listen.ack.promise, expired]);
    } catch (error) {
      stop(listen);
      throw error;
    } finally {
      clearTimer(timer);
    }
  };

  /** Makes the open listen match the filter; the listen afterwards, if any. */
  const sync = async (timeout: number): Promise<Listen | undefined> => {
    if (closed) return undefined;
    const filter = deps.filter();
    const current = active;
    if (
      current !== undefined && !current.ended && current.generation === generation &&
      sameSet(current.uris, filter.uris) && sameSet(current.lists, filter.lists) &&
      sameSet(current.taskIds, filter.taskIds ?? [])
    ) {
      return current;
    }
    if (isEmpty(filter)) {
      active = undefined;
      stop(current);
      return undefined;
    }
    const listen = open(filter);
    await acknowledged(listen, timeout); // the acknowledgment put it in force
    if (listen.ended) {
      throw new McpError("The new subscriptions/listen ended right after its acknowledgment", {
        kind: "transport",
        reason: "listen_ended",
      });
    }
    reopens = 0;
    return listen;
  };

  /** An acknowledged listen replaces the one in force (at once: updates may follow it). */
  const takeOver = (listen: Listen) => {
    if (listen.closing || listen.ended) return;
    const old = active;
    active = listen;
    if (old !== undefined && old !== listen) stop(old);
  };

  /** Runs `sync` after every earlier one (one listen is replaced at a time). */
  const resync = (timeout: number): Promise<Listen | undefined> => {
    const next = chain.then(() => sync(timeout));
    chain = next.catch(() => {});
    return next;
  };

  function scheduleReopen() {
    if (reopenTimer !== undefined || closed) return;
    if (reopens >= MAX_REOPENS) {
      warn(
        `Gave up reopening subscriptions/listen after ${reopens} tries; waiting for a reconnect`,
      );
      return;
    }
    reopens++;
    const wait = deps.reopenDelay(reopens);
    reopenTimer = startTimer(() => {
      reopenTimer = undefined;
      if (closed || !wanted() || connection.status().state !== "ready") return;
      resync(deps.requestTimeout).catch((error) => {
        warn(`Could not reopen subscriptions/listen: ${error}`);
        if (active === undefined) scheduleReopen();
      });
    }, wait);
  }

  return {
    resync,

    route(notification) {
      const params = notification.params;
      if (notification.method === "notifications/subscriptions/acknowledged") {
        const id = subscriptionIdOf(params);
        let listen = [...opening].find((candidate) => candidate.id === id);
        // The id was not learned when sending (it always is today): the oldest unknown one.
        listen ??= id === undefined || ours.includes(id)
          ? undefined
          : [...opening].find((candidate) => candidate.id === undefined);
        if (listen === undefined) return ours.includes(id as JsonRpcId);
        if (listen.id === undefined && id !== undefined) {
          listen.id = id;
          remember(id);
        }
        const filter = isObject(params?.notifications) ? params.notifications : {};
        const agreed = Array.isArray(filter.resourceSubscriptions)
          ? filter.resourceSubscriptions.filter((uri): uri is string => typeof uri === "string")
          : [];
        listen.acked = new Set(agreed);
        opening.delete(listen);
        takeOver(listen);
        listen.ack.resolve(listen.acked);
        return true;
      }
      if (notification.method === "notifications/cancelled") {
        const requestId = params?.requestId;
        const listen = active !== undefined && active.id === requestId ? active : undefined;
        if (listen === undefined) return false;
        // The server ended the listen (the disputed stdio form): treat it as a graceful end.
        listen.controller.abort(new Error("The server ended the subscription"));
        ended(listen, undefined);
        return true;
      }
      const id = subscriptionIdOf(params);
      if (id === undefined || !ours.includes(id)) return false;
      // Only the listen in force speaks for the subscriptions: a replaced or not yet
      // acknowledged one would deliver the same updates twice.
      return active === undefined || active.id !== id;
    },

    ready(era) {
      generation++;
      closed = false; // `reconnect()` revives a closed client, subscriptions included
      if (era !== "modern" || !wanted()) return;
      clearTimer(reopenTimer);
      reopenTimer = undefined;
      reopens = 0;
      resync(deps.requestTimeout).catch((error) => {
        warn(`Could not subscribe again after reconnecting: ${error}`);
        if (active === undefined) scheduleReopen();
      });
    },

    close() {
      closed = true;
      clearTimer(reopenTimer);
      reopenTimer = undefined;
      const listens = [active, ...opening];
      active = undefined;
      for (const listen of listens) stop(listen);
    },
  };
}

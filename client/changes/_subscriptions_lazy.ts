/**
 * The subscriptions (`subscriptions.ts`) loaded on first use: a client that never
 * subscribes to a resource, never follows a task's news and never follows list changes on a
 * ready modern server (legacy servers send them unasked) never loads them.
 *
 * Until they load nothing is subscribed and no listen is open: a notification is never
 * theirs (`route` is `false`) and a new connection has nothing to subscribe again. The lists
 * followed before they load are handed to them. What arrives while they load (a followed
 * list, a new connection, a close) is replayed in order once they are in, before any call
 * waiting for them goes on.
 *
 * @module
 */

import { TASKS_EXTENSION } from "../../protocol/meta.ts";
import { isObject } from "../../protocol/json.ts";
import type { FollowedList, SubscriptionDeps, Subscriptions } from "./subscriptions.ts";

/**
 * The subscriptions of a client, loaded by the first call that needs them.
 *
 * @param deps What the subscriptions need (as `createSubscriptions` takes it).
 * @returns Subscriptions that behave as `createSubscriptions(deps)`.
 *
 * @example Nothing loads for a client that only follows lists before it is ready
 * ```ts
 * import { lazySubscriptions } from "./_subscriptions_lazy.ts";
 *
 * const subs = lazySubscriptions({
 *   connection: { status: () => ({ state: "connecting" }) },
 *   warn: () => {},
 * } as unknown as Parameters<typeof lazySubscriptions>[0]);
 * subs.followLists(["tools"]);
 * const routed = subs.route({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
 * if (routed || subs.uris().length !== 0) throw new Error("nothing is subscribed yet");
 * ```
 */
export function lazySubscriptions(deps: SubscriptionDeps): Subscriptions {
  let real: Subscriptions | undefined;
  let loading: Promise<Subscriptions> | undefined;
  const followed = new Set<FollowedList>();
  let closed = false; // a close() before they load: they start closed, as the real ones would
  let pending: ((subs: Subscriptions) => void)[] = [];
  const load = (following: readonly FollowedList[]) =>
    loading ??= import("./subscriptions.ts").then(({ createSubscriptions }) => {
      const made = createSubscriptions(deps, following);
      if (closed) made.close();
      const replay = pending;
      pending = [];
      real = made;
      for (const event of replay) event(made);
      return made;
    }, (error) => {
      loading = undefined;
      pending = [];
      throw error;
    });
  /** Runs `event` on the subscriptions once they are in (loading them with `following`). */
  const later = (following: readonly FollowedList[], event: (subs: Subscriptions) => void) => {
    pending.push(event);
    if (loading !== undefined) return;
    load(following).catch((error) => deps.warn(`Could not load the subscriptions: ${error}`));
  };
  const readyModern = () =>
    deps.connection.status().state === "ready" && deps.connection.serverInfo().era === "modern";
  return {
    followLists(wanted) {
      if (real !== undefined) return real.followLists(wanted);
      if (loading !== undefined) return void pending.push((subs) => subs.followLists(wanted));
      const before = followed.size;
      for (const list of wanted) followed.add(list);
      // A modern server sends list changes only on a listen that asks for them.
      if (followed.size === before || !readyModern()) return;
      later([], (subs) => subs.followLists([...followed]));
    },
    subscribe: async (uri, options) =>
      await (real ?? await load([...followed])).subscribe(uri, options),
    unsubscribe: async (uri, options) =>
      await (real ?? await load([...followed])).unsubscribe(uri, options),
    route: (notification) => real?.route(notification) ?? false,
    ready(info) {
      if (real !== undefined) return real.ready(info);
      if (loading !== undefined) return void pending.push((subs) => subs.ready(info));
      closed = false;
      // Nothing subscribed yet: only followed lists on a modern server want a listen.
      if (info.era !== "modern" || followed.size === 0) return;
      later([...followed], (subs) => subs.ready(info));
    },
    close() {
      if (real !== undefined) return real.close();
      if (loading !== undefined) return void pending.push((subs) => subs.close());
      closed = true;
    },
    uris: () => real?.uris() ?? [],
    followTask(taskId) {
      if (real !== undefined) return real.followTask(taskId);
      if (!readyModern()) return undefined;
      const extensions = deps.connection.serverInfo().capabilities.extensions;
      if (!isObject(extensions) || !isObject(extensions[TASKS_EXTENSION])) return undefined;
      // They load now; an undo asked for before they are in is replayed after the follow.
      let undo: (() => void) | undefined;
      let undone = false;
      later([...followed], (subs) => {
        undo = subs.followTask(taskId);
        if (undone) undo?.();
      });
      return () => {
        undone = true;
        undo?.();
      };
    },
  };
}

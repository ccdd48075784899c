/**
 * Resource subscriptions in both eras, and list changes in the modern one. Legacy servers get
 * `resources/subscribe` and `resources/unsubscribe` (and send list changes unasked); modern
 * servers one `subscriptions/listen` whose filter holds every subscribed URI and the list
 * changes the client follows (`_listen.ts`, loaded when one is first wanted, behind
 * {@linkcode lazyListens}). Both are sent again each time the connection becomes ready (a
 * reconnect, or a renewed legacy session). Calls for one URI run one at a time, in call
 * order, so the server's subscriptions and the client's set agree.
 *
 * A client that never subscribes, follows no list change on a modern server and follows no
 * task's news never opens a `subscriptions/listen`, so it never loads the code that runs
 * one. Until the listens load nothing is open, so a notification is never theirs (`route`
 * is `false`, as the listens themselves answer before their first listen). Calls made while
 * they load run in call order once they are in, and a `close()` in between is kept.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import type { JsonObject, JsonRpcNotification } from "../../protocol/jsonrpc.ts";
import type { Era } from "../../protocol/versions.ts";
import { TASKS_EXTENSION } from "../../protocol/meta.ts";
import { follow, subscriptionsNotSupported } from "./_follow.ts";
import { checkOptions, nonEmpty } from "../requests/_checks.ts";
import { isObject } from "../../protocol/json.ts";
import type {
  Listen,
  ListenDeps,
  ListenFilter,
  Listens,
  ListenSettings,
  ListFlag,
} from "./_listen_types.ts";
import type { Connection } from "../connection/connection.ts";
import type { RequestOptions } from "../types.ts";

export { META_SUBSCRIPTION_ID as SUBSCRIPTION_ID } from "../../protocol/meta.ts";

/** What the subscriptions need from the client. */
export interface SubscriptionDeps extends ListenSettings {
  /** The connection. */
  connection: Pick<Connection, "request" | "stream" | "ready" | "serverInfo" | "status">;
  /** The client's declared modern capabilities (for a listen that asks for task news). */
  capabilities?(): JsonObject;
}

/** A list whose changes a client can follow (`notifications/<list>/list_changed`). */
export type FollowedList = "tools" | "prompts" | "resources";

const FLAGS: Record<FollowedList, ListFlag> = {
  tools: "toolsListChanged",
  prompts: "promptsListChanged",
  resources: "resourcesListChanged",
};

/** The subscriptions of one client. */
export interface Subscriptions {
  /**
   * Follows changes to `lists` from now on (a cached listing, or notification listeners,
   * want them). In the modern era, list changes arrive only on a listen that asked for them:
   * the listen in force is replaced by one that also asks for those the server declares
   * (`capabilities.<list>.listChanged`). Legacy servers send them unasked.
   */
  followLists(lists: readonly FollowedList[]): void;
  /** Subscribes to `uri` (see `McpClient.subscribe`). */
  subscribe(uri: string, options?: RequestOptions): Promise<void>;
  /** Ends the subscription to `uri` (see `McpClient.unsubscribe`). */
  unsubscribe(uri: string, options?: RequestOptions): Promise<void>;
  /**
   * Looks at a server notification first: returns `true` when it was for the subscriptions
   * alone (an acknowledgment, the end of a listen, a message of a replaced listen), `false`
   * when it should reach the notification listeners.
   */
  route(notification: JsonRpcNotification): boolean;
  /** The connection became ready: subscribe again. */
  ready(info: { era: Era; renewed: boolean }): void;
  /** The client closed: listens end; the URIs are kept for a `reconnect()`. */
  close(): void;
  /** The subscribed URIs. */
  uris(): string[];
  /**
   * Modern push of a task's news: adds `taskId` to the listen's `taskIds` until the returned
   * function is called; `undefined` (nothing to undo) when the ready server is not modern or
   * does not declare the tasks extension.
   */
  followTask(taskId: string): (() => void) | undefined;
}

function supportsSubscribe(capabilities: Record<string, unknown>): boolean {
  const resources = capabilities.resources;
  return isObject(resources) && resources.subscribe === true;
}

function declaresListChanged(capabilities: Record<string, unknown>, list: FollowedList): boolean {
  const declared = capabilities[list];
  return isObject(declared) && declared.listChanged === true;
}

/**
 * Creates the subscriptions of a client.
 *
 * @param deps The connection and settings.
 * @param following The lists already followed (by the shell that loaded these).
 * @returns The subscriptions.
 */
export function createSubscriptions(
  deps: SubscriptionDeps,
  following: readonly FollowedList[] = [],
): Subscriptions {
  const { connection, warn } = deps;
  const uris = new Set<string>();
  const followed = new Set<FollowedList>(following);
  /** The list changes to ask for: followed, and declared by the ready modern server. */
  const lists = (): ListFlag[] => {
    if (followed.size === 0 || connection.status().state !== "ready") return [];
    const info = connection.serverInfo();
    if (info.era !== "modern") return [];
    return [...followed].filter((list) => declaresListChanged(info.capabilities, list))
      .map((list) => FLAGS[list]);
  };
  const tasks = new Set<string>();
  const filter = (): ListenFilter => ({ uris: [...uris], lists: lists(), taskIds: [...tasks] });
  const resyncQuietly = (what: string) =>
    listens.resync(deps.requestTimeout).catch((error) =>
      warn(`Could not ${what} with subscriptions/listen: ${error}`)
    );
  // The listens load with the first one wanted (a subscription, a followed list or task).
  const listens = lazyListens({ ...deps, filter });
  const modernEra = () => connection.serverInfo().era === "modern";
  /**
   * The last operation on each URI: `subscribe` and `unsubscribe` of one URI run one after
   * the other, in call order, so the server sees them in that order and the set agrees.
   */
  const turns = new Map<string, Promise<void>>();
  const inTurn = (uri: string, work: () => Promise<void>): Promise<void> => {
    const run = (turns.get(uri) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => {});
    turns.set(uri, tail);
    void tail.then(() => {
      if (turns.get(uri) === tail) turns.delete(uri);
    });
    return run;
  };

  async function subscribeNow(uri: string, opts: RequestOptions, left: () => number) {
    await follow(connection.ready(left()), "subscribe", opts.signal);
    const info = connection.serverInfo();
    if (!supportsSubscribe(info.capabilities)) throw subscriptionsNotSupported(info.era);
    if (info.era === "legacy") {
      await connection.request("resources/subscribe", { uri }, {
        signal: opts.signal,
        timeout: left(),
        progress: false,
      });
      uris.add(uri);
      return;
    }
    const added = !uris.has(uri);
    uris.add(uri);
    try {
      const listen = await follow(listens.resync(left()), "subscribe", opts.signal);
      if (listen?.acked?.has(uri)) return;
      throw new McpError(`The server did not acknowledge the subscription to ${uri}`, {
        kind: "protocol",
        reason: "subscription_not_acknowledged",
        data: { uri },
      });
    } catch (error) {
      if (added) uris.delete(uri);
      throw error;
    }
  }

  async function unsubscribeNow(uri: string, opts: RequestOptions) {
    const had = uris.delete(uri);
    // A new connection starts without the subscription: nothing to tell the server.
    if (connection.status().state !== "ready") return;
    if (!modernEra()) {
      if (!supportsSubscribe(connection.serverInfo().capabilities)) return;
      await connection.request("resources/unsubscribe", { uri }, {
        signal: opts.signal,
        timeout: opts.timeout,
        progress: false,
      });
      return;
    }
    if (!had) return;
    await follow(listens.resync(opts.timeout ?? deps.requestTimeout), "unsubscribe", opts.signal);
  }

  return {
    async subscribe(uri, options) {
      nonEmpty("uri", uri);
      const opts = checkOptions(options);
      const timeout = opts.timeout ?? deps.requestTimeout;
      const started = Date.now();
      const left = () => Math.max(1, timeout - (Date.now() - started));
      await inTurn(uri, () => subscribeNow(uri, opts, left));
    },

    async unsubscribe(uri, options) {
      nonEmpty("uri", uri);
      const opts = checkOptions(options);
      await inTurn(uri, () => unsubscribeNow(uri, opts));
    },

    followLists(wanted) {
      const before = followed.size;
      for (const list of wanted) followed.add(list);
      if (followed.size === before || connection.status().state !== "ready") return;
      if (!modernEra()) return;
      listens.resync(deps.requestTimeout).catch((error) =>
        warn(`Could not follow list changes with subscriptions/listen: ${error}`)
      );
    },

    route: (notification) => listens.route(notification),

    ready(info) {
      listens.ready(info.era);
      if (uris.size === 0 || info.era === "modern") return;
      for (const uri of uris) {
        connection.request("resources/subscribe", { uri }, { progress: false }).catch((error) =>
          warn(`Could not subscribe to ${uri} again after reconnecting: ${error}`)
        );
      }
    },

    close: () => listens.close(),

    uris: () => [...uris],

    followTask(taskId) {
      if (connection.status().state !== "ready") return undefined;
      const info = connection.serverInfo();
      const extensions = info.capabilities.extensions;
      if (
        info.era !== "modern" || !isObject(extensions) || !isObject(extensions[TASKS_EXTENSION])
      ) {
        return undefined;
      }
      tasks.add(taskId);
      resyncQuietly("follow a task");
      return () => {
        if (!tasks.delete(taskId) || connection.status().state !== "ready") return;
        resyncQuietly("stop following a task");
      };
    },
  };
}

/**
 * The listens of a client, loaded by the first call that may open one.
 *
 * @param deps What the listens need (as `createListens` takes it).
 * @returns Listens that behave as `createListens(deps)`.
 *
 * @example Nothing loads until a listen is wanted
 * ```ts
 * import { lazyListens } from "./subscriptions.ts";
 *
 * const listens = lazyListens({
 *   connection: { stream: () => Promise.resolve(), status: () => ({ state: "idle" }) },
 *   filter: () => ({ uris: [], lists: [] }),
 *   requestTimeout: 1000,
 *   reopenDelay: () => 1000,
 *   warn: () => {},
 * } as unknown as Parameters<typeof lazyListens>[0]);
 * const routed = listens.route({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
 * if (routed) throw new Error("nothing is open yet");
 * ```
 */
export function lazyListens(deps: ListenDeps): Listens {
  let real: Listens | undefined;
  let loading: Promise<Listens> | undefined;
  // A close() before anything loaded: the listens start closed, as the real ones would be.
  let closed = false;
  const load = () =>
    loading ??= import("./_listen.ts").then(({ createListens }) => {
      real = createListens(deps);
      if (closed) real.close();
      return real;
    }, (error) => {
      loading = undefined;
      throw error;
    });
  const wanted = () => {
    const filter = deps.filter();
    return filter.uris.length > 0 || filter.lists.length > 0 || (filter.taskIds?.length ?? 0) > 0;
  };
  return {
    resync(timeout: number): Promise<Listen | undefined> {
      if (real !== undefined) return real.resync(timeout);
      return load().then((listens) => listens.resync(timeout));
    },
    route: (notification) => real?.route(notification) ?? false,
    ready(era: Era) {
      if (real !== undefined) return real.ready(era);
      closed = false;
      // Nothing open and nothing wanted: only the loaded listens keep count of connections.
      if (loading === undefined && (era !== "modern" || !wanted())) return;
      load().then((listens) => listens.ready(era), (error) => {
        deps.warn(`Could not subscribe again after reconnecting: ${error}`);
      });
    },
    close() {
      if (real !== undefined) return real.close();
      closed = true;
      loading?.then((listens) => listens.close(), () => {});
    },
  };
}

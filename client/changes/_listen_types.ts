/**
 * Private: the shapes of the modern listens: the client's settings and dependencies they use,
 * the filter a listen asks for, one `subscriptions/listen` request, and the listens' face.
 *
 * @module
 */

import type { JsonObject, JsonRpcId, JsonRpcNotification } from "../../protocol/jsonrpc.ts";
import type { Era } from "../../protocol/versions.ts";
import type { Connection } from "../connection/connection.ts";

/** The client's settings the subscriptions use. */
export interface ListenSettings {
  /** The default wait for the connection and for an acknowledgment. */
  requestTimeout: number;
  /**
   * How long to wait before opening a dropped listen again for the `attempt`th time (from
   * 1): the client's reconnect backoff, one second without one.
   */
  reopenDelay(attempt: number): number;
  /** Diagnostics. */
  warn(message: string): void;
}

/** A list change a listen can ask for (a `SubscriptionFilter` flag). */
export type ListFlag = "toolsListChanged" | "promptsListChanged" | "resourcesListChanged";

/** What a listen asks for: URIs and list changes. */
export interface ListenFilter {
  /** The subscribed URIs (`resourceSubscriptions`). */
  uris: string[];
  /** The list changes followed. */
  lists: ListFlag[];
  /** The tasks whose news is pushed (`taskIds`, tasks extension). */
  taskIds?: string[];
}

/** What the listens need from the client. */
export interface ListenDeps extends ListenSettings {
  /** The connection. */
  connection: Pick<Connection, "stream" | "status">;
  /** What the listen in force should ask for now (nothing: no listen). */
  filter(): ListenFilter;
  /** The client's declared modern capabilities (a listen with `taskIds` adds the tasks extension). */
  capabilities?(): JsonObject;
}

/** One `subscriptions/listen` request. */
export interface Listen {
  /** Its JSON-RPC id, once sent. */
  id?: JsonRpcId;
  /** The URIs of its filter. */
  uris: string[];
  /** The list changes of its filter. */
  lists: ListFlag[];
  /** The task ids of its filter. */
  taskIds: string[];
  /** Ends it. */
  controller: AbortController;
  /** The URIs the server acknowledged, once it did. */
  acked?: Set<string>;
  /** Settles with the acknowledgment, or with why there was none. */
  ack: PromiseWithResolvers<Set<string>>;
  /** The request settled. */
  ended: boolean;
  /** Closed by us (replaced, emptied, or the client closed): no reopening. */
  closing: boolean;
  /** The connection it was opened on (counted by {@linkcode Listens.ready}). */
  generation: number;
}

/** The modern listens of one client. */
export interface Listens {
  /**
   * Makes the listen in force match the subscribed URIs, after every earlier call (one listen
   * is replaced at a time); resolves with the listen afterwards, if any.
   */
  resync(timeout: number): Promise<Listen | undefined>;
  /** See `Subscriptions.route`. */
  route(notification: JsonRpcNotification): boolean;
  /** The connection became ready: earlier listens are stale; a modern one listens again. */
  ready(era: Era): void;
  /** The client closed: every listen ends, and none reopens. */
  close(): void;
}

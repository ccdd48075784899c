/**
 * The modern listens (`_listen.ts`) loaded on first use: a client that never subscribes,
 * follows no list change on a modern server and follows no task's news never opens a
 * `subscriptions/listen`, so it never loads the code that runs one.
 *
 * Until the listens load nothing is open, so a notification is never theirs (`route` is
 * `false`, as the listens themselves answer before their first listen). Calls made while
 * they load run in call order once they are in, and a `close()` in between is kept.
 *
 * @module
 */

import type { Era } from "../../protocol/versions.ts";
import type { Listen, ListenDeps, Listens } from "./_listen_types.ts";

/**
 * The listens of a client, loaded by the first call that may open one.
 *
 * @param deps What the listens need (as `createListens` takes it).
 * @returns Listens that behave as `createListens(deps)`.
 *
 * @example Nothing loads until a listen is wanted
 * ```ts
 * import { lazyListens } from "./_listen_lazy.ts";
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

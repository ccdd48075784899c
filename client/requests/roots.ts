/**
 * `notifyRootsChanged`: a legacy server told that the client's roots changed. The client
 * loads it with the first call.
 *
 * @module
 */

import { McpError } from "../../protocol/errors.ts";
import { checkOptions } from "./_checks.ts";
import type { Requester } from "./_requester.ts";
import type { RequestOptions } from "../types.ts";

/**
 * Tells a legacy server that the client's roots changed (`notifications/roots/list_changed`);
 * it will then ask for them again with `roots/list`. Waits for the connection to be ready.
 *
 * @param requester The connection.
 * @param hasRoots Whether the client's handler implements `listRoots`.
 * @param options Request options (`timeout` bounds the wait for ready).
 * @param declared Whether the client declared `roots.listChanged` (default `true`).
 * @throws {McpError} Kind `protocol` in the modern era (which has no such notification),
 * without a `listRoots` handler, or when the client declared no `roots.listChanged`.
 */
export async function notifyRootsChanged(
  requester: Requester,
  hasRoots: boolean,
  options?: RequestOptions,
  declared = true,
): Promise<void> {
  const opts = checkOptions(options);
  if (!hasRoots) {
    throw new McpError("notifyRootsChanged needs a handler with listRoots", {
      kind: "protocol",
      reason: "roots_not_supported",
    });
  }
  if (!declared) {
    throw new McpError(
      "notifyRootsChanged: the client declared no roots.listChanged (rootsListChanged: false)",
      { kind: "protocol", reason: "roots_list_changed_not_declared" },
    );
  }
  await requester.ready(opts.timeout);
  if (requester.era() !== "legacy") {
    throw new McpError(
      "The modern era has no notifications/roots/list_changed: servers ask for roots with " +
        "each request that needs them",
      { kind: "protocol", reason: "roots_list_changed_not_modern" },
    );
  }
  if (requester.notify === undefined) {
    throw new McpError("This connection cannot send notifications", {
      kind: "unavailable",
      reason: "not_ready",
    });
  }
  await requester.notify("notifications/roots/list_changed");
}

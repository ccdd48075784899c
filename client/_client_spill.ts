/**
 * Private: a client's side of spilling — who owns what a call spilled (the server, the
 * credentials' identity as the cache names it, and the principal), each tool's own budget,
 * and `readResult`. The spill code itself (`spill.ts`) is loaded only when a result is
 * shaped with spilling on, or read back.
 *
 * An identity the cache cannot name (an `auth` function without `credentialId`, a stdio
 * server that inherits the whole environment) is this client's own until its credentials
 * change: a random name, drawn again by `setAuth`.
 *
 * @module
 */

import { type CacheTarget, localName } from "../cache/digest.ts";
import { McpError } from "../protocol/errors.ts";
import type { McpClient } from "./api.ts";
import type { ReadResultOptions } from "./request_options.ts";
import {
  type ShapeSettings,
  type ShapingContext,
  type SpillConfig,
  toolBudget,
} from "./shaping.ts";
import type { Tool } from "./shapes.ts";

/** What a client's spilling gives it. */
export interface ClientSpill {
  /** Who the caller is, and each tool's budget. */
  context: ShapingContext;
  /** `readResult`. */
  readResult: McpClient["readResult"];
  /** New credentials: results spilled before are out of reach of the new ones. */
  credentialsChanged(): void;
}

/** The most per-call stores `readResult` looks in besides the client's own. */
const MAX_CALL_STORES = 8;

/**
 * A client's spilling.
 *
 * @param shape The client's `shape` settings.
 * @param transport The transport (it names the server and the credentials).
 * @param tools The last tool listing.
 * @returns The context, `readResult` and the credential hook.
 */
export function clientSpill(
  shape: ShapeSettings,
  transport: { cacheTarget?(): Promise<CacheTarget> },
  tools: () => Tool[],
): ClientSpill {
  let unnamed = crypto.randomUUID();
  const target = (): Promise<CacheTarget> =>
    transport.cacheTarget?.() ??
      Promise.resolve({ server: localName(transport), identity: "local" });
  const owner = async (principal: string | undefined) => {
    const { spillOwner } = await import("./spill.ts");
    return spillOwner(await target(), unnamed, principal);
  };
  const perCall: SpillConfig[] = [];
  return {
    context: {
      owner: (principal) => owner(principal),
      budgetOf(name) {
        try {
          return toolBudget(tools().find((tool) => tool.name === name)?._meta);
        } catch {
          return undefined; // no listing yet
        }
      },
      used(config) {
        if (config === shape.spill || perCall.includes(config)) return;
        if (perCall.some((c) => c.store === config.store)) return;
        perCall.push(config);
        if (perCall.length > MAX_CALL_STORES) perCall.shift();
      },
    },
    async readResult(handle, options) {
      const { checkReadOptions, readSpilled, spillStoreOf } = await import("./spill.ts");
      const checked: ReadResultOptions = checkReadOptions(options);
      if (typeof handle !== "string") throw new TypeError("readResult: handle must be a string");
      const configs = [...(shape.spill === undefined ? [] : [shape.spill]), ...perCall];
      if (configs.length === 0) {
        throw new McpError("No result is kept under this handle for this caller", {
          kind: "not_found",
          reason: "unknown_result",
        });
      }
      const me = await owner(checked.principal);
      return await readSpilled(
        configs.map((config) => ({ store: spillStoreOf(config), owner: me })),
        handle,
        checked,
      );
    },
    credentialsChanged() {
      unnamed = crypto.randomUUID();
    },
  };
}

/**
 * Private: what governance remembers. "Always" grants, per server, principal and tool, in the
 * store (so they survive a restart when the store does); pins, per server and tool, in the
 * pin store; and, per tool definition (by identity, so once per listing), its compiled
 * schemas and its pin status.
 *
 * Pins and grants are never evicted by cache traffic: over a store that evicts (`evicts`,
 * the bounded `memoryStore()` that also holds cached pages) they go to an unbounded memory
 * store kept alongside it (one per store, so the clients sharing a store share them). And
 * each governance remembers what it pinned in this process: a tool seen before whose pin
 * went missing from the store is checked against that, held when it changed, never pinned
 * anew as first use.
 *
 * @module
 */

import { memoryStore } from "../cache/memory.ts";
import type { CacheStore } from "../cache/store.ts";
import {
  describeChanges,
  diffDefinitions,
  fingerprint,
  type PinnedDefinition,
  pinnedPart,
  type ToolChange,
} from "./pin.ts";
import type { Tool } from "./types.ts";

const GRANTS = "governance-grants";
const PINS = "governance-pins";

const keptStores = new WeakMap<CacheStore, CacheStore>();

/**
 * Where pins and grants go over `store`: the store itself, or, when it evicts, a memory
 * store of their own (the same one for every user of `store`).
 *
 * @param store The store given.
 * @returns A store that does not evict.
 */
export function keptStore(store: CacheStore): CacheStore {
  if (store.evicts !== true) return store;
  let kept = keptStores.get(store);
  if (kept === undefined) {
    kept = memoryStore({ maxEntries: Infinity });
    keptStores.set(store, kept);
  }
  return kept;
}

/**
 * The "always" grants.
 *
 * @param store Where they are kept.
 * @param warn Receives store failures: a grant that cannot be read is not there (the approver
 *   is asked), one that cannot be written lasts for this call.
 * @returns Lookup and record.
 */
export function createGrants(given: CacheStore, warn: (message: string) => void): {
  has(server: string, principal: string | undefined, tool: string): Promise<boolean>;
  add(server: string, principal: string | undefined, tool: string): Promise<void>;
} {
  const store = keptStore(given);
  const key = (server: string, principal: string | undefined, tool: string) => [
    GRANTS,
    server,
    // Calls made for nobody in particular share one set of grants.
    principal === undefined ? "" : `p:${principal}`,
    tool,
  ];
  return {
    async has(server, principal, tool) {
      try {
        return (await store.get(key(server, principal, tool))) === true;
      } catch (error) {
        warn(`reading an "always" grant failed: ${String((error as Error)?.message ?? error)}`);
        return false;
      }
    },
    async add(server, principal, tool) {
      try {
        await store.set(key(server, principal, tool), true, Infinity);
      } catch (error) {
        warn(`keeping an "always" grant failed: ${String((error as Error)?.message ?? error)}`);
      }
    },
  };
}

/** A tool's pin status: pinned as it is, or held with what changed. */
export type PinStatus = { held: false } | { held: true; change: ToolChange };

interface StoredPin {
  fingerprint: string;
  definition: PinnedDefinition;
}

/**
 * The pins.
 *
 * @param store Where they are kept.
 * @param warn Receives each change once.
 * @returns Checking a definition (pinning it when new) and accepting a change.
 */
export function createPins(given: CacheStore, warn: (message: string) => void): {
  status(tool: Tool, server: string): Promise<PinStatus>;
  known(tool: Tool): PinStatus | undefined;
  accept(tool: Tool, server: string): Promise<void>;
} {
  const store = keptStore(given);
  const statuses = new WeakMap<Tool, PinStatus>();
  const warned = new Set<string>();
  // What this governance pinned, by server and name: the pin when the store lost it.
  const remembered = new Map<string, Map<string, StoredPin>>();
  const key = (server: string, name: string) => [PINS, server, name];
  const remember = (server: string, name: string, stored: StoredPin) => {
    let names = remembered.get(server);
    if (names === undefined) remembered.set(server, names = new Map());
    names.set(name, stored);
  };
  const pin = async (tool: Tool, server: string, print: string) => {
    const stored: StoredPin = { fingerprint: print, definition: pinnedPart(tool) };
    remember(server, tool.name, stored);
    await store.set(key(server, tool.name), stored, Infinity);
  };
  const read = async (server: string, name: string): Promise<StoredPin | undefined> => {
    const found = await store.get(key(server, name)) as StoredPin | undefined;
    if (typeof found === "object" && found !== null && typeof found.fingerprint === "string") {
      return found;
    }
    return remembered.get(server)?.get(name);
  };
  return {
    known: (tool) => statuses.get(tool),
    async status(tool, server) {
      const seen = statuses.get(tool);
      // A held status is checked again: the change may have been accepted since.
      if (seen !== undefined && !seen.held) return seen;
      const print = await fingerprint(tool);
      const stored = await read(server, tool.name);
      let status: PinStatus;
      if (stored === undefined || stored.fingerprint === print) {
        // First use, or unchanged (written again when the store had lost it).
        await pin(tool, server, print);
        status = { held: false };
      } else {
        const entries = diffDefinitions(stored.definition, pinnedPart(tool));
        const diff = describeChanges(tool.name, entries);
        const change = {
          name: tool.name,
          server,
          before: stored.fingerprint,
          after: print,
          entries,
          diff,
        };
        status = { held: true, change };
        const once = `${server}\u0000${tool.name}\u0000${print}`;
        if (!warned.has(once)) {
          warned.add(once);
          warn(`${diff}\nIt is held (hidden, and refused on call) until the change is accepted.`);
        }
      }
      statuses.set(tool, status);
      return status;
    },
    async accept(tool, server) {
      await pin(tool, server, await fingerprint(tool));
      statuses.set(tool, { held: false });
    },
  };
}

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
 * Pins are bounded: each lasts 180 days unused (written again, for as long, when used a day
 * after it was written), a server has at most 2 000 (a tool past them is held: not shown,
 * refused on call, until the approver or a hook accepts it), and a complete listing (the
 * client's `listAllTools`) drops the pins of the tools it no longer has. A hub's merged
 * listing drops none: a member's own governance may have filtered it for the caller.
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
    kept = memoryStore({ maxEntries: Infinity, maxBytes: Infinity });
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
  /** When it was last written (ms since the epoch). */
  at?: number;
}

/** How long a pin lasts unused: it is written again, for as long, when used a day later. */
export const PIN_TTL = 180 * 86_400_000;
const REFRESH_AFTER = 86_400_000;
/** The most pins one server has: a tool past it is held (not shown, refused on call). */
export const MAX_PINS_PER_SERVER = 2_000;

/**
 * The pins.
 *
 * @param store Where they are kept.
 * @param warn Receives each change once.
 * @returns Checking a definition (pinning it when new), accepting a change, and dropping
 *   the pins of tools a complete listing no longer has.
 */
export function createPins(given: CacheStore, warn: (message: string) => void): {
  status(tool: Tool, server: string): Promise<PinStatus>;
  known(tool: Tool): PinStatus | undefined;
  accept(tool: Tool, server: string): Promise<void>;
  prune(tools: readonly Tool[], server: string): Promise<void>;
} {
  const store = keptStore(given);
  const statuses = new WeakMap<Tool, PinStatus>();
  const warned = new Set<string>();
  // What this governance pinned, by server and name: the pin when the store lost it. `live`:
  // pinned now (counted against the cap); a dropped pin is remembered (up to the cap again)
  // so a tool removed and listed again changed is still held in this process.
  const remembered = new Map<
    string,
    { names: Map<string, { pin: StoredPin; live: boolean }>; live: number }
  >();
  const key = (server: string, name: string) => [PINS, server, name];
  const serverOf = (server: string) => {
    let kept = remembered.get(server);
    if (kept === undefined) remembered.set(server, kept = { names: new Map(), live: 0 });
    return kept;
  };
  const pin = async (tool: Tool, server: string, print: string) => {
    const stored: StoredPin = { fingerprint: print, definition: pinnedPart(tool), at: Date.now() };
    const kept = serverOf(server);
    if (kept.names.get(tool.name)?.live !== true) kept.live++;
    kept.names.delete(tool.name);
    kept.names.set(tool.name, { pin: stored, live: true });
    await store.set(key(server, tool.name), stored, PIN_TTL);
  };
  /** The pin: from the store, else the one remembered (`lost`: the store no longer has it). */
  const read = async (server: string, name: string) => {
    const found = await store.get(key(server, name)) as StoredPin | undefined;
    if (typeof found === "object" && found !== null && typeof found.fingerprint === "string") {
      return { stored: found, lost: false };
    }
    return { stored: remembered.get(server)?.names.get(name)?.pin, lost: true };
  };
  const report = (tool: Tool, server: string, print: string, change: ToolChange, why: string) => {
    const once = `${server}\u0000${tool.name}\u0000${print}`;
    if (!warned.has(once)) {
      warned.add(once);
      warn(`${why}\nIt is held (hidden, and refused on call) until the change is accepted.`);
    }
    return { held: true as const, change };
  };
  return {
    known: (tool) => statuses.get(tool),
    async status(tool, server) {
      const seen = statuses.get(tool);
      // A held status is checked again: the change may have been accepted since.
      if (seen !== undefined && !seen.held) return seen;
      const print = await fingerprint(tool);
      const { stored, lost } = await read(server, tool.name);
      let status: PinStatus;
      if (stored === undefined) {
        if (serverOf(server).live >= MAX_PINS_PER_SERVER) {
          const diff = `tool "${tool.name}" is not pinned: the server has ${MAX_PINS_PER_SERVER} ` +
            "pinned tools already";
          const change = { name: tool.name, server, before: "", after: print, entries: [], diff };
          status = report(tool, server, print, change, diff);
        } else {
          await pin(tool, server, print);
          status = { held: false };
        }
      } else if (stored.fingerprint === print) {
        // Unchanged: written again (for as long) when a day old, or when the store lost it.
        const fresh = typeof stored.at === "number" && Date.now() - stored.at < REFRESH_AFTER;
        const counted = remembered.get(server)?.names.get(tool.name)?.live === true;
        if (lost || !fresh || !counted) await pin(tool, server, print);
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
        status = report(tool, server, print, change, diff);
      }
      statuses.set(tool, status);
      return status;
    },
    async accept(tool, server) {
      await pin(tool, server, await fingerprint(tool));
      statuses.set(tool, { held: false });
    },
    async prune(tools, server) {
      const listed = new Set(tools.map((tool) => tool.name));
      const kept = serverOf(server);
      for (const [name, entry] of kept.names) {
        if (!entry.live || listed.has(name)) continue;
        entry.live = false;
        kept.live--;
        await store.delete(key(server, name));
      }
      // The dropped pins remembered are bounded too: the oldest go first.
      let dropped = kept.names.size - kept.live;
      for (const [name, entry] of kept.names) {
        if (dropped <= MAX_PINS_PER_SERVER) break;
        if (entry.live) continue;
        kept.names.delete(name);
        dropped--;
      }
    },
  };
}

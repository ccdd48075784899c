/**
 * Private: a hub's catalogue snapshot. What a first search needs of the stored catalogues —
 * each server's tool names, where its catalogue is kept, when it was taken, and the name of
 * the search index built over them all — is kept in one small value, so a fresh process
 * ranks without reading each server's catalogue (nor making each server's key's digests):
 * it reads the snapshot and the index, and then the catalogues of the servers whose tools it
 * returns, checked as any stored catalogue is (`_tool_search.ts`).
 *
 * The snapshot is named by one digest over every server's entry, so only a hub of the same
 * servers (the same names, command lines, `env` and working directories) reads it. Only a
 * hub whose every entry is a plain stdio entry (a `command`, as a config file gives it) has
 * one: what names another transport's server may change without its entry changing (an
 * OAuth login). The value is untrusted like any stored value: checked here (shape, names,
 * keys naming the hub's own servers), and a catalogue read through it must have the
 * snapshot's names and `takenAt`, else the hub reads every catalogue as before.
 *
 * @module
 */

import { nameDigest } from "./_digest.ts";
import { isToolName, MAX_STORED_TOOLS, type StoredCatalogue } from "./_stored_check.ts";

/** One server in a snapshot, in the hub's order. */
export interface SnapshotServer {
  /** The key its catalogue is kept under. */
  key: string[];
  /** When its catalogue was taken (epoch ms). */
  takenAt: number;
  /** Its catalogue's ttl. */
  ttlMs: number;
  /** Its tools' own names, in its catalogue's order. */
  names: string[];
}

/** A hub's snapshot of its stored catalogues. */
export interface Snapshot {
  /** The format's version (1). */
  v: 1;
  /** The digest naming the stored search index over the servers' tools, in this order. */
  index: string;
  /** The servers, in the hub's order. */
  servers: SnapshotServer[];
}

/** The format of the snapshot's name (a change names every snapshot anew). */
const FORMAT = 1;
/**
 * The most characters of a snapshot as JSON, well within a Deno KV value (more is not kept:
 * the catalogues are read). 70 servers with 527 tools take about 22 000.
 */
export const MAX_SNAPSHOT_CHARS = 48_000;
const MAX_KEY_PART = 256;
const INDEX_NAME = /^[0-9a-f]{32}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether a value is plain JSON data (strings, finite numbers, booleans, null, arrays, objects). */
function plain(value: unknown, depth = 0): boolean {
  if (depth > 8) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => plain(item, depth + 1));
  if (typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((item) => item === undefined || plain(item, depth + 1));
}

/**
 * The name of a hub's snapshot: one digest over every server's name and entry, or
 * `undefined` when an entry is not a plain stdio entry.
 *
 * @param entries Each server's name and entry, in the hub's order.
 * @returns The name.
 */
export async function snapshotName(
  entries: readonly (readonly [string, unknown])[],
): Promise<string | undefined> {
  for (const [, entry] of entries) {
    if (
      !isRecord(entry) || typeof entry.command !== "string" || "url" in entry ||
      "transport" in entry || !plain(entry)
    ) {
      return undefined;
    }
  }
  // Plain data: its JSON is the same text for the same entries in the same order (a config
  // written in another order names another snapshot, which is then made again).
  return await nameDigest(JSON.stringify([FORMAT, entries]));
}

/**
 * Checks a snapshot read from the store against the hub's servers.
 *
 * @param value What the store returned.
 * @param servers The hub's server names, in order.
 * @param now The current time.
 * @returns The snapshot, or why it is refused.
 */
export function checkSnapshot(
  value: unknown,
  servers: readonly string[],
  now: number,
): Snapshot | string {
  if (!isRecord(value)) return "not an object";
  const { v, index, servers: listed } = value;
  if (v !== 1) return "an unknown version";
  if (typeof index !== "string" || !INDEX_NAME.test(index)) return "no valid index name";
  if (!Array.isArray(listed) || listed.length !== servers.length) {
    return "another number of servers";
  }
  let tools = 0;
  for (let i = 0; i < listed.length; i++) {
    const server = listed[i];
    if (!isRecord(server)) return `server ${i}: not an object`;
    const { key, takenAt, ttlMs, names } = server;
    if (
      !Array.isArray(key) || key.length !== 4 || key[0] !== "hub-catalogue" ||
      key[1] !== servers[i] ||
      !key.every((part) => typeof part === "string" && part.length <= MAX_KEY_PART)
    ) {
      return `server ${i}: no valid key`;
    }
    if (typeof takenAt !== "number" || !Number.isFinite(takenAt) || takenAt > now + 60_000) {
      return `server ${i}: no valid takenAt`;
    }
    if (typeof ttlMs !== "number" || !(ttlMs > 0)) return `server ${i}: no valid ttlMs`;
    if (!Array.isArray(names) || (tools += names.length) > MAX_STORED_TOOLS) {
      return `server ${i}: no valid names`;
    }
    const seen = new Set<string>();
    for (const name of names) {
      if (!isToolName(name) || seen.has(name)) return `server ${i}: no valid names`;
      seen.add(name);
    }
  }
  return { v, index, servers: listed } as Snapshot;
}

/**
 * Whether a catalogue read through a snapshot is the one the snapshot was made from: the
 * same `takenAt` and the same names in the same order.
 *
 * @param catalogue The catalogue.
 * @param server The snapshot's server.
 * @returns Whether they agree.
 */
export function agrees(catalogue: StoredCatalogue, server: SnapshotServer): boolean {
  const { tools } = catalogue;
  return catalogue.takenAt === server.takenAt && tools.length === server.names.length &&
    tools.every((tool, i) => tool.name === server.names[i]);
}

/**
 * Private: the hub's stored catalogues (loaded by the hub only when it keeps them). Each
 * server's last complete `tools/list` is kept in the hub's `cache` store under a key naming
 * the server (its hub name, and its transport's digest of the URL or command line and the
 * credentials' identity, so another configuration never reads it) with when it was taken,
 * how long it took, its `ttlMs` and each tool's pin fingerprint. The store's value is
 * untrusted input like a server's answer: a value that is not a well-formed catalogue
 * (shape, sizes, names, fingerprints) is ignored with a warning, and its server is asked
 * again. The built search index is kept too, under a digest of the catalogue it indexes
 * (`_find.ts`: made from the tools' pin fingerprints, so naming it cuts no tool), as plain
 * values in parts a Deno KV value holds; a process that reads it searches without cutting
 * any tool. (Values of an earlier format, with each tool's tokenised form beside it, are
 * read as catalogues and the forms left out.) What a value must be to be taken as a
 * catalogue is `_stored_check.ts`'s; the hub's snapshot of its catalogues (`_snapshot.ts`)
 * is kept here too, under one digest of the hub's entries.
 *
 * @module
 */

import { type CacheStore, readMany } from "../cache/store.ts";
import type { Tool } from "../client/types.ts";
import { fingerprint } from "../governance/pin.ts";
import type { Transport } from "../transports/transport.ts";
import type { IndexData } from "./search.ts";
import { indexParts, joinParts } from "./_postings.ts";
import { checkStored, MAX_STORED_BYTES, type StoredCatalogue } from "./_stored_check.ts";

export {
  checkStored,
  isToolName,
  MAX_STORED_BYTES,
  MAX_STORED_TOOLS,
  type StoredCatalogue,
} from "./_stored_check.ts";

/** The first part of a stored search index's key (the second is its catalogue's digest). */
const INDEX_KEY = "hub-search-index";
/** The first part of a hub's snapshot's key (the second names the hub's servers). */
const SNAPSHOT_KEY = "hub-catalogue-snapshot";
/** The most parts of a stored index. */
const MAX_PARTS = 1_000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The stored catalogues of a hub's servers. */
export interface CatalogueStore {
  /** The server's catalogue: kept in memory once read; `undefined` when none is valid. */
  load(server: string): Promise<StoredCatalogue | undefined>;
  /**
   * Reads the catalogues of the servers not in memory in one read of the store (its
   * `getMany`, else a `get` per key), for the `load`s that follow (each value is taken once;
   * the next prefetch drops any left). `keys`, when given, are the servers' keys (known
   * already: their digests are not made again).
   */
  prefetch(servers: readonly string[], keys?: readonly (readonly string[])[]): Promise<void>;
  /** The key a server's catalogue is kept under (its transport's digests). */
  key(server: string): Promise<string[]>;
  /** The hub's stored snapshot by its name (`_snapshot.ts`), unchecked; `undefined` when none. */
  readSnapshot(name: string): Promise<unknown>;
  /** Keeps the hub's snapshot under its name for the catalogues' ttl. */
  writeSnapshot(name: string, value: unknown): Promise<void>;
  /** The catalogue in memory, if read or saved already. */
  peek(server: string): StoredCatalogue | undefined;
  /** Whether a catalogue is within its ttl. */
  fresh(catalogue: StoredCatalogue): boolean;
  /**
   * Keeps a server's complete listing (unless it is the one kept already, still fresh).
   * A store that fails is reported and does not fail the listing.
   */
  save(server: string, tools: Tool[], tookMs: number): Promise<void>;
  /** Forgets the server's catalogue in memory (a `list_changed`): the next save writes. */
  stale(server: string): void;
  /**
   * The pin fingerprint of a tool of a catalogue read or saved here (the tool or a copy of
   * it under another name: the same input schema object, title and description), else
   * `undefined`.
   */
  printOf(tool: Tool): string | undefined;
  /**
   * The search index stored for a catalogue (by its digest; in parts), joined but
   * unchecked; `undefined` when none or incomplete (or the store fails: reported).
   */
  loadIndex(digest: string): Promise<unknown>;
  /** Keeps the search index of a catalogue (by its digest) for the catalogues' ttl. */
  saveIndex(digest: string, data: IndexData): Promise<void>;
}

/** What the catalogue store needs. */
export interface CatalogueStoreOptions {
  /** The store. */
  store: CacheStore;
  /** Each catalogue's ttl. */
  ttlMs: number;
  /** Each server's transport (for its key). */
  transports: ReadonlyMap<string, Transport>;
  /** Where diagnostics go. */
  warn(message: string): void;
}

const sameListing = (a: readonly Tool[], b: readonly Tool[]) =>
  a.length === b.length && a.every((tool, i) => tool === b[i]);

/**
 * Creates the stored catalogues over a store.
 *
 * @param options The store, the ttl, the servers' transports and the warning sink.
 * @returns The catalogues.
 */
export function createCatalogueStore(options: CatalogueStoreOptions): CatalogueStore {
  const { store, ttlMs, warn } = options;
  const memory = new Map<string, StoredCatalogue>();
  // The listing (by identity) each catalogue was saved from: the same listing is not saved twice.
  const savedFrom = new Map<string, readonly Tool[]>();
  const keys = new Map<string, Promise<string[]>>();
  const stale = new Set<string>();
  // Values read ahead by `prefetch`, each taken by the next `load` of its server.
  const ahead = new Map<string, Promise<unknown>>();
  // Each tool's fingerprint, by its input schema object (copies under hub names keep it).
  const prints = new WeakMap<object, { tool: Tool; print: string }>();
  const remember = (tools: readonly Tool[], fingerprints: readonly string[]) => {
    tools.forEach((tool, i) => {
      if (isRecord(tool.inputSchema)) {
        prints.set(tool.inputSchema, { tool, print: fingerprints[i] });
      }
    });
  };

  const keyOf = (server: string) => {
    let key = keys.get(server);
    if (key === undefined) {
      const transport = options.transports.get(server);
      key = (async () => {
        // The key names the server and the identity: the endpoint's digest is not made.
        const target = await transport?.cacheTarget?.({ endpoint: false }).catch(() => undefined);
        return [
          "hub-catalogue",
          server,
          target?.server ?? `local:${crypto.randomUUID()}`,
          target?.identity ?? "",
        ];
      })();
      keys.set(server, key);
    }
    return key;
  };

  const fresh = (catalogue: StoredCatalogue) => Date.now() - catalogue.takenAt < catalogue.ttlMs;

  return {
    fresh,
    peek: (server) => memory.get(server),
    async load(server) {
      const kept = memory.get(server);
      if (kept !== undefined && fresh(kept)) return kept;
      let raw: unknown;
      try {
        const read = ahead.get(server);
        ahead.delete(server);
        raw = await (read ?? store.get(await keyOf(server)));
      } catch (error) {
        warn(`Reading the stored catalogue of "${server}" failed: ${error}`);
        return undefined;
      }
      if (raw === undefined) return undefined;
      const bounded = (store.maxValueChars ?? Infinity) <= MAX_STORED_BYTES;
      const checked = checkStored(raw, Date.now(), bounded);
      if (typeof checked === "string") {
        warn(`The stored catalogue of "${server}" is ignored: it has ${checked}`);
        return undefined;
      }
      if (!fresh(checked)) return undefined;
      remember(checked.tools, checked.fingerprints);
      memory.set(server, checked);
      return checked;
    },
    key: keyOf,
    async readSnapshot(name) {
      try {
        return await store.get([SNAPSHOT_KEY, name]);
      } catch (error) {
        warn(`Reading the stored catalogue snapshot failed: ${error}`);
        return undefined;
      }
    },
    async writeSnapshot(name, value) {
      try {
        await store.set([SNAPSHOT_KEY, name], value, ttlMs);
      } catch (error) {
        warn(`Storing the catalogue snapshot failed: ${error}`);
      }
    },
    async prefetch(servers, known) {
      // What an earlier read left untaken (its server started meanwhile) is not used later.
      ahead.clear();
      const wanted: string[] = [];
      const keyed: (readonly string[] | undefined)[] = [];
      servers.forEach((server, i) => {
        const kept = memory.get(server);
        if (kept !== undefined && fresh(kept)) return;
        wanted.push(server);
        keyed.push(known?.[i]);
      });
      if (wanted.length === 0) return;
      const all = Promise.all(wanted.map((server, i) => keyed[i] ?? keyOf(server)))
        .then((keys) => readMany(store, keys));
      // A failed read fails each load, which reports it.
      all.catch(() => {});
      wanted.forEach((server, i) => ahead.set(server, all.then((values) => values[i])));
      await all.catch(() => {});
    },
    async save(server, tools, tookMs) {
      const kept = memory.get(server);
      if (
        kept !== undefined && fresh(kept) && !stale.has(server) &&
        sameListing(savedFrom.get(server) ?? [], tools)
      ) {
        return;
      }
      const fingerprints = await Promise.all(tools.map((tool) => fingerprint(tool)));
      // Unchanged definitions that are still fresh: nothing to write.
      if (
        kept !== undefined && fresh(kept) && !stale.has(server) &&
        kept.fingerprints.length === fingerprints.length &&
        kept.fingerprints.every((print, i) => print === fingerprints[i])
      ) {
        savedFrom.set(server, tools);
        remember(tools, fingerprints);
        return;
      }
      stale.delete(server);
      const catalogue: StoredCatalogue = {
        v: 1,
        takenAt: Date.now(),
        ttlMs,
        tookMs: Math.max(0, Math.round(tookMs)),
        tools,
        fingerprints,
      };
      remember(tools, fingerprints);
      memory.set(server, catalogue);
      savedFrom.set(server, tools);
      try {
        await store.set(await keyOf(server), catalogue, ttlMs);
      } catch (error) {
        warn(`Storing the catalogue of "${server}" failed: ${error}`);
      }
    },
    stale(server) {
      stale.add(server);
    },
    printOf(tool) {
      const kept = isRecord(tool.inputSchema) ? prints.get(tool.inputSchema) : undefined;
      return kept !== undefined && kept.tool.title === tool.title &&
          kept.tool.description === tool.description
        ? kept.print
        : undefined;
    },
    async loadIndex(digest) {
      try {
        const head = await store.get([INDEX_KEY, digest]);
        if (!isRecord(head)) return undefined;
        const { parts } = head;
        if (
          typeof parts !== "number" || !Number.isInteger(parts) || parts < 1 || parts > MAX_PARTS
        ) {
          return undefined;
        }
        const read = await readMany(
          store,
          Array.from({ length: parts }, (_, i) => [INDEX_KEY, digest, String(i)]),
        );
        return joinParts(head, read);
      } catch (error) {
        warn(`Reading the stored search index failed: ${error}`);
        return undefined;
      }
    },
    async saveIndex(digest, data) {
      try {
        // In parts a Deno KV value holds; the head, written last, names them.
        const parts = indexParts(data);
        if (parts.length > MAX_PARTS) return;
        await Promise.all(
          parts.map((part, i) => store.set([INDEX_KEY, digest, String(i)], part, ttlMs)),
        );
        await store.set([INDEX_KEY, digest], { v: data.v, n: data.n, parts: parts.length }, ttlMs);
      } catch (error) {
        warn(`Storing the search index failed: ${error}`);
      }
    },
  };
}

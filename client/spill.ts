/**
 * Spilling (loaded only when a client or hub spills): a shaped result over budget, or one
 * holding media, is kept whole behind a handle bound to the caller's identity, written to
 * its store a chunk at a time (each chunk a piece, or a slice, of the text shaping measured:
 * the JSON of structured content is written once, never again for the store, and a file
 * store's pieces are let go of as they are written);
 * the model's text keeps its head and tail around one line naming the rest and how to read
 * it, and each media block's line names how to read its data. Reading it back is
 * `read_result.ts`'s.
 *
 * @module
 */

import { type CacheTarget, canonicalJson, digest, localName } from "../cache/digest.ts";
import { memoryStore } from "../cache/memory.ts";
import { createSpillStore, newHandle, type SpillStore } from "../cache/spill_store.ts";
import type { CacheStore } from "../cache/store.ts";
import {
  approxTokens,
  checkResult,
  fitSegments,
  project,
  type Projection,
  segmentText,
  type ShapedResult,
  shapeProjected,
  type SpillConfig,
  totalLength,
} from "../governance/shape.ts";
import { READ_RESULT } from "../governance/shape_names.ts";
import type { ToolResult } from "./shapes.ts";

const stores = new WeakMap<CacheStore, SpillStore>();

/**
 * The owner of results spilled for a target and principal: a digest of the server, the
 * credentials' identity (as the cache names it) and the principal.
 *
 * @param target The server and the credentials' identity.
 * @param unnamed The name of an identity the target cannot name (the caller's own).
 * @param principal The principal.
 * @returns A digest.
 */
export function spillOwner(
  target: CacheTarget,
  unnamed: string,
  principal: string | undefined,
): Promise<string> {
  return digest(
    canonicalJson(["spill", target.server, target.identity ?? unnamed, principal ?? null]),
  );
}

/**
 * What names a client's server and credentials for its spills: the transport's cache
 * target, or this transport object's own name with a local identity.
 *
 * @param transport The client's transport.
 * @returns The target.
 */
export function spillTarget(
  transport: { cacheTarget?(): Promise<CacheTarget> },
): Promise<CacheTarget> {
  return transport.cacheTarget?.() ??
    Promise.resolve({ server: localName(transport), identity: "local" });
}

/**
 * The result store of a spill setting (one per store, for the process).
 *
 * @param config The store and its limits.
 * @returns The result store.
 */
export function spillStoreOf(config: SpillConfig): SpillStore {
  let found = stores.get(config.store);
  if (found === undefined || found.maxChars !== config.maxBytes) {
    found = createSpillStore(config.store, { ttlMs: config.ttlMs, maxBytes: config.maxBytes });
    stores.set(config.store, found);
  }
  return found;
}

/**
 * The memory store of `spill: true`: no entry count bound, 128 MiB.
 *
 * @returns The store.
 */
export function ownMemoryStore(): CacheStore {
  return memoryStore({ maxEntries: Infinity, maxBytes: 128 * 1024 * 1024 });
}

/**
 * Shapes a result, spilling it when it is over budget or holds media.
 *
 * @param result The tool result.
 * @param maxChars The budget.
 * @param store Where it is kept.
 * @param owner The owner (a digest of the caller's identity).
 * @param ttlMs How long it is kept.
 * @returns The shaped result, with `spilled` when kept.
 */
export async function spillResult(
  result: ToolResult,
  maxChars: number,
  store: SpillStore,
  owner: string,
  ttlMs: number,
): Promise<ShapedResult> {
  checkResult(result);
  const handle = newHandle();
  const projection = project(result, {
    mediaHint: (i) => `; its base64: ${READ_RESULT} {"handle":"${handle}","media":${i}}`,
  });
  const { segments, isError, media } = projection;
  const total = totalLength(segments);
  if (total <= maxChars && media.length === 0) {
    const text = segments.map(segmentText).join("\n");
    return { text, isError, approxTokens: approxTokens(text), cutChars: 0 };
  }
  const json = jsonPart(projection);
  let size = total + (json?.apart ?? 0);
  for (const data of media) size += data.length;
  const expiresAt = Date.now() + ttlMs;
  const notice = (head: number, tail: number) =>
    `[… ${tail - head} more characters (offset ${head} to ${tail} of ${total}) kept as ` +
    `${handle}: read them with ${READ_RESULT} {"handle":"${handle}","offset":${head}}, or ` +
    `grep or jsonPath …]`;
  // Fitted first: the store is then handed the pieces to let go of as it writes them.
  const fitted = total <= maxChars
    ? { text: segments.map(segmentText).join("\n"), headEnd: total, tailStart: total }
    : fitSegments(segments, maxChars, notice);
  const parts = { text: uncut(projection), json: json?.part, media, size };
  if (!await store.put(owner, handle, parts, ttlMs)) {
    // Not kept: no line may name the handle.
    return shapeProjected(project(result), maxChars, "too big to keep");
  }
  const spilled = {
    handle,
    chars: total,
    restOffset: fitted.headEnd,
    restChars: fitted.tailStart - fitted.headEnd,
    expiresAt,
    ...(media.length > 0 ? { media: media.length } : {}),
  };
  return {
    text: fitted.text,
    isError,
    approxTokens: approxTokens(fitted.text),
    cutChars: fitted.tailStart - fitted.headEnd,
    spilled,
    _meta: { "conduit/spill": { ...spilled } },
  };
}

/**
 * The uncut text, a segment (or a piece of a big JSON segment) at a time. Pieces kept in
 * an array are let go of as they are handed out (the projection is not read again), so a
 * store that does not keep them (a file store) never holds them all.
 */
function* uncut(projection: Projection): Generator<string> {
  for (const [i, s] of projection.segments.entries()) {
    if (i > 0) yield "\n";
    if (s.text !== undefined) yield s.text;
    else yield* handOver(s.pieces?.() ?? []);
  }
}

/** The pieces, each let go of by an array holding them once it is handed out. */
function* handOver(pieces: Iterable<string>): Generator<string> {
  if (!Array.isArray(pieces)) return yield* pieces;
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    pieces[i] = "";
    yield piece;
  }
}

/**
 * The JSON text `jsonPath` reads: where it sits in the uncut text, or (structured content
 * that sanitising changed) its own text, in pieces.
 */
function jsonPart(
  projection: Projection,
): { part: Iterable<string> | { at: number; length: number }; apart: number } | undefined {
  const { segments, jsonSegment, jsonApart } = projection;
  if (jsonSegment !== undefined) {
    let at = 0;
    for (let i = 0; i < jsonSegment; i++) at += segments[i].length + 1;
    return { part: { at, length: segments[jsonSegment].length }, apart: 0 };
  }
  if (jsonApart === undefined) return undefined;
  return { part: handOver(jsonApart.pieces()), apart: jsonApart.length };
}

/**
 * The `server/discover` result: its shape test and its validation.
 *
 * @module
 */

import { isObject } from "./json.ts";

/**
 * A validated `server/discover` result, normalised by {@linkcode parseDiscoverResult}.
 *
 * Caching fields the server left out read as "do not cache": `ttlMs` becomes `0` (already
 * stale) and `cacheScope` becomes `"private"` (never shared across authorization contexts).
 * Members the server sent beyond these are kept as they came.
 */
export interface DiscoverResult {
  /** Always `"complete"` (an absent `resultType` means complete). */
  resultType: "complete";
  /** The versions the server supports, as it listed them (non-empty). */
  supportedVersions: string[];
  /** The server's capabilities (`ServerCapabilities`). */
  capabilities: Record<string, unknown>;
  /** Guidance for the model, when the server gave some. */
  instructions?: string;
  /** How long the result stays fresh, in milliseconds; `0` when the server gave none. */
  ttlMs: number;
  /** Who may share a cached copy; `"private"` when the server gave none. */
  cacheScope: "public" | "private";
  /** Result metadata, e.g. `io.modelcontextprotocol/serverInfo`. */
  _meta?: Record<string, unknown>;
}

/** The outcome of {@linkcode parseDiscoverResult}. */
export type DiscoverParse =
  | { ok: true; result: DiscoverResult }
  | { ok: false; reason: string };

/**
 * Whether a result claims to be a `DiscoverResult`: an object with a `resultType` or a
 * `supportedVersions` member. A legacy server's answer to an unknown method has neither.
 *
 * @param value A JSON-RPC result.
 * @returns `true` when the value looks like a `DiscoverResult` (valid or not).
 *
 * @example
 * ```ts
 * import { isDiscoverShaped } from "./discover.ts";
 *
 * if (!isDiscoverShaped({ supportedVersions: "oops" })) throw new Error("expected shaped");
 * if (isDiscoverShaped({ serverInfo: {} })) throw new Error("expected not shaped");
 * ```
 */
export function isDiscoverShaped(value: unknown): boolean {
  return isObject(value) &&
    (value.resultType !== undefined || value.supportedVersions !== undefined);
}

/**
 * Validates and normalises a `server/discover` result. `supportedVersions` must be a
 * non-empty array of strings, `capabilities` an object, `resultType` `"complete"` or absent,
 * `ttlMs` (when present) a finite number ≥ 0, `cacheScope` (when present) `"public"` or
 * `"private"`, `instructions` (when present) a string and `_meta` (when present) an object.
 * An absent `ttlMs` becomes `0` and an absent `cacheScope` `"private"`. Never throws.
 *
 * @param value A JSON-RPC result.
 * @returns The normalised result, or why it is invalid.
 *
 * @example
 * ```ts
 * import { parseDiscoverResult } from "./discover.ts";
 *
 * const parsed = parseDiscoverResult({ supportedVersions: ["2026-07-28"], capabilities: {} });
 * if (!parsed.ok || parsed.result.ttlMs !== 0 || parsed.result.cacheScope !== "private") {
 *   throw new Error("expected defaults");
 * }
 * if (parseDiscoverResult({ supportedVersions: [], capabilities: {} }).ok) throw new Error();
 * ```
 */
export function parseDiscoverResult(value: unknown): DiscoverParse {
  if (!isObject(value)) return { ok: false, reason: "the result is not an object" };
  const { resultType, supportedVersions, capabilities, ttlMs, cacheScope } = value;
  if (resultType !== undefined && resultType !== "complete") {
    return { ok: false, reason: 'resultType must be "complete"' };
  }
  if (
    !Array.isArray(supportedVersions) || supportedVersions.length === 0 ||
    !supportedVersions.every((version) => typeof version === "string")
  ) {
    return { ok: false, reason: "supportedVersions must be a non-empty array of strings" };
  }
  if (!isObject(capabilities)) return { ok: false, reason: "capabilities must be an object" };
  if (ttlMs !== undefined && (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs < 0)) {
    return { ok: false, reason: "ttlMs must be a finite number >= 0" };
  }
  if (cacheScope !== undefined && cacheScope !== "public" && cacheScope !== "private") {
    return { ok: false, reason: 'cacheScope must be "public" or "private"' };
  }
  if (value.instructions !== undefined && typeof value.instructions !== "string") {
    return { ok: false, reason: "instructions must be a string" };
  }
  if (value._meta !== undefined && !isObject(value._meta)) {
    return { ok: false, reason: "_meta must be an object" };
  }
  return {
    ok: true,
    result: {
      ...value,
      resultType: "complete",
      supportedVersions: [...supportedVersions],
      capabilities,
      ttlMs: ttlMs ?? 0,
      cacheScope: cacheScope ?? "private",
    } as DiscoverResult,
  };
}

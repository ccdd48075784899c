/**
 * Protocol versions and eras.
 *
 * @module
 */

/** The first modern protocol version: stateless, `server/discover`, per-request `_meta`. */
export const MODERN_VERSION = "2026-07-28";

/**
 * Every protocol version this client speaks, newest first. 2025-03-26, the oldest, is offered
 * last: many servers in use still answer only that one (without `structuredContent`,
 * `outputSchema`, `title` or elicitation, which came in 2025-06-18).
 */
export const SUPPORTED_VERSIONS: readonly string[] = Object.freeze([
  "2026-07-28",
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
]);

/** A protocol era: `modern` (2026-07-28 and later) or `legacy` (the `initialize` handshake). */
export type Era = "modern" | "legacy";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(version: string): boolean {
  const match = DATE.exec(version);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day;
}

/**
 * The era of a protocol version string: valid dates on or after 2026-07-28 are `modern`,
 * earlier dates `legacy`, anything else `unknown`.
 *
 * @param version A version string such as `"2025-11-25"`.
 * @returns The era, or `"unknown"`.
 *
 * @example
 * ```ts
 * import { era } from "./versions.ts";
 * if (era("2025-11-25") !== "legacy") throw new Error("expected legacy");
 * if (era("2026-07-28") !== "modern") throw new Error("expected modern");
 * if (era("latest") !== "unknown") throw new Error("expected unknown");
 * ```
 */
export function era(version: unknown): Era | "unknown" {
  if (typeof version !== "string" || !isCalendarDate(version)) return "unknown";
  return version >= MODERN_VERSION ? "modern" : "legacy";
}

/**
 * Every protocol version the client speaks, newest first (a fresh copy).
 *
 * @returns `["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]`.
 *
 * @example
 * ```ts
 * import { clientVersions } from "./versions.ts";
 * if (clientVersions()[0] !== "2026-07-28") throw new Error("expected the modern version first");
 * ```
 */
export function clientVersions(): string[] {
  return [...SUPPORTED_VERSIONS];
}

/**
 * Picks the version to use: the first entry of `client` (in the client's preference order)
 * that the server also lists, or `undefined` when there is none.
 *
 * @param server The versions the server supports.
 * @param client The client's versions, preferred first.
 * @returns The chosen version, or `undefined`.
 *
 * @example
 * ```ts
 * import { pickVersion } from "./versions.ts";
 * if (pickVersion(["2025-06-18", "2025-11-25"]) !== "2025-11-25") throw new Error();
 * if (pickVersion(["2024-11-05"]) !== undefined) throw new Error();
 * ```
 */
export function pickVersion(
  server: readonly unknown[],
  client: readonly string[] = SUPPORTED_VERSIONS,
): string | undefined {
  return client.find((version) => server.includes(version));
}

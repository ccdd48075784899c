/**
 * Private: the hub's own keys of a server entry (`start`, `idleMs`, `alwaysLoad`), checked
 * and taken off before the rest becomes the server's client options.
 *
 * @module
 */

import type { HubEntryOptions, HubServer, HubStart } from "./types.ts";

/** The keys of an entry the hub reads itself. */
export const ENTRY_KEYS: readonly string[] = ["start", "idleMs", "alwaysLoad"];

/**
 * Checks a `start` value.
 *
 * @param value The value.
 * @param where The option's name, for the error.
 * @returns The value.
 * @throws {TypeError} When it is not `"eager"` or `"lazy"`.
 */
export function checkStart(value: unknown, where: string): HubStart | undefined {
  if (value === undefined || value === "eager" || value === "lazy") return value;
  throw new TypeError(`${where} must be "eager" or "lazy"`);
}

/**
 * Checks an `idleMs` value.
 *
 * @param value The value.
 * @param where The option's name, for the error.
 * @returns The value.
 * @throws {TypeError} When it is not a positive number (or `Infinity`).
 */
export function checkIdle(value: unknown, where: string): number | undefined {
  if (value === undefined || (typeof value === "number" && value > 0)) return value;
  throw new TypeError(`${where} must be a positive number of milliseconds (or Infinity)`);
}

/**
 * Splits an entry into the hub's keys and what goes to the client.
 *
 * @param name The server's name.
 * @param entry The entry.
 * @returns The hub's keys (checked) and the entry without them.
 * @throws {TypeError} Naming the server and the bad key.
 */
export function splitEntry(
  name: string,
  entry: HubServer,
): { own: HubEntryOptions; entry: HubServer } {
  if (typeof entry !== "object" || entry === null || entry instanceof URL || "open" in entry) {
    return { own: {}, entry };
  }
  const record = entry as unknown as Record<string, unknown>;
  if (!ENTRY_KEYS.some((key) => key in record)) return { own: {}, entry };
  const { start, idleMs, alwaysLoad, ...rest } = record;
  const where = `hub servers.${name}`;
  const own: HubEntryOptions = {};
  const checkedStart = checkStart(start, `${where}.start`);
  if (checkedStart !== undefined) own.start = checkedStart;
  const checkedIdle = checkIdle(idleMs, `${where}.idleMs`);
  if (checkedIdle !== undefined) own.idleMs = checkedIdle;
  if (alwaysLoad !== undefined) {
    const ok = typeof alwaysLoad === "boolean" ||
      (Array.isArray(alwaysLoad) && alwaysLoad.every((n) => typeof n === "string" && n !== ""));
    if (!ok) {
      throw new TypeError(`${where}.alwaysLoad must be true, false or an array of tool names`);
    }
    own.alwaysLoad = alwaysLoad as boolean | string[];
  }
  return { own, entry: rest as unknown as HubServer };
}

/**
 * Private: one server entry of a hub turned into the options of its client: the transport
 * (built from a URL, a command, a `url` with headers, or taken as given) and the client
 * options the entry carries. Bad entries are `TypeError`s naming the server and the key.
 *
 * @module
 */

import type { ClientOptions } from "../client/types.ts";
import { stdio, STDIO_KEYS, type StdioOptions } from "../transports/stdio.ts";
import type { Transport } from "../transports/transport.ts";
import { httpOrTransport } from "../client/target.ts";
import type { HubServer } from "./types.ts";
import { CLIENT_OPTION_NAMES } from "../client/option_names.ts";
import { checkKeys } from "../protocol/option_keys.ts";

/** The keys of a stdio entry that go to the transport; the others are client options. */
const STDIO_TRANSPORT_KEYS = new Set(STDIO_KEYS);

/** The keys of an HTTP entry that go to the transport. */
const HTTP_KEYS = new Set(["url", "headers", "auth", "http"]);

/** A URL entry's (or an entry's `url`) transport, with the entry's HTTP options. */
function httpTransport(where: string, url: unknown, rest: Record<string, unknown>): Transport {
  if (typeof url !== "string" && !(url instanceof URL)) {
    throw new TypeError(`${where}.url must be a URL`);
  }
  const http = rest.http ?? {};
  if (typeof http !== "object" || http === null) {
    throw new TypeError(`${where}.http must be an object`);
  }
  const options: Record<string, unknown> = { ...http };
  if (rest.headers !== undefined) options.headers = rest.headers;
  if (rest.auth !== undefined) options.auth = rest.auth;
  const profile = rest.profile as string | undefined;
  return httpOrTransport(url, options, `${where}.url`, profile)!;
}

/**
 * The client options an entry may carry beside its transport's, and the hub's own
 * `maxResultChars` (the budget of the server's results shaped through the hub).
 */
const CLIENT_KEYS = [
  ...CLIENT_OPTION_NAMES.filter((key) => key !== "transport"),
  "maxResultChars",
];

/**
 * Checks an entry's keys against what an entry of its kind takes, so a misspelt key is named
 * with the nearest right one (`comand` → `command`) rather than as a client option.
 */
function checkEntry(record: Record<string, unknown>, kind: string, keys: Iterable<string>): void {
  // Each kind's set is made once (a hub of 70 servers checks 70 entries of one kind).
  let allowed = ALLOWED.get(kind);
  if (allowed === undefined) {
    ALLOWED.set(kind, allowed = new Set(["type", ...keys, ...CLIENT_KEYS]));
  }
  checkKeys(record, allowed, `this ${kind} entry`);
}

/** The keys each kind of entry takes, by kind (the kinds are fixed: their keys are too). */
const ALLOWED = new Map<string, Set<string>>();

function split(entry: Record<string, unknown>, keys: Set<string>) {
  const transport: Record<string, unknown> = {};
  const client: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (key === "type") continue;
    (keys.has(key) ? transport : client)[key] = value;
  }
  return { transport, client };
}

/**
 * The client options for one server entry.
 *
 * @param name The server's name.
 * @param entry What the caller gave for it.
 * @returns Its client options, with the transport.
 * @throws {TypeError} Naming the server and the bad key.
 */
export function clientOptionsFor(name: string, entry: HubServer): ClientOptions {
  const where = `hub servers.${name}`;
  if (typeof entry === "string" || entry instanceof URL) {
    return { transport: httpTransport(where, entry, {}) };
  }
  const given = typeof entry === "object" && entry !== null && !(entry instanceof URL)
    ? httpOrTransport(entry, undefined)
    : undefined;
  if (given !== undefined) return { transport: given };
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new TypeError(`${where} must be a URL, a { command } or { url } object or a transport`);
  }
  const record = entry as unknown as Record<string, unknown>;
  const type = record.type;
  if (type !== undefined && type !== "stdio" && type !== "http" && type !== "sse") {
    throw new TypeError(`${where}.type must be "stdio", "http" or "sse"`);
  }
  if ("transport" in record) {
    checkEntry(record, "transport", ["transport"]);
    const { transport, ...client } = record;
    const given = typeof transport === "object" ? httpOrTransport(transport, undefined) : undefined;
    if (given === undefined) throw new TypeError(`${where}.transport must be a transport`);
    return { ...client, transport: given } as unknown as ClientOptions;
  }
  if (record.command !== undefined || type === "stdio") {
    if (type !== undefined && type !== "stdio") {
      throw new TypeError(`${where} has a command, so its type must be "stdio"`);
    }
    checkEntry(record, "stdio", STDIO_KEYS);
    const parts = split(record, STDIO_TRANSPORT_KEYS);
    const transport = stdio(parts.transport as unknown as StdioOptions);
    return { ...parts.client, transport } as unknown as ClientOptions;
  }
  if (record.url !== undefined) {
    checkEntry(record, "url", HTTP_KEYS);
    const parts = split(record, HTTP_KEYS);
    // The entry's profile (a client option) also names its OAuth credentials' profile.
    const transport = httpTransport(where, record.url, {
      ...parts.transport,
      profile: record.profile,
    });
    return { ...parts.client, transport } as unknown as ClientOptions;
  }
  checkEntry(record, "server", [...STDIO_KEYS, ...HTTP_KEYS, "transport"]);
  throw new TypeError(`${where} needs a command, a url or a transport`);
}

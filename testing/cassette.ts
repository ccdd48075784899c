/**
 * Cassettes: a recorded session as NDJSON. The first line is the header
 * (`{"cassette":1,"transport":"stdio"}`); each further line is one entry: its direction, its
 * time in milliseconds since the recording began, and the message (ids, progress tokens, the
 * client's identity and timestamps normalised, credentials redacted).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { JsonRpcMessage, JsonRpcRequest } from "../protocol/jsonrpc.ts";
import type { TransportKind } from "../transports/transport.ts";

/** The raw outcome of an HTTP probe, with its body as text. */
export interface RecordedProbe {
  /** The HTTP status. */
  status: number;
  /** The `Content-Type`. */
  contentType: string | null;
  /** The body, as text. */
  body: string;
  /** `Retry-After` in milliseconds, if sent. */
  retryAfterMs?: number;
  /** The challenge, if sent. */
  challenge?: string;
}

/** One entry of a cassette. */
export type CassetteEntry =
  /** A link was opened. */
  | { dir: "open"; t: number }
  /** The client sent a message. */
  | { dir: "send"; t: number; message: JsonRpcMessage }
  /** The server sent a message. */
  | { dir: "recv"; t: number; message: JsonRpcMessage }
  /** An HTTP `server/discover` probe and its raw outcome. */
  | { dir: "probe"; t: number; message: JsonRpcRequest; outcome: RecordedProbe }
  /** The link ended from the server's side. */
  | { dir: "closed"; t: number; reason: string };

/** A parsed cassette. */
export interface Cassette {
  /** The kind of transport it was recorded on. */
  transport: TransportKind;
  /** Its entries, in order. */
  entries: CassetteEntry[];
}

/**
 * Writes a cassette as NDJSON.
 *
 * @param cassette The cassette.
 * @returns The text: the header line, then one line per entry, each ending in `\n`.
 *
 * @example
 * ```ts
 * import { formatCassette, parseCassette } from "./cassette.ts";
 *
 * const text = formatCassette({ transport: "stdio", entries: [{ dir: "open", t: 0 }] });
 * if (parseCassette(text).entries[0].dir !== "open") throw new Error("unexpected");
 * ```
 */
export function formatCassette(cassette: Cassette): string {
  const header = JSON.stringify({ cassette: 1, transport: cassette.transport });
  return [header, ...cassette.entries.map((entry) => JSON.stringify(entry))].join("\n") + "\n";
}

const DIRS = new Set(["open", "send", "recv", "probe", "closed"]);

/**
 * Reads a cassette written by {@linkcode formatCassette}.
 *
 * @param text The NDJSON text.
 * @returns The cassette.
 * @throws {McpError} kind `protocol`, reason `invalid_cassette`, naming the bad line.
 *
 * @example
 * ```ts
 * import { parseCassette } from "./cassette.ts";
 *
 * try {
 *   parseCassette("not a cassette");
 *   throw new Error("accepted");
 * } catch (error) {
 *   if ((error as { reason?: string }).reason !== "invalid_cassette") throw error;
 * }
 * ```
 */
export function parseCassette(text: string): Cassette {
  const fail = (line: number, why: string) =>
    new McpError(`Invalid cassette (line ${line}): ${why}`, {
      kind: "protocol",
      reason: "invalid_cassette",
    });
  const lines = text.split("\n").map((line) => line.trim());
  let header: { cassette?: unknown; transport?: unknown };
  try {
    header = JSON.parse(lines[0]);
  } catch {
    throw fail(1, "the header is not JSON");
  }
  if (
    header?.cassette !== 1 || !["stdio", "http", "in_process"].includes(header.transport as string)
  ) {
    throw fail(1, 'the header must be {"cassette":1,"transport":"stdio"|"http"|"in_process"}');
  }
  const entries: CassetteEntry[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!lines[i]) continue;
    let entry: CassetteEntry;
    try {
      entry = JSON.parse(lines[i]);
    } catch {
      throw fail(i + 1, "not JSON");
    }
    if (!DIRS.has((entry as { dir?: string })?.dir ?? "") || typeof entry.t !== "number") {
      throw fail(i + 1, "an entry needs dir and t");
    }
    entries.push(entry);
  }
  return { transport: header.transport as TransportKind, entries };
}

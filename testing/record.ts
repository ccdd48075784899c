/**
 * `record(transport, options)`: wraps any transport and keeps what went over it as a
 * cassette, normalised (ids, tokens, the client's identity, timestamps) and redacted.
 *
 * @module
 */

import type { JsonRpcMessage, JsonRpcRequest } from "../protocol/jsonrpc.ts";
import type { Transport, TransportLink } from "../transports/transport.ts";
import { type CassetteEntry, formatCassette, type RecordedProbe } from "./cassette.ts";
import { cleaner, normalizer, type RedactOptions, redactor } from "./_normalize.ts";

/** Options of {@linkcode record}. */
export interface RecordOptions extends RedactOptions {
  /** The clock (default `Date.now`). */
  now?: () => number;
  /**
   * `false` keeps the messages as they went (ids, progress tokens, the client's identity,
   * timestamps), only redacted: a view of the live wire rather than a cassette to replay.
   * Default `true`.
   */
  normalize?: boolean;
}

/** A transport that records: use it as any transport, then save `cassette()`. */
export interface Recording extends Transport {
  /** The entries so far. */
  readonly entries: CassetteEntry[];
  /** The cassette so far, as NDJSON. */
  cassette(): string;
}

const decoder = new TextDecoder();

function probeBody(body: Uint8Array, recv: (m: JsonRpcMessage) => JsonRpcMessage): string {
  const text = decoder.decode(body);
  try {
    return JSON.stringify(recv(JSON.parse(text)));
  } catch {
    return text.split("\n").map((line) => {
      if (!line.startsWith("data:")) return line;
      try {
        return `data: ${JSON.stringify(recv(JSON.parse(line.slice(5))))}`;
      } catch {
        return line;
      }
    }).join("\n");
  }
}

/**
 * Records every message over `transport` (and each HTTP probe) into a cassette.
 *
 * @param transport Any transport: stdio, Streamable HTTP, in-process.
 * @param options `redact`: secret values to take out (credential-named keys and bearer
 *   tokens are redacted anyway); `redactKeys` to change which keys count as credentials.
 * @returns The recording transport.
 *
 * @example Record a session, then check the cassette holds no secret
 * ```ts
 * import { mockServer, record } from "./mod.ts";
 * import { createClient } from "../mod.ts";
 *
 * const server = mockServer({ tools: [{ name: "whoami", handler: () => "key sk-123456789" }] });
 * const recording = record(server.transport(), { redact: ["sk-123456789"] });
 * {
 *   await using client = createClient({ transport: recording });
 *   await client.callTool("whoami", { apiKey: "sk-123456789" });
 * }
 * const cassette = recording.cassette();
 * if (cassette.includes("sk-123456789") || !cassette.includes('"tools/call"')) {
 *   throw new Error("unexpected cassette");
 * }
 * ```
 */
export function record(transport: Transport, options: RecordOptions = {}): Recording {
  if (typeof transport?.open !== "function") {
    throw new TypeError("record: transport must be a Transport");
  }
  const now = options.now ?? Date.now;
  const start = now();
  const entries: CassetteEntry[] = [];
  const norm = options.normalize === false ? redactor(options) : normalizer(options);
  const clean = cleaner(options, options.normalize !== false);
  const t = () => Math.max(0, Math.round(now() - start));
  const recording: Recording = {
    // What else the transport offers (setAuth, authorized, url, …) stays reachable.
    ...transport,
    kind: transport.kind,
    entries,
    cassette: () => formatCassette({ transport: transport.kind, entries }),
    async open(sink) {
      entries.push({ dir: "open", t: t() });
      const link = await transport.open({
        ...sink,
        message(message) {
          entries.push({ dir: "recv", t: t(), message: norm.recv(message) });
          sink.message(message);
        },
        closed(error) {
          entries.push({ dir: "closed", t: t(), reason: String(clean(error.reason)) });
          sink.closed(error);
        },
      });
      const wrapped: TransportLink = {
        send(message, sendOptions) {
          entries.push({ dir: "send", t: t(), message: norm.send(message) });
          return link.send(message, sendOptions);
        },
        setProtocol: (protocol) => link.setProtocol(protocol),
        close: () => link.close(),
      };
      if (link.probe) {
        wrapped.probe = async (request, probeOptions) => {
          const message = norm.send(request);
          const result = await link.probe!(request, probeOptions);
          const outcome: RecordedProbe = {
            status: result.status,
            contentType: result.contentType,
            body: probeBody(result.body, norm.recv),
          };
          if (result.retryAfterMs !== undefined) outcome.retryAfterMs = result.retryAfterMs;
          if (result.challenge !== undefined) outcome.challenge = String(clean(result.challenge));
          entries.push({ dir: "probe", t: t(), message: message as JsonRpcRequest, outcome });
          return result;
        };
      }
      return wrapped;
    },
  };
  return recording;
}

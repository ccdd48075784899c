/**
 * `replay(cassette)`: a transport that answers as the recorded server did. A request is matched
 * to the first unused recorded one with the same method and params (ids, `_meta` and timing do
 * not count); what the server sent after it is sent again, with the live ids and tokens. A
 * request the cassette does not hold fails with an `McpError` (reason `unexpected_request`).
 *
 * @module
 */

import { McpError } from "../protocol/errors.ts";
import type { JsonObject, JsonRpcId, JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { META_SUBSCRIPTION_ID } from "../protocol/meta.ts";
import type {
  HttpProbeResult,
  Transport,
  TransportLink,
  TransportSink,
} from "../transports/transport.ts";
import { type Cassette, type CassetteEntry, parseCassette } from "./cassette.ts";
import { objectOr } from "./_core.ts";
import { cleaner, matchParams, type RedactOptions } from "./_normalize.ts";

/** Options of {@linkcode replay}: the same redaction the recording used, so live params match. */
export interface ReplayOptions extends RedactOptions {
  /** Answer a request matching an already used entry again (default `false`: unexpected). */
  allowRepeats?: boolean;
}

/** A replaying transport, with what it could not match. */
export interface Replay extends Transport {
  /** Requests no recorded entry matched, as `method` and params. */
  readonly unexpected: { method: string; params: JsonObject }[];
  /** Recorded requests never asked for. */
  unused(): { method: string; params: JsonObject }[];
}

interface Step {
  index: number;
  entry: CassetteEntry;
  /** What the server sent after it (until the client's next message). */
  answers: CassetteEntry[];
  used: boolean;
}

const encoder = new TextEncoder();

/** The step a server message belongs to, by the id, progress token or listen it names. */
function ownerKey(message: JsonRpcMessage): string | undefined {
  if (!("method" in message)) {
    return "id" in message ? `id ${JSON.stringify(message.id)}` : undefined;
  }
  const params = objectOr(message.params);
  if (params?.progressToken !== undefined) return `token ${JSON.stringify(params.progressToken)}`;
  const listen = objectOr(params?._meta)?.[META_SUBSCRIPTION_ID];
  return listen === undefined ? undefined : `id ${JSON.stringify(listen)}`;
}

/**
 * Splits a cassette into steps (what the client sent) and what the server sent after each: a
 * server message goes with the request it answers (or whose progress or listen it carries),
 * unless the client answered a server request after that one (then with that answer, which
 * the server waited for); anything else goes with the latest step.
 */
function attribute(entries: CassetteEntry[], opens: CassetteEntry[][], steps: Step[]): void {
  const owners = new Map<string, Step>();
  let latest: CassetteEntry[] | undefined;
  let lastAnswer: Step | undefined; // the latest client response to a server request
  entries.forEach((entry, index) => {
    if (entry.dir === "open") {
      opens.push(latest = []);
      return;
    }
    if (entry.dir === "send" || entry.dir === "probe") {
      const step: Step = { index, entry, answers: [], used: false };
      steps.push(step);
      latest = step.answers;
      const m = entry.message;
      if (!("method" in m)) lastAnswer = step;
      else if ("id" in m) {
        owners.set(`id ${JSON.stringify(m.id)}`, step);
        const token = objectOr(objectOr(m.params)?._meta)?.progressToken;
        if (token !== undefined) owners.set(`token ${JSON.stringify(token)}`, step);
      }
      return;
    }
    const key = entry.dir === "recv" ? ownerKey(entry.message) : undefined;
    const owner = key === undefined ? undefined : owners.get(key);
    if (owner) {
      (lastAnswer && lastAnswer.index > owner.index ? lastAnswer : owner).answers.push(entry);
    } else (latest ??= opens[0] = []).push(entry);
  });
}

/**
 * A transport that replays a cassette.
 *
 * @param cassette The cassette: its NDJSON text or parsed form.
 * @param options The recording's `redact` values, and `allowRepeats`.
 * @returns The transport (of the recorded kind).
 *
 * @example A host's unit test on a replayed session
 * ```ts
 * import { mockServer, record, replay } from "./mod.ts";
 * import { createClient } from "../mod.ts";
 *
 * const server = mockServer({ tools: [{ name: "echo", handler: ({ text }) => String(text) }] });
 * const recording = record(server.transport());
 * {
 *   await using client = createClient({ transport: recording });
 *   await client.callTool("echo", { text: "hi" });
 * }
 * await using client = createClient({ transport: replay(recording.cassette()) });
 * const result = await client.callTool("echo", { text: "hi" });
 * if (result.content[0].text !== "hi") throw new Error("unexpected");
 * const other = await client.callTool("echo", { text: "bye" }).catch((e) => e);
 * if (other.reason !== "unexpected_request") throw new Error("matched what was never recorded");
 * ```
 */
export function replay(cassette: string | Cassette, options: ReplayOptions = {}): Replay {
  const parsed = typeof cassette === "string" ? parseCassette(cassette) : cassette;
  const clean = cleaner(options);
  const keyOf = (method: string, params: unknown) =>
    `${method} ${JSON.stringify(clean(matchParams(method, params)))}`;
  const opens: CassetteEntry[][] = [];
  const steps: Step[] = [];
  attribute(parsed.entries, opens, steps);
  const stepKey = (step: Step) => {
    const m = (step.entry as { message: JsonRpcMessage }).message;
    return "method" in m ? keyOf(m.method, m.params) : `response ${JSON.stringify(m.id)}`;
  };
  const keys = new Map(steps.map((step) => [step, stepKey(step)]));
  const unexpected: { method: string; params: JsonObject }[] = [];
  const ids = new Map<string, JsonRpcId>(); // recorded id → live id
  const tokens = new Map<string, unknown>();
  const live = (id: unknown) => ids.get(JSON.stringify(id)) ?? id;
  let opened = 0;

  const find = (kind: "send" | "probe", key: string): Step | undefined => {
    const matches = steps.filter((s) => s.entry.dir === kind && keys.get(s) === key);
    return matches.find((s) => !s.used) ?? (options.allowRepeats ? matches.at(-1) : undefined);
  };

  const learn = (recorded: JsonRpcMessage, actual: JsonRpcMessage) => {
    if ("id" in recorded && "id" in actual) {
      ids.set(JSON.stringify(recorded.id), actual.id as JsonRpcId);
    }
    const was = objectOr(objectOr((recorded as { params?: unknown }).params)?._meta)?.progressToken;
    const now = objectOr(objectOr((actual as { params?: unknown }).params)?._meta)?.progressToken;
    if (was !== undefined && now !== undefined) tokens.set(JSON.stringify(was), now);
  };

  const restore = (message: JsonRpcMessage): JsonRpcMessage => {
    const out = structuredClone(message) as unknown as JsonObject;
    if (!("method" in message) && "id" in message) out.id = live(message.id);
    const params = objectOr(out.params);
    if (params?.progressToken !== undefined) {
      params.progressToken = tokens.get(JSON.stringify(params.progressToken)) ??
        params.progressToken;
    }
    for (const meta of [objectOr(params?._meta), objectOr(objectOr(out.result)?._meta)]) {
      if (meta && META_SUBSCRIPTION_ID in meta) {
        meta[META_SUBSCRIPTION_ID] = live(meta[META_SUBSCRIPTION_ID]);
      }
    }
    return out as unknown as JsonRpcMessage;
  };

  const transport: Replay = {
    kind: parsed.transport,
    unexpected,
    unused: () =>
      steps.filter((s) => !s.used && s.entry.dir !== "recv").flatMap((s) => {
        const m = (s.entry as { message: JsonRpcMessage }).message;
        return "method" in m && "id" in m
          ? [{ method: m.method, params: matchParams(m.method, m.params) }]
          : [];
      }),
    open(sink: TransportSink) {
      let closed = false;
      let chain = Promise.resolve();
      const emit = (answers: CassetteEntry[]) => {
        for (const answer of answers) {
          chain = chain.then(() => {
            if (closed) return;
            if (answer.dir === "recv") sink.message(restore(answer.message));
            else if (answer.dir === "closed") {
              closed = true;
              sink.closed(
                new McpError(`The recorded server closed the connection (${answer.reason})`, {
                  kind: "transport",
                  reason: "closed",
                }),
              );
            }
          });
        }
      };
      emit(opens[opened++] ?? []);
      const link: TransportLink = {
        send(message: JsonRpcMessage) {
          if (closed) {
            return Promise.reject(
              new McpError("The replayed connection is closed", {
                kind: "transport",
                reason: "closed",
              }),
            );
          }
          const key = "method" in message
            ? keyOf(message.method, message.params)
            : `response ${JSON.stringify(message.id)}`;
          const step = find("send", key);
          if (!step) {
            if (!("method" in message) || !("id" in message)) return Promise.resolve();
            const params = matchParams(message.method, message.params);
            unexpected.push({ method: message.method, params });
            const shown = JSON.stringify(clean(params)).slice(0, 200);
            return Promise.reject(
              new McpError(`The cassette holds no ${message.method} request with params ${shown}`, {
                kind: "protocol",
                reason: "unexpected_request",
              }),
            );
          }
          step.used = true;
          learn((step.entry as { message: JsonRpcMessage }).message, message);
          emit(step.answers);
          return Promise.resolve();
        },
        setProtocol() {},
        close() {
          closed = true;
          return Promise.resolve();
        },
      };
      if (steps.some((s) => s.entry.dir === "probe")) {
        link.probe = (request) => {
          const step = find("probe", keyOf(request.method, request.params));
          if (!step || step.entry.dir !== "probe") {
            unexpected.push({
              method: request.method,
              params: matchParams(request.method, request.params),
            });
            return Promise.reject(
              new McpError(`The cassette holds no ${request.method} probe`, {
                kind: "protocol",
                reason: "unexpected_request",
              }),
            );
          }
          step.used = true;
          learn(step.entry.message, request);
          const { body, ...rest } = step.entry.outcome;
          const restored = body.split("\n").map((line) => {
            const data = line.startsWith("data:") ? line.slice(5) : line;
            try {
              const text = JSON.stringify(restore(JSON.parse(data)));
              return line.startsWith("data:") ? `data: ${text}` : text;
            } catch {
              return line;
            }
          }).join("\n");
          emit(step.answers);
          const result: HttpProbeResult = { ...rest, body: encoder.encode(restored) };
          return Promise.resolve(result);
        };
      }
      return Promise.resolve(link);
    },
  };
  return transport;
}

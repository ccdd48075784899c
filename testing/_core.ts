/**
 * Private: the mock server's shared state (its definition, the requests it got, its tasks,
 * its live connections) and the shapes its parts pass around.
 *
 * @module
 */

import type { JsonObject, JsonRpcId, JsonRpcMessage } from "../protocol/jsonrpc.ts";
import { SUPPORTED_VERSIONS } from "../protocol/versions.ts";
import { era } from "../protocol/versions.ts";
import type { MockDefinition, MockRequest } from "./types.ts";

/** A JSON-RPC error a handler produced. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** What a method produced: a result, an error, or nothing yet (answered later). */
export type Outcome = { result: JsonObject } | { error: RpcError };

/** Where a connection writes; `related` names the request a message belongs to. */
export interface Out {
  send(message: JsonRpcMessage, related?: JsonRpcId): void;
  close(reason?: string): void;
}

/** One live connection's state. */
export interface Conn {
  /** How it came (`in_process`, `http`, `stdio`). */
  via: string;
  /** Hands one client message to it. */
  receive(message: JsonRpcMessage, headers?: Record<string, string>): void;
  /** Ends it. */
  close(): void;
  /** The legacy session's version, once `initialize` was answered. */
  legacyVersion?: string;
  /** The legacy client's capabilities and identity. */
  legacyClient?: { capabilities: JsonObject; clientInfo?: JsonObject };
  /** `notifications/initialized` arrived. */
  initialized: boolean;
  /** The legacy log level. */
  logLevel?: string;
  /** Legacy resource subscriptions. */
  subscriptions: Set<string>;
  /** Open modern listens, by request id, with the filter the server agreed to. */
  listens: Map<JsonRpcId, JsonObject>;
  /** Requests being handled, by id (aborted on cancel or close). */
  running: Map<JsonRpcId, AbortController>;
  /** Answers awaited from the client, by server request id. */
  waiting: Map<JsonRpcId, (message: JsonObject) => void>;
  /** The next server request id. */
  nextId: number;
  /** Sends a message (dropped once closed). */
  send(message: JsonRpcMessage, related?: JsonRpcId): void;
}

/** One task the server runs. */
export interface TaskRecord {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
  /** The wire it was created on. */
  era: "modern" | "legacy";
  outcome?: Outcome;
  /** Modern: input requests outstanding, by key. */
  inputRequests: Map<string, { method: string; params?: JsonObject }>;
  /** Modern: how each outstanding request is answered. */
  answer: Map<string, (value: JsonObject) => void>;
  controller: AbortController;
  done: Promise<void>;
}

/** The server-wide state. */
export interface Core {
  def: MockDefinition;
  requests: MockRequest[];
  conns: Set<Conn>;
  tasks: Map<string, TaskRecord>;
  nextTask: number;
  /** Tells the clients that follow it that a task's status changed. */
  onTask?(task: TaskRecord): void;
}

/** `value` when it is a plain object, else `undefined`. */
export function objectOr(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as JsonObject
    : undefined;
}

/** An error outcome. */
export function failure(code: number, message: string, data?: unknown): Outcome {
  return { error: data === undefined ? { code, message } : { code, message, data } };
}

/** The versions the server supports, newest first. */
export function serverVersions(def: MockDefinition): string[] {
  if (def.versions) return [...def.versions];
  const eras = def.eras ?? "both";
  return SUPPORTED_VERSIONS.filter((v) => eras === "both" || era(v) === eras);
}

/** The server's identity. */
export function serverInfo(def: MockDefinition): { name: string; version: string } {
  return { name: "mock-server", version: "1.0.0", ...def.serverInfo };
}

/** The tasks extension's id. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The capabilities the definition implies, in `era`, with its own merged over them. */
export function capabilitiesOf(def: MockDefinition, inEra: "modern" | "legacy"): JsonObject {
  const caps: JsonObject = { logging: {} };
  if (def.tools?.length) caps.tools = { listChanged: true };
  if (def.prompts?.length) caps.prompts = { listChanged: true };
  if (def.resources?.length || def.templates?.length) {
    caps.resources = { listChanged: true, subscribe: true };
  }
  const completes = def.complete !== undefined ||
    def.prompts?.some((p) => p.complete) || def.templates?.some((t) => t.complete);
  if (completes) caps.completions = {};
  if (def.tools?.some((tool) => tool.task)) {
    if (inEra === "modern") caps.extensions = { [TASKS_EXTENSION]: {} };
    else caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }
  return { ...caps, ...def.capabilities };
}

/** The error a thrown value becomes: its numeric `code` kept, else -32603. */
export function thrown(error: unknown): Outcome {
  const e = error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  const message = typeof e?.message === "string" ? e.message : String(error);
  if (typeof e?.code === "number") return failure(e.code, message, e.data);
  return failure(-32603, message);
}

/**
 * Private: the context a handler runs with, and how its input requests travel: modern
 * `input_required` rounds (the handler runs again on each retry, its earlier answers kept in
 * `requestState`), legacy server requests, and `tasks/update` inside a modern task.
 *
 * @module
 */

import { startTimer } from "../clock/timer.ts";
import type { JsonObject, JsonRpcRequest } from "../protocol/jsonrpc.ts";
import { LOG_LEVELS, type LogLevel } from "../protocol/meta.ts";
import type { Era } from "../protocol/versions.ts";
import { type Conn, objectOr, type RpcError, type TaskRecord } from "./_core.ts";
import type { InputRequest, MockContext } from "./types.ts";

/** Where a request runs. */
export interface RunSetup {
  conn: Conn;
  era: Era;
  version: string;
  request: JsonRpcRequest;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
  logLevel?: string;
  /** Set when the handler runs as a task. */
  task?: TaskRecord;
  /** Reports a task's status change. */
  onTask?(task: TaskRecord): void;
}

/** How a handler run ended. */
export type RunEnd =
  | { value: unknown }
  | { thrown: unknown }
  | { inputRequired: JsonObject }
  | { error: RpcError };

const MRTR_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);
const CAPABILITY: Record<string, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

function encodeState(answers: JsonObject): string {
  const bytes = new TextEncoder().encode(JSON.stringify({ answers }));
  return `mock.${btoa(String.fromCharCode(...bytes))}`;
}

function decodeState(raw: unknown): JsonObject {
  if (typeof raw !== "string" || !raw.startsWith("mock.")) return {};
  try {
    const bytes = Uint8Array.from(atob(raw.slice(5)), (c) => c.charCodeAt(0));
    return objectOr(JSON.parse(new TextDecoder().decode(bytes))?.answers) ?? {};
  } catch {
    return {};
  }
}

function legacyAsk(setup: RunSetup, request: InputRequest): Promise<JsonObject> {
  const { conn } = setup;
  const id = `s${conn.nextId++}`;
  const params: JsonObject = { ...request.params };
  if (setup.task) {
    const related = { "io.modelcontextprotocol/related-task": { taskId: setup.task.taskId } };
    params._meta = { ...objectOr(params._meta), ...related };
  }
  return new Promise((resolve, reject) => {
    conn.waiting.set(id, (answer) => {
      conn.waiting.delete(id);
      const error = objectOr(answer.error);
      if (error) reject(Object.assign(new Error(String(error.message)), { code: error.code }));
      else resolve(objectOr(answer.result) ?? {});
    });
    conn.send({ jsonrpc: "2.0", id, method: request.method, params }, setup.request.id);
  });
}

/**
 * Runs `fn` with a fresh context for `setup`'s request.
 *
 * @returns Its value, what it threw, or (modern) the `input_required` result it led to.
 */
export function runHandler(
  setup: RunSetup,
  signal: AbortSignal,
  fn: (ctx: MockContext) => unknown,
): Promise<RunEnd> {
  const params = setup.request.params ?? {};
  const meta = objectOr(params._meta) ?? {};
  const mrtr = setup.era === "modern" && !setup.task;
  const answers: JsonObject = mrtr
    ? { ...decodeState(params.requestState), ...objectOr(params.inputResponses) }
    : {};
  const pending: Record<string, InputRequest> = {};
  const missing: JsonObject = {};
  let asked = 0;
  let blocked: (() => void) | undefined;
  const isBlocked = new Promise<void>((resolve) => (blocked = resolve));

  const input = (request: InputRequest): Promise<JsonObject> => {
    const key = `input_${++asked}`;
    if (setup.era === "legacy") return legacyAsk(setup, request);
    if (setup.task) {
      const task = setup.task;
      task.inputRequests.set(key, request);
      task.status = "input_required";
      task.lastUpdatedAt = new Date().toISOString();
      setup.onTask?.(task);
      return new Promise((resolve) => task.answer.set(key, resolve));
    }
    if (!MRTR_METHODS.has(setup.request.method)) {
      return Promise.reject(new TypeError(`${setup.request.method} cannot ask for input`));
    }
    const answer = objectOr(answers[key]);
    if (answer) return Promise.resolve(answer);
    const capability = CAPABILITY[request.method];
    if (capability && !(capability in setup.clientCapabilities)) missing[capability] = {};
    pending[key] = request.params === undefined ? { method: request.method } : request;
    // Asks made together (Promise.all) share one round: answer after the current turn.
    if (Object.keys(pending).length === 1) startTimer(() => blocked?.(), 0);
    return new Promise(() => {});
  };

  const token = meta.progressToken;
  const level = setup.logLevel;
  const ctx: MockContext = {
    era: setup.era,
    version: setup.version,
    request: { id: setup.request.id, method: setup.request.method, params },
    clientCapabilities: setup.clientCapabilities,
    clientInfo: setup.clientInfo as MockContext["clientInfo"],
    signal,
    progress(progress, total, message) {
      if (typeof token !== "string" && typeof token !== "number") return;
      const note: JsonObject = { progressToken: token, progress };
      if (total !== undefined) note.total = total;
      if (message !== undefined) note.message = message;
      setup.conn.send(
        { jsonrpc: "2.0", method: "notifications/progress", params: note },
        setup.request.id,
      );
    },
    log(logLevel: LogLevel, data, logger) {
      if (level === undefined) return;
      if (LOG_LEVELS.indexOf(logLevel) < LOG_LEVELS.indexOf(level as LogLevel)) return;
      const note: JsonObject = { level: logLevel, data };
      if (logger !== undefined) note.logger = logger;
      setup.conn.send(
        { jsonrpc: "2.0", method: "notifications/message", params: note },
        setup.request.id,
      );
    },
    input,
    elicit: (p) => input({ method: "elicitation/create", params: p }),
    sample: (p) => input({ method: "sampling/createMessage", params: p }),
    roots: async () => {
      const answer = await input({ method: "roots/list" });
      return Array.isArray(answer.roots) ? answer.roots as JsonObject[] : [];
    },
  };

  const ran = Promise.resolve()
    .then(() => fn(ctx))
    .then((value): RunEnd => ({ value }), (thrown): RunEnd => ({ thrown }));
  const round = isBlocked.then((): RunEnd => {
    if (Object.keys(missing).length > 0) {
      return {
        error: {
          code: -32021,
          message: `The client did not declare ${Object.keys(missing).join(", ")}`,
          data: { requiredCapabilities: missing },
        },
      };
    }
    return {
      inputRequired: {
        resultType: "input_required",
        inputRequests: { ...pending },
        requestState: encodeState(answers),
      },
    };
  });
  return Promise.race([ran, round]);
}

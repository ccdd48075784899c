/**
 * Private: the mock server's methods per era: the modern `_meta` checks, `server/discover`,
 * `subscriptions/listen`, cache hints and `resultType`; the legacy `initialize`, `ping`,
 * `logging/setLevel` and `resources/subscribe`; tool calls run as tasks on either wire.
 *
 * @module
 */

import type { JsonObject, JsonRpcRequest } from "../protocol/jsonrpc.ts";
import {
  isLogLevel,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
} from "../protocol/meta.ts";
import { era } from "../protocol/versions.ts";
import {
  capabilitiesOf,
  type Conn,
  type Core,
  failure,
  objectOr,
  type Outcome,
  serverInfo,
  serverVersions,
  TASKS_EXTENSION,
  thrown,
} from "./_core.ts";
import { runHandler, type RunSetup } from "./_context.ts";
import { callTool, complete, getPrompt, listPage, readResource } from "./_features.ts";
import { createdResult, startTask, taskMethod } from "./_tasks.ts";

const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);
const LISTS = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list"]);

async function custom(setup: RunSetup, signal: AbortSignal, core: Core): Promise<Outcome | null> {
  const handler = core.def.methods?.[setup.request.method];
  if (!handler) return null;
  const end = await runHandler(setup, signal, (ctx) => handler(setup.request.params ?? {}, ctx));
  if ("error" in end) return { error: end.error };
  if ("inputRequired" in end) return { result: end.inputRequired };
  if ("thrown" in end) return thrown(end.thrown);
  return { result: objectOr(end.value) ?? {} };
}

/** A tool call: run now, or as a task when the tool and the client both say so. */
function toolCall(core: Core, setup: RunSetup, signal: AbortSignal): Promise<Outcome> | Outcome {
  const params = setup.request.params ?? {};
  const tool = core.def.tools?.find((t) => t.name === params.name);
  const modern = setup.era === "modern";
  const asked = modern
    ? objectOr(setup.clientCapabilities.extensions)?.[TASKS_EXTENSION] !== undefined
    : objectOr(params.task) !== undefined;
  if (tool?.task && asked) {
    const ttl = modern ? undefined : Number(objectOr(params.task)?.ttl) || undefined;
    const task = startTask(
      core,
      setup.era,
      ttl,
      (t) => callTool(core, { ...setup, task: t, onTask: core.onTask }, t.controller.signal),
    );
    return { result: createdResult(task, setup.era) };
  }
  if (tool?.task === "required") {
    if (!modern) return failure(-32601, `Tool ${tool.name} must be called as a task`);
    const requiredCapabilities = { extensions: { [TASKS_EXTENSION]: {} } };
    return failure(-32021, `Tool ${tool.name} runs only as a task`, { requiredCapabilities });
  }
  if (tool && !tool.task && asked && !modern) {
    return failure(-32601, `Tool ${tool.name} does not run as a task`);
  }
  return callTool(core, setup, signal);
}

/** The features both eras share; `null` for a method neither knows. */
async function feature(core: Core, setup: RunSetup, signal: AbortSignal): Promise<Outcome | null> {
  const { method } = setup.request;
  const params = setup.request.params ?? {};
  if (LISTS.has(method)) return listPage(core, method, params, setup.version);
  switch (method) {
    case "tools/call":
      return await toolCall(core, setup, signal);
    case "prompts/get":
      return await getPrompt(core, setup, signal);
    case "resources/read":
      return await readResource(core, setup, signal);
    case "completion/complete":
      return complete(core, params);
  }
  if (method.startsWith("tasks/")) return await taskMethod(core, method, params, setup.era);
  return null;
}

function listen(conn: Conn, request: JsonRpcRequest, caps: JsonObject): Outcome | undefined {
  const filter = objectOr(request.params?.notifications);
  if (!filter) return failure(-32602, "params.notifications is required");
  const agreed: JsonObject = {};
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
    if (filter[key] === true) agreed[key] = true;
  }
  if (Array.isArray(filter.resourceSubscriptions)) {
    agreed.resourceSubscriptions = filter.resourceSubscriptions.filter((u) =>
      typeof u === "string"
    );
  }
  if (Array.isArray(filter.taskIds)) {
    if (objectOr(caps.extensions)?.[TASKS_EXTENSION] === undefined) {
      return failure(-32021, "taskIds needs the tasks extension", {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    agreed.taskIds = filter.taskIds;
  }
  const _meta = { [META_SUBSCRIPTION_ID]: request.id };
  conn.send({
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { _meta, notifications: agreed },
  }, request.id);
  conn.listens.set(request.id, agreed);
  return undefined;
}

function cacheHints(core: Core, method: string, params: JsonObject): JsonObject {
  const cache = core.def.cache;
  if (typeof cache === "function") return { ...cache(method, params) };
  return { ttlMs: 60_000, cacheScope: "public", ...cache };
}

/** A modern request: checked `_meta`, then the method; `undefined` while it stays open. */
export async function modern(core: Core, conn: Conn, request: JsonRpcRequest, signal: AbortSignal) {
  const params = request.params ?? {};
  const meta = objectOr(params._meta);
  if (!meta || !(META_PROTOCOL_VERSION in meta) || !objectOr(meta[META_CLIENT_CAPABILITIES])) {
    return failure(-32602, "Missing required _meta (protocolVersion, clientCapabilities)");
  }
  const versions = serverVersions(core.def);
  const requested = meta[META_PROTOCOL_VERSION];
  if (!versions.includes(requested as string) || era(requested) !== "modern") {
    return failure(-32022, "Unsupported protocol version", { supported: versions, requested });
  }
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && !isLogLevel(logLevel)) return failure(-32602, "Invalid logLevel");
  const caps = objectOr(meta[META_CLIENT_CAPABILITIES])!;
  const setup: RunSetup = {
    conn,
    era: "modern",
    version: requested as string,
    request,
    clientCapabilities: caps,
    clientInfo: objectOr(meta[META_CLIENT_INFO]),
    logLevel: logLevel as string | undefined,
  };
  let outcome: Outcome | null | undefined;
  if (request.method === "server/discover") {
    const result: JsonObject = {
      supportedVersions: versions,
      capabilities: capabilitiesOf(core.def, "modern"),
    };
    if (core.def.instructions !== undefined) result.instructions = core.def.instructions;
    outcome = { result };
  } else if (request.method === "subscriptions/listen") {
    outcome = listen(conn, request, caps);
  } else {
    outcome = await custom(setup, signal, core) ?? await feature(core, setup, signal);
  }
  if (outcome === null) return failure(-32601, `Method not found: ${request.method}`);
  if (outcome === undefined || "error" in outcome) return outcome;
  const result: JsonObject = { resultType: "complete", ...outcome.result };
  if (CACHEABLE.has(request.method) && result.resultType === "complete") {
    Object.assign(result, cacheHints(core, request.method, params), {
      ...(result.ttlMs !== undefined ? { ttlMs: result.ttlMs } : {}),
      ...(result.cacheScope !== undefined ? { cacheScope: result.cacheScope } : {}),
    });
  }
  result._meta = { ...objectOr(result._meta), [META_SERVER_INFO]: serverInfo(core.def) };
  return { result };
}

function initialize(core: Core, conn: Conn, params: JsonObject): Outcome {
  const versions = serverVersions(core.def);
  const legacy = versions.filter((v) => era(v) === "legacy");
  const requested = params.protocolVersion;
  if (legacy.length === 0) {
    return failure(
      -32602,
      `Unsupported protocol version: this server speaks ${versions.join(", ")}`,
      {
        supported: versions,
        requested,
      },
    );
  }
  const version = legacy.includes(requested as string) ? requested as string : legacy[0];
  conn.legacyVersion = version;
  conn.legacyClient = {
    capabilities: objectOr(params.capabilities) ?? {},
    clientInfo: objectOr(params.clientInfo),
  };
  const result: JsonObject = {
    protocolVersion: version,
    capabilities: capabilitiesOf(core.def, "legacy"),
    serverInfo: serverInfo(core.def),
  };
  if (core.def.instructions !== undefined) result.instructions = core.def.instructions;
  return { result };
}

/** A legacy request, in the connection's session. */
export async function legacy(core: Core, conn: Conn, request: JsonRpcRequest, signal: AbortSignal) {
  const { method } = request;
  const params = request.params ?? {};
  if (method === "initialize") return initialize(core, conn, params);
  if (method === "ping") return { result: {} };
  if (method === "server/discover") return failure(-32601, "Method not found: server/discover");
  if (conn.legacyVersion === undefined) return failure(-32600, "The session is not initialized");
  const setup: RunSetup = {
    conn,
    era: "legacy",
    version: conn.legacyVersion,
    request,
    clientCapabilities: conn.legacyClient?.capabilities ?? {},
    clientInfo: conn.legacyClient?.clientInfo,
    logLevel: conn.logLevel,
  };
  const own = await custom(setup, signal, core);
  if (own) return own;
  if (method === "logging/setLevel") {
    if (!isLogLevel(params.level)) return failure(-32602, "Invalid log level");
    conn.logLevel = params.level;
    return { result: {} };
  }
  if (method === "resources/subscribe" || method === "resources/unsubscribe") {
    if (typeof params.uri !== "string") return failure(-32602, "uri must be a string");
    if (method === "resources/subscribe") conn.subscriptions.add(params.uri);
    else conn.subscriptions.delete(params.uri);
    return { result: {} };
  }
  return await feature(core, setup, signal) ?? failure(-32601, `Method not found: ${method}`);
}

/**
 * The adapter the official MCP conformance runner drives
 * (`@modelcontextprotocol/conformance`, `client --command "<this>"`).
 *
 * The runner appends the mock server's URL as the last argument and sets
 * `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some scenarios,
 * `MCP_CONFORMANCE_CONTEXT` (JSON). This file maps them to public client options and calls;
 * it holds no protocol logic. A scenario that needs a behaviour the library lacks gets that
 * behaviour in the library, not here.
 *
 * Runs under both runtimes:
 *
 * ```sh
 * deno run -A conformance/client.ts http://localhost:1234/mcp
 * bun conformance/client.ts http://localhost:1234/mcp
 * ```
 *
 * Exit code 0 when every call the scenario wants succeeded, 1 when the client refused or
 * failed (some scenarios, such as `http-invalid-tool-headers`, accept that). It prints
 * progress and errors to stderr, never the context (it holds client secrets and keys).
 *
 * @module
 */

import { connect, type ConnectOptions, type McpClient, type Tool } from "../mod.ts";
import { conformanceAuth } from "./_auth.ts";
import { startTimer, type Timer } from "../clock/timer.ts";

type Client = McpClient;
type Options = ConnectOptions;
type Json = Record<string, unknown>;

/** What the scenario runner gets from the environment and the command line. */
interface Run {
  scenario: string;
  url: string;
  /** `MCP_CONFORMANCE_PROTOCOL_VERSION`, e.g. `2026-07-28` or `2025-11-25`. */
  version: string | undefined;
  /** `MCP_CONFORMANCE_CONTEXT`, parsed; `{}` when absent. */
  context: Json;
}

// ---------------------------------------------------------------------------------------
// Host: argv, env and exit under Deno or Bun (only runtime/ may name them in the library;
// this adapter reaches them structurally through globalThis).

interface Host {
  args: string[];
  env(name: string): string | undefined;
  exit(code: number): never;
}

function host(): Host {
  const g = globalThis as {
    Deno?: {
      args: string[];
      env: { get(name: string): string | undefined };
      exit(code: number): never;
    };
    process?: {
      argv: string[];
      env: Record<string, string | undefined>;
      exit(code: number): never;
    };
  };
  if (g.Deno) {
    const deno = g.Deno;
    return { args: deno.args, env: (name) => deno.env.get(name), exit: (code) => deno.exit(code) };
  }
  if (g.process) {
    const proc = g.process;
    return {
      args: proc.argv.slice(2),
      env: (name) => proc.env[name],
      exit: (code) => proc.exit(code),
    };
  }
  throw new Error("conformance/client.ts needs Deno or Bun");
}

function log(message: string): void {
  console.error(`[conformance] ${message}`);
}

/** A short, secret-free description of an error (McpError messages carry no secrets). */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const e = error as Error & { kind?: string; reason?: string; code?: number };
    const tags = [e.kind, e.reason, e.code].filter((t) => t !== undefined).join("/");
    return `${e.name}${tags ? ` [${tags}]` : ""}: ${e.message}`;
  }
  return String(error);
}

// ---------------------------------------------------------------------------------------
// Options: scenario → client options.

const CLIENT_INFO = { name: "conduit-mcp-conformance", version: "0.1.0" };

/** The elicitation answer a user gives by accepting the form as offered (SEP-1034 defaults). */
function acceptAsOffered(): Promise<{ action: "accept"; content: Json }> {
  return Promise.resolve({ action: "accept", content: {} });
}

function optionsFor(run: Run): Options {
  return {
    clientInfo: CLIENT_INFO,
    // The runner's wire version, pinned: 2026-07-28 is the modern era, older ones legacy.
    protocol: run.version ?? "auto",
    // The runner kills the process after 30 s; fail visibly before that.
    requestTimeout: 20_000,
    ...(SERVER_INPUT.has(run.scenario) ? { handler: { elicitation: acceptAsOffered } } : {}),
    // auth/* scenarios: OAuth options from the context (./_auth.ts).
    ...(run.scenario.startsWith("auth/")
      ? { http: { auth: conformanceAuth(run.scenario, run.context) } }
      : {}),
  };
}

/** Scenarios in which the server asks the client for input (elicitation). */
const SERVER_INPUT = new Set([
  "elicitation-sep1034-client-defaults",
  "sep-2322-client-request-state",
]);

// ---------------------------------------------------------------------------------------
// Calls: scenario → what the client does once connected.

type Steps = (client: Client, run: Run) => Promise<void>;

async function listTools(client: Client): Promise<Tool[]> {
  const tools = await client.listAllTools();
  log(`tools: ${tools.map((t) => t.name).join(", ") || "(none)"}`);
  return tools;
}

async function call(client: Client, name: string, args: Json): Promise<void> {
  const result = await client.callTool(name, args);
  log(`called ${name}${result.isError ? " (isError)" : ""}`);
}

/** Placeholder arguments for a tool's required properties (the mock servers ignore them). */
function sampleArguments(schema: Tool["inputSchema"]): Json {
  const s = schema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const args: Json = {};
  for (const key of Array.isArray(s.required) ? s.required : []) {
    const type = s.properties?.[key]?.type;
    args[key] = type === "integer" || type === "number"
      ? 1
      : type === "boolean"
      ? true
      : type === "object"
      ? {}
      : type === "array"
      ? []
      : type === "null"
      ? null
      : "sample";
  }
  return args;
}

const listOnly: Steps = async (client) => {
  await listTools(client);
};

/** List the tools, then call every tool still listed (a dropped tool is never called). */
const callEveryTool: Steps = async (client) => {
  const refused: string[] = [];
  for (const tool of await listTools(client)) {
    try {
      await call(client, tool.name, sampleArguments(tool.inputSchema));
    } catch (error) {
      log(`refused ${tool.name}: ${describe(error)}`);
      refused.push(tool.name);
    }
  }
  if (refused.length) throw new Error(`the client refused ${refused.join(", ")}`);
};

/** Connecting is the test (the handshake, or the modern probe); nothing more to call. */
const connectOnly: Steps = () => Promise.resolve();

const STEPS: Record<string, Steps> = {
  // The server's initialize result declares no capabilities, so a strict client lists nothing.
  initialize: connectOnly,
  "json-schema-ref-no-deref": listOnly,
  // The first request is refused with -32022 whatever its version; the client must retry.
  "request-metadata": listOnly,

  tools_call: async (client) => {
    const tools = await listTools(client);
    const tool = tools.find((t) => t.name === "add_numbers") ?? tools[0];
    if (!tool) throw new Error("the server listed no tool");
    await call(client, tool.name, { a: 2, b: 3 });
  },

  "http-standard-headers": async (client) => {
    for (const tool of await listTools(client)) await call(client, tool.name, {});
    for (const resource of await client.listAllResources()) {
      await client.readResource(resource.uri);
      log(`read ${resource.uri}`);
    }
    for (const prompt of await client.listAllPrompts()) {
      await client.getPrompt(prompt.name, {});
      log(`got prompt ${prompt.name}`);
    }
  },

  "http-custom-headers": async (client, run) => {
    await listTools(client);
    const calls = (run.context.toolCalls ?? []) as { name: string; arguments: Json }[];
    if (!calls.length) throw new Error("MCP_CONFORMANCE_CONTEXT has no toolCalls");
    for (const c of calls) await call(client, c.name, c.arguments);
  },

  "http-invalid-tool-headers": callEveryTool,

  "json-schema-2020-12-preservation": async (client) => {
    const tools = await listTools(client);
    const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
    if (!focal) throw new Error("json_schema_2020_12_tool is not listed");
    await call(client, "json_schema_echo", { schema: focal.inputSchema });
  },

  "sse-retry": async (client) => {
    await listTools(client);
    await call(client, "test_reconnection", {});
  },

  "elicitation-sep1034-client-defaults": async (client) => {
    await listTools(client);
    await call(client, "test_client_elicitation_defaults", {});
  },

  "sep-2322-client-request-state": async (client) => {
    await listTools(client);
    // The MRTR round (input_required → elicitation → retry) happens inside callTool.
    await call(client, "test_mrtr_echo_state", {});
    await call(client, "test_mrtr_unrelated", {});
    await call(client, "test_mrtr_no_state", {});
    await call(client, "test_mrtr_no_result_type", {});
  },
};

/**
 * OAuth scenarios (`auth/*`): list the tools and call `test-tool`, as the runner's
 * reference client does; `optionsFor` passes the OAuth options from ./_auth.ts.
 */
const authSteps: Steps = async (client) => {
  const tools = await listTools(client);
  if (tools.some((t) => t.name === "test-tool")) await call(client, "test-tool", {});
};

function stepsFor(scenario: string): Steps | undefined {
  return STEPS[scenario] ?? (scenario.startsWith("auth/") ? authSteps : undefined);
}

// ---------------------------------------------------------------------------------------

function readRun(h: Host): Run {
  const url = h.args.at(-1);
  const scenario = h.env("MCP_CONFORMANCE_SCENARIO");
  if (!url || !scenario) {
    throw new Error(
      "usage: MCP_CONFORMANCE_SCENARIO=<name> conformance/client.ts <server-url> " +
        "(the conformance runner sets both)",
    );
  }
  const raw = h.env("MCP_CONFORMANCE_CONTEXT");
  let context: Json = {};
  if (raw) {
    try {
      context = JSON.parse(raw) as Json;
    } catch {
      throw new Error("MCP_CONFORMANCE_CONTEXT is not JSON");
    }
  }
  return { scenario, url, version: h.env("MCP_CONFORMANCE_PROTOCOL_VERSION"), context };
}

async function closeQuietly(client: Client): Promise<void> {
  let timer: Timer | undefined;
  try {
    await Promise.race([
      client.close(),
      new Promise<void>((resolve) => timer = startTimer(resolve, 2_000)),
    ]);
  } catch (error) {
    log(`close failed: ${describe(error)}`);
  } finally {
    timer?.clear();
  }
}

async function main(h: Host): Promise<number> {
  const run = readRun(h);
  const steps = stepsFor(run.scenario);
  if (!steps) {
    log(`unknown scenario ${run.scenario}`);
    return 2;
  }
  log(`${run.scenario} at ${run.version ?? "(no version)"} → ${run.url}`);
  const client = await connect(run.url, optionsFor(run));
  try {
    await steps(client, run);
  } finally {
    await closeQuietly(client);
  }
  log("done");
  return 0;
}

const h = host();
// A last guard under the runner's 30 s kill, so a hang ends with a message.
const guard = startTimer(() => {
  log("gave up after 28 s");
  h.exit(1);
}, 28_000);
let code: number;
try {
  code = await main(h);
} catch (error) {
  log(`failed: ${describe(error)}`);
  code = 1;
}
guard.clear();
// Exit explicitly: an open stream or timer in a failed client must not keep the process up.
h.exit(code);

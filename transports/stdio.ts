/**
 * The stdio transport: the client starts the server as a child process and exchanges
 * newline-delimited JSON-RPC over its stdin and stdout.
 *
 * @module
 */

import { dependencyMissing, McpError } from "../protocol/errors.ts";
import { checkKeys } from "../protocol/option_keys.ts";
import { holdSecrets } from "../protocol/secrets.ts";
import type { InheritEnv } from "../runtime/env.ts";
import {
  checkSandbox,
  type Containment,
  type SandboxOptions,
  type SandboxProfile,
} from "../sandbox/profile.ts";
import { type ChildProcess, type SpawnOptions, spawnProcess } from "../runtime/spawn.ts";
import { envSecrets, guardSink } from "./_redact.ts";
import { startLink } from "./_stdio_link.ts";
import type { StdioLink, StdioStderr } from "./stdio_types.ts";
import type { Transport, TransportSink } from "./transport.ts";

export type { StdioLink, StdioStderr } from "./stdio_types.ts";
export type { Containment, SandboxOptions } from "../sandbox/profile.ts";
export { checkSandbox };

/**
 * Options for {@linkcode stdio}.
 *
 * @example
 * ```ts
 * import type { StdioOptions } from "./stdio.ts";
 *
 * const options: StdioOptions = {
 *   command: "uvx",
 *   args: ["mcp-server-fetch"],
 *   env: { FETCH_USER_AGENT: "my-agent" },
 *   stderr: "inherit",
 *   closeGracePeriod: 500,
 * };
 * ```
 */
export interface StdioOptions {
  /** The server's executable: a name looked up in `PATH`, or a path. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /**
   * Variables for the server, merged over the inherited ones. By default the server
   * inherits only a short list of harmless variables (`PATH`, `HOME`, locale…; see
   * `SAFE_ENV_NAMES`), not your whole environment: pass what it needs (an API key) here.
   */
  env?: Readonly<Record<string, string>>;
  /**
   * Which of this process's variables the server inherits: `"safe"` (default), `"all"`,
   * `"none"`, or a list of names.
   */
  inheritEnv?: InheritEnv;
  /** The server's working directory (default this process's). */
  cwd?: string;
  /** What to do with the server's stderr (default `"buffer"`). */
  stderr?: StdioStderr;
  /** How many bytes of stderr to keep (default 64 KiB). */
  stderrTailBytes?: number;
  /**
   * The largest message accepted from the server, in bytes (default 4 MiB). A longer line
   * is dropped as it arrives, with a warning.
   */
  maxMessageBytes?: number;
  /**
   * On `close()`, how long to wait after closing the server's stdin before sending
   * SIGTERM, in milliseconds (default 2000).
   */
  closeGracePeriod?: number;
  /** On `close()`, how long to wait after SIGTERM before SIGKILL, in ms (default 2000). */
  terminateGracePeriod?: number;
  /** Starts the process (default `spawnProcess`); for wrapping or tests. */
  spawn?: (options: SpawnOptions) => ChildProcess;
  /**
   * Whether the server leads a session and process group of its own (default `true`), so
   * that `close()` ends everything it started. With `false` the server stays in this
   * process's session: `close()` ends only the server process itself (a wrapper such as
   * `npx` may leave its child running), and a terminal's Ctrl-C reaches it. Where Linux
   * schedules by session (`kernel.sched_autogroup_enabled`), a server in this session also
   * shares this process's scheduling group, which on a busy machine spares each round trip
   * a wait for the server's own turn (see bench/README.md, "The stdio floor").
   */
  processGroup?: boolean;
  /**
   * Run the server in a sandbox: what it may read, write, reach and run, and which of this
   * process's variables it sees (every list defaults to none). A server Deno can run gets
   * exactly those Deno permissions; any other command on Linux runs in bubblewrap. With
   * `required: true` the server does not start when no sandbox applies. The server sees
   * only `sandbox.env` and the `env` given here, so `inheritEnv` cannot be given with it.
   */
  sandbox?: SandboxOptions;
}

/**
 * The stdio {@linkcode Transport}, with access to the latest server's stderr.
 *
 * @example
 * ```ts
 * import { stdio } from "./stdio.ts";
 *
 * const transport = stdio({ command: "my-mcp-server" }); // nothing starts until open()
 * if (transport.kind !== "stdio" || transport.stderrTail() !== "") throw new Error();
 * ```
 */
export interface StdioTransport extends Transport {
  /** Always `"stdio"`. */
  readonly kind: "stdio";
  /** Starts a server process. */
  open(sink: TransportSink): Promise<StdioLink>;
  /** The stderr tail of the most recently opened server process (empty before any). */
  stderrTail(): string;
  /**
   * How the server process is contained: `"none"` without a `sandbox`; with one, as the
   * latest start decided (`undefined` before the first).
   */
  containment(): Containment | undefined;
}

const KIB = 1024;
const DEFAULTS = {
  stderrTailBytes: 64 * KIB,
  maxMessageBytes: 4 * KIB * KIB,
  closeGracePeriod: 2_000,
  terminateGracePeriod: 2_000,
};
/** The keys of {@linkcode StdioOptions} (a hub entry's transport part is told apart by them). */
export const STDIO_KEYS: readonly string[] = [
  "command",
  "args",
  "env",
  "inheritEnv",
  "cwd",
  "stderr",
  "spawn",
  "processGroup",
  "sandbox",
  ...Object.keys(DEFAULTS),
];

type Settings = Required<Omit<StdioOptions, "env" | "cwd" | "args" | "sandbox">> & {
  sandbox?: SandboxProfile;
};

function check(options: StdioOptions): Settings {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("stdio options must be an object");
  }
  checkKeys(options, STDIO_KEYS, "stdio options");
  if (typeof options.command !== "string" || options.command === "") {
    throw new TypeError("command must be a non-empty string");
  }
  if (options.args !== undefined && !Array.isArray(options.args)) {
    throw new TypeError("args must be an array of strings");
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (typeof value !== "string") throw new TypeError(`env.${name} must be a string`);
  }
  const stderr = options.stderr ?? "buffer";
  if (typeof stderr !== "function" && !["buffer", "inherit", "ignore"].includes(stderr)) {
    throw new TypeError('stderr must be "buffer", "inherit", "ignore" or a function');
  }
  const numbers = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`${key} must be a finite number >= 0`);
    }
    numbers[key] = value;
  }
  if (numbers.maxMessageBytes < 1) throw new RangeError("maxMessageBytes must be >= 1");
  if (options.processGroup !== undefined && typeof options.processGroup !== "boolean") {
    throw new TypeError("processGroup must be a boolean");
  }
  let sandbox: SandboxProfile | undefined;
  if (options.sandbox !== undefined) {
    sandbox = checkSandbox(options.sandbox, "stdio options.sandbox");
    if (options.inheritEnv !== undefined) {
      throw new TypeError(
        "stdio options: inheritEnv cannot be given with sandbox (name variables in sandbox.env)",
      );
    }
  }
  return {
    command: options.command,
    inheritEnv: options.inheritEnv ?? "safe",
    stderr,
    spawn: options.spawn ?? spawnProcess,
    processGroup: options.processGroup ?? true,
    ...numbers,
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

/**
 * A transport that runs an MCP server as a child process and speaks newline-delimited
 * JSON-RPC over its stdin and stdout (protocol.md §3).
 *
 * - The server gets a minimal environment plus `env`, not your whole environment
 *   (`inheritEnv: "all"` to change that): API keys in your shell stay out of servers you
 *   did not give them to.
 * - Lines that are not JSON-RPC, and lines over `maxMessageBytes`, are skipped with a
 *   warning (through the sink's `warn`); their content is never logged.
 * - stderr is always read; its tail is kept and shown in the error when the process
 *   exits on its own.
 * - The values of `env` variables named like credentials (`…TOKEN`, `…KEY`, `…SECRET`,
 *   `…PASSWORD`) are replaced by `[redacted]` in everything the server sends back: errors
 *   (the stderr tail included), warnings and messages.
 * - `close()` closes the server's stdin, waits `closeGracePeriod`, sends SIGTERM, waits
 *   `terminateGracePeriod`, then sends SIGKILL. The server runs in a process group of its
 *   own (outside Windows), and the signals go to the whole group: a server started through
 *   a wrapper (`npx`, `uvx`, `bash -c`) ends with everything it started, even when the
 *   wrapper itself exits first; what a server leaves running when it exits on its own is
 *   ended the same way. (Under Deno, signalling the group needs `--allow-run` without a
 *   list of commands; with a list, only the server process itself is signalled.) Being a
 *   group of its own, the server does not get a terminal's Ctrl-C; it sees its stdin
 *   close when this process ends. `processGroup: false` keeps it in this process's session
 *   and group instead (then only the server process itself is signalled).
 * - Each `open()` starts a new process, so a client reconnects by opening again.
 * - With `sandbox`, the server runs under exactly those Deno permissions (a server Deno can
 *   run) or in bubblewrap (any other command, on Linux); `containment()` says which. The
 *   sandbox's code loads on the first `open()`.
 *
 * @param options The command and how to run it.
 * @returns The transport.
 * @throws {TypeError} / {RangeError} on invalid options.
 *
 * @example Connect a client to a server started with npx
 * ```ts ignore
 * import { connect, stdio } from "../mod.ts";
 *
 * const client = await connect(stdio({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-everything"],
 *   env: { LOG_LEVEL: "debug" },
 *   stderr: "inherit",
 * }));
 * ```
 *
 * @example A server that may read one folder and nothing else
 * ```ts ignore
 * import { connect, stdio } from "../mod.ts";
 *
 * const transport = stdio({
 *   command: "deno",
 *   args: ["run", "jsr:@example/notes-server"],
 *   sandbox: { read: ["/home/me/notes"], required: true },
 * });
 * const client = await connect(transport);
 * console.log(transport.containment()); // "deno-permissions"
 * ```
 *
 * @example Open a link by hand
 * ```ts ignore
 * import { stdio } from "./stdio.ts";
 *
 * const transport = stdio({ command: "my-mcp-server" });
 * const link = await transport.open({
 *   message: (message) => console.log("from server", message),
 *   closed: (error) => console.error(error.message),
 *   warn: (text) => console.warn(text),
 * });
 * await link.send({ jsonrpc: "2.0", id: 1, method: "ping" });
 * await link.close();
 * ```
 */
export function stdio(options: StdioOptions): StdioTransport {
  const settings = check(options);
  const args = [...(options.args ?? [])];
  const env = options.env ? { ...options.env } : undefined;
  // The server's errors, stderr and messages never carry back a credential it was given.
  const secrets = envSecrets(env);
  let latest: StdioLink | undefined;
  let containment: Containment | undefined = settings.sandbox === undefined ? "none" : undefined;
  const start = (sink: TransportSink, spawn: SpawnOptions): Promise<StdioLink> => {
    let child: ChildProcess;
    try {
      child = settings.spawn(spawn);
    } catch (error) {
      if (error instanceof McpError || error instanceof TypeError) {
        return Promise.reject(error);
      }
      return Promise.reject(
        new McpError(`Cannot start "${settings.command}"`, {
          kind: "transport",
          reason: "spawn_failed",
          cause: error,
        }),
      );
    }
    const link = startLink(child, secrets.empty ? sink : guardSink(sink, secrets), settings);
    if (!secrets.empty) {
      // A failed write reports the exit with what the server wrote: redacted as well.
      const send = link.send;
      link.send = (message, sendOptions) =>
        send.call(link, message, sendOptions).catch((error) => {
          throw secrets.error(error);
        });
      const diagnose = link.diagnose!;
      link.diagnose = () => {
        const text = diagnose();
        return text === undefined ? undefined : secrets.text(text);
      };
    }
    latest = link;
    return Promise.resolve(latest);
  };
  return holdSecrets({
    kind: "stdio",
    open(sink: TransportSink): Promise<StdioLink> {
      const profile = settings.sandbox;
      if (profile === undefined) {
        return start(sink, {
          command: settings.command,
          args,
          env,
          inheritEnv: settings.inheritEnv,
          cwd: options.cwd,
          ...(settings.processGroup ? {} : { processGroup: false }),
        });
      }
      // The launcher loads only for a sandboxed server.
      return import("../sandbox/launch.ts").then(({ sandboxPlan }) => {
        const plan = sandboxPlan(profile, {
          command: settings.command,
          args,
          env,
          cwd: options.cwd,
        });
        containment = plan.containment;
        for (const warning of plan.warnings) {
          try {
            sink.warn?.(warning);
          } catch {
            // A throwing logger must not stop the start.
          }
        }
        const spawn = plan.spawn!;
        return start(sink, settings.processGroup ? spawn : { ...spawn, processGroup: false });
      }, (error) => {
        throw dependencyMissing("the sandbox's launcher", `start "${settings.command}"`, error);
      });
    },
    stderrTail(): string {
      return latest?.stderrTail() ?? "";
    },
    containment: () => containment,
    // What names the server for the cache loads when a cache first asks.
    cacheTarget: async (wants) =>
      (await import("./_stdio_target.ts")).stdioCacheTarget(
        { command: settings.command, args, cwd: options.cwd },
        { env, inheritEnv: settings.inheritEnv },
        wants,
      ),
  }, secrets);
}

/**
 * The background process of a kept session: it connects to one server with the CLI's own
 * connect path, listens on an owner-only Unix socket, and answers the commands that find it
 * (newline-delimited JSON: one request a line, at most 1 MiB, anything else refused with an
 * error while the session lives on). It ends by `stop`, after its idle time with nothing in
 * flight, or when its server goes away, and removes its socket as it ends.
 *
 * Requests: `{ id, op }` with `op` one of `hello` (who it is), `ready` (waits for the
 * handshake: the server's info, or the server's error), `call` (`method` of the client among
 * a fixed few, `params` an array, `progress` to have progress sent), `cancel` (`target`: an
 * id in flight) and `stop`. Replies: `{ id, result }` or `{ id, error }`, and meanwhile
 * `{ id, progress }` and `{ warning }`.
 *
 * @module
 */

import {
  connectUnix,
  listenUnix,
  type UnixConnection,
  type UnixListener,
} from "../runtime/unix_socket.ts";
import { rm } from "node:fs/promises";
import process from "node:process";
import type { McpClient } from "../mod.ts";
import { startTimer, type Timer } from "../clock/timer.ts";
import { parseArgs } from "./_args.ts";
import { toWire } from "./_keep_errors.ts";
import { privateDir } from "./_keep_paths.ts";
import { line, lineSplitter, REPLY_LINE_MAX, REQUEST_LINE_MAX } from "./_keep_wire.ts";
import { connectSpec, type ServerSpec } from "./_session.ts";
import type { Terminal } from "./terminal.ts";

/** What `connect` hands the session process on its standard input. */
export interface SessionSettings {
  /** The socket file. */
  socket: string;
  /** Its folder. */
  dir: string;
  /** The server, as `connect` resolved it (the URL as text). */
  spec: Omit<ServerSpec, "url"> & { url?: string };
  /** `--protocol`. */
  protocol?: string;
  /** `--timeout`, in ms. */
  timeout?: number;
  /** How long the session may sit unused, in ms. */
  idleMs: number;
}

type Method = (client: McpClient, params: unknown[], options: Record<string, unknown>) => unknown;

/** The client methods a command may call through a session, and nothing else. */
const METHODS: Record<string, Method> = {
  listAllTools: (c, _p, o) => c.listAllTools(o),
  listAllPrompts: (c, _p, o) => c.listAllPrompts(o),
  listAllResources: (c, _p, o) => c.listAllResources(o),
  listAllResourceTemplates: (c, _p, o) => c.listAllResourceTemplates(o),
  // The options decide the overload (a shaped result, a task); the client checks them.
  callTool: (c, [name, args], o) => (c.callTool as (...a: unknown[]) => unknown)(name, args, o),
  readResource: (c, [uri], o) => c.readResource(uri as string, o),
  getPrompt: (c, [name, args], o) => c.getPrompt(name as string, args as Record<string, string>, o),
  complete: (c, [ref, arg], o) => c.complete(ref as { prompt: string }, arg as [string, string], o),
  readResult: (c, [handle], o) => c.readResult(handle as string, o),
};

/** The request options a command may pass (the session adds its own signal and progress). */
const OPTIONS = new Set([
  "refresh",
  "shape",
  "maxChars",
  "offset",
  "length",
  "grep",
  "jsonPath",
  "media",
]);
const COMPLETE_OPTIONS = new Set(["context"]);

function pickOptions(method: string, given: unknown): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  if (typeof given !== "object" || given === null || Array.isArray(given)) return picked;
  for (const [key, value] of Object.entries(given)) {
    if (OPTIONS.has(key) || (method === "complete" && COMPLETE_OPTIONS.has(key))) {
      picked[key] = value;
    }
  }
  return picked;
}

const quietTerminal = (): Terminal => ({
  out: () => {},
  err: () => {},
  tty: false,
  color: false,
  columns: Infinity,
  env: (name) => process.env[name],
  onInterrupt: () => () => {},
});

/**
 * Runs a session until it ends.
 *
 * @param settings What `connect` handed over.
 * @returns The exit code: 0 once it ended, 3 when the server could not be reached.
 */
export async function runSession(settings: SessionSettings): Promise<number> {
  const { socket, dir } = settings;
  await privateDir(dir);
  // A socket already there: a live session keeps it, or one that ended left it behind.
  try {
    const live = await connectUnix(socket);
    live.close();
    return 0;
  } catch {
    await rm(socket, { force: true });
  }
  const started = Date.now();
  let lastUsed = started;
  let inFlight = 0;
  let client: McpClient | undefined;
  let closeClient: () => Promise<void> = () => Promise.resolve();
  const connections = new Set<UnixConnection>();
  let ending: Promise<void> | undefined;
  let finished!: (code: number) => void;
  const done = new Promise<number>((resolve) => finished = resolve);
  let timer: Timer | undefined;
  let listener: UnixListener | undefined = undefined;
  let failed = false;

  const end = (code: number) => {
    ending ??= (async () => {
      timer?.clear();
      await listener?.close().catch(() => {});
      await rm(socket, { force: true }).catch(() => {});
      await closeClient().catch(() => {});
      finished(code);
    })();
    return ending;
  };

  const parsed = parseArgs([
    ...(settings.protocol === undefined ? [] : ["--protocol", settings.protocol]),
    ...(settings.timeout === undefined ? [] : ["--timeout", String(settings.timeout)]),
  ]);
  const spec: ServerSpec = {
    ...settings.spec,
    url: settings.spec.url === undefined ? undefined : new URL(settings.spec.url),
  } as ServerSpec;
  if (spec.url === undefined) delete spec.url;

  const broadcast = (message: unknown) => {
    for (const connection of connections) void connection.write(line(message));
  };

  let ready!: Promise<McpClient>;
  const connectServer = () => {
    ready = connectSpec(spec, parsed, quietTerminal(), {
      validate: true,
      spill: true,
      quiet: true,
      onWarning: (warning) => broadcast({ warning }),
    }).then((opened) => {
      // Idle time counts from when the session is ready.
      lastUsed = Date.now();
      client = opened.client;
      closeClient = opened.close;
      return opened.client;
    });
    // Not reached: the session ends once `ready` has said why (or soon, if nobody asks).
    ready.catch(() => {
      failed = true;
      timer?.clear();
      timer = startTimer(() => void end(3), 10_000);
    });
  };

  const info = () => ({
    pid: process.pid,
    server: spec.label,
    startedAt: started,
    lastUsedAt: lastUsed,
    idleMs: settings.idleMs,
    inFlight,
    ready: client !== undefined,
  });

  const serve = (connection: UnixConnection) => {
    connections.add(connection);
    const running = new Map<number, AbortController>();
    connection.onClose(() => {
      connections.delete(connection);
      // The command went away (Ctrl-C, a crash): what it asked for is cancelled.
      for (const controller of running.values()) controller.abort();
    });
    const send = (message: unknown) => {
      let text = line(message);
      if (text.length > REPLY_LINE_MAX) {
        const id = (message as { id?: unknown }).id;
        text = line({
          id,
          error: {
            name: "Error",
            message: "the result is too large to pass through a kept session",
          },
        });
      }
      return connection.write(text);
    };
    const handle = async (request: Record<string, unknown>) => {
      const { id, op } = request;
      if (!Number.isSafeInteger(id) || (id as number) < 0) {
        return send({
          error: { name: "TypeError", message: "a request needs an id (a whole number)" },
        });
      }
      const n = id as number;
      switch (op) {
        case "hello":
          return send({ id: n, result: info() });
        case "ready":
          try {
            const c = await ready;
            lastUsed = Date.now();
            return send({ id: n, result: { ...info(), serverInfo: c.serverInfo() } });
          } catch (error) {
            await send({ id: n, error: toWire(error) });
            return end(3);
          }
        case "stop":
          await send({ id: n, result: info() });
          return end(0);
        case "cancel": {
          const target = request.target;
          if (typeof target === "number") running.get(target)?.abort();
          return;
        }
        case "call":
          break;
        default:
          return send({
            id: n,
            error: { name: "TypeError", message: "unknown op: hello, ready, call, cancel or stop" },
          });
      }
      const method = request.method;
      const params = request.params ?? [];
      if (typeof method !== "string" || !Object.hasOwn(METHODS, method)) {
        return send({
          id: n,
          error: { name: "TypeError", message: "not a method a session runs" },
        });
      }
      if (!Array.isArray(params) || params.length > 2 || running.has(n)) {
        return send({
          id: n,
          error: { name: "TypeError", message: "bad params or a repeated id" },
        });
      }
      const controller = new AbortController();
      running.set(n, controller);
      inFlight++;
      lastUsed = Date.now();
      try {
        const c = await ready;
        const options: Record<string, unknown> = pickOptions(method, request.options);
        // readResult reads the local store: nothing to cancel, and no signal option.
        if (method !== "readResult") options.signal = controller.signal;
        if (request.progress === true) {
          options.onProgress = (progress: unknown) => void send({ id: n, progress });
        }
        const result = await METHODS[method](c, params, options);
        await send({ id: n, result });
      } catch (error) {
        await send({ id: n, error: toWire(error) });
      } finally {
        running.delete(n);
        inFlight--;
        lastUsed = Date.now();
      }
    };
    connection.onData(lineSplitter(REQUEST_LINE_MAX, (event) => {
      if ("refused" in event) {
        void send({ error: { name: "TypeError", message: `refused ${event.detail}` } });
        return;
      }
      void handle(event.message as Record<string, unknown>).catch(() => {});
    }));
  };

  // Connecting before listening: a request that arrives at once finds `ready` set.
  connectServer();
  listener = await listenUnix(socket, serve);
  // Idle, or the server gone: the session ends by itself.
  const check = () => {
    if (failed) return;
    const now = Date.now();
    if (client !== undefined && client.status().state === "closed") return void end(0);
    if (inFlight === 0 && client !== undefined && now - lastUsed >= settings.idleMs) {
      return void end(0);
    }
    timer = startTimer(check, Math.min(1_000, Math.max(50, settings.idleMs / 4)));
  };
  check();
  process.on("SIGTERM", () => void end(0));
  process.on("SIGINT", () => void end(0));
  return done;
}

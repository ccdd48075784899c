/**
 * What `connect` (keep a live session to a server in a background process), `disconnect`
 * (stop one, or `--all`) and `status` without a server (the kept sessions: server, pid, age,
 * idle time, socket) do, loaded when one of them runs. A socket whose process has ended is
 * removed wherever one is found.
 *
 * @module
 */

import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { startDetached } from "../../runtime/detach.ts";
import { type CommandContext, EXIT, printJson } from "../_command.ts";
import { clean, table } from "../_format.ts";
import { type KeepChannel, openChannel } from "../_keep_channel.ts";
import { isSocketName, privateDir, sessionsDir } from "../_keep_paths.ts";
import { keptSocket } from "../_kept_client.ts";
import { startConnecting } from "../_progress.ts";
import { serverSpec } from "../_session.ts";
import type { SessionSettings } from "../_session_server.ts";
import { configDir } from "../_token_file.ts";

/** The idle timeout of a kept session unless `--idle` says otherwise. */
const DEFAULT_IDLE_MS = 10 * 60_000;

/** What a session says of itself (`hello`). */
interface SessionInfo {
  pid: number;
  server: string;
  startedAt: number;
  lastUsedAt: number;
  idleMs: number;
  inFlight: number;
  ready: boolean;
}

/** A live session's channel and what it says of itself, or `undefined` (a stale socket removed). */
async function reach(
  socket: string,
): Promise<{ channel: KeepChannel; info: SessionInfo } | undefined> {
  let channel: KeepChannel;
  try {
    channel = await openChannel(socket);
  } catch (error) {
    if ((error as { code?: string })?.code === "ECONNREFUSED") await rm(socket, { force: true });
    return undefined;
  }
  try {
    return { channel, info: await channel.request({ op: "hello" }) as SessionInfo };
  } catch {
    channel.close();
    return undefined;
  }
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, "0")}m`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `connect`. */
export async function connect(ctx: CommandContext): Promise<number> {
  const { parsed, term } = ctx;
  const spec = await serverSpec(parsed, term);
  const socket = await keptSocket(spec, parsed, term);
  const dir = sessionsDir(configDir(term.env));
  const idleMs = parsed.flags.idle ?? DEFAULT_IDLE_MS;
  const report = (info: SessionInfo, already: boolean) => {
    if (parsed.flags.json) {
      printJson(ctx, { server: spec.label, pid: info.pid, socket, idleMs: info.idleMs, already });
    } else {
      term.out(
        `${already ? "Already kept" : "Kept"}: ${clean(spec.label)} (pid ${info.pid}, ` +
          `idle timeout ${duration(info.idleMs)})\n`,
      );
    }
    return EXIT.ok;
  };
  const live = await reach(socket);
  if (live !== undefined) {
    live.channel.close();
    return report(live.info, true);
  }
  await privateDir(dir);
  const settings: SessionSettings = {
    socket,
    dir,
    spec: { ...spec, url: spec.url?.href },
    idleMs,
    ...(parsed.flags.protocol === undefined ? {} : { protocol: parsed.flags.protocol }),
    ...(parsed.flags.timeout === undefined ? {} : { timeout: parsed.flags.timeout }),
  };
  const cwd = process.cwd();
  const child = startDetached(
    new URL("../_session_main.ts", import.meta.url),
    JSON.stringify(settings) + "\n",
    {
      cwd,
      needs: {
        read: [dir, cwd],
        write: [dir],
        net: [`unix:${socket}`, ...(spec.url === undefined ? [] : [spec.url.host])],
        run: spec.command === undefined ? [] : [spec.command.command],
      },
    },
  );
  const stop = startConnecting(term, spec.label);
  let exitedWith: number | null | undefined;
  void child.exited.then((code) => exitedWith = code);
  try {
    const deadline = Date.now() + Math.max(parsed.flags.timeout ?? 60_000, 30_000) + 10_000;
    let channel: KeepChannel | undefined;
    while (channel === undefined) {
      if (ctx.signal.aborted) throw new DOMException("Interrupted", "AbortError");
      try {
        channel = await openChannel(socket);
      } catch {
        if (exitedWith !== undefined) {
          throw new Error(
            `the session process ended before it listened (exit code ${exitedWith})`,
          );
        }
        if (Date.now() > deadline) throw new Error("the session process did not start");
        await sleep(25);
      }
    }
    try {
      const info = await channel.request({ op: "ready" }, { signal: ctx.signal }) as SessionInfo;
      child.release();
      return report(info, false);
    } finally {
      channel.close();
    }
  } catch (error) {
    // Ctrl-C while it connects: the session is not kept.
    if (exitedWith === undefined) {
      try {
        process.kill(child.pid, "SIGTERM");
      } catch {
        // It has ended.
      }
    }
    // A session that failed leaves nothing behind once this command returns: its process has
    // ended (it removes its socket as it ends) or had 5 s to, and the socket is gone either way,
    // so the next command connects afresh without finding an ended session.
    let waited: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      child.exited,
      new Promise((resolve) => waited = setTimeout(resolve, 5_000)),
    ]);
    clearTimeout(waited);
    await rm(socket, { force: true });
    throw error;
  } finally {
    stop();
  }
}

/** Stops the session at `socket`; resolves with what it said of itself, if it lived. */
async function stopSession(socket: string): Promise<SessionInfo | undefined> {
  const live = await reach(socket);
  if (live === undefined) return undefined;
  try {
    await live.channel.request({ op: "stop" });
  } finally {
    live.channel.close();
  }
  // It removes its socket as it ends.
  for (let i = 0; i < 200; i++) {
    try {
      await stat(socket);
    } catch (error) {
      if ((error as { code?: string })?.code === "ENOENT") break;
    }
    await sleep(25);
  }
  return live.info;
}

async function sockets(ctx: CommandContext): Promise<string[]> {
  const dir = sessionsDir(configDir(ctx.term.env));
  try {
    return (await readdir(dir)).filter(isSocketName).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** Runs `disconnect`. */
export async function disconnect(ctx: CommandContext): Promise<number> {
  const { parsed, term } = ctx;
  const targets = parsed.flags.all
    ? await sockets(ctx)
    : [await keptSocket(await serverSpec(parsed, term), parsed, term)];
  const stopped: SessionInfo[] = [];
  for (const socket of targets) {
    const info = await stopSession(socket);
    if (info !== undefined) stopped.push(info);
  }
  if (parsed.flags.json) {
    printJson(ctx, stopped.map(({ server, pid }) => ({ server, pid })));
  } else if (stopped.length === 0) {
    term.err(parsed.flags.all ? "No kept sessions.\n" : "No kept session of that server.\n");
  } else {
    for (const info of stopped) {
      term.out(`Disconnected: ${clean(info.server)} (pid ${info.pid})\n`);
    }
  }
  return EXIT.ok;
}

/** `status` without a server: the kept sessions, stale sockets removed on the way. */
export async function listSessions(ctx: CommandContext): Promise<number> {
  const rows: (SessionInfo & { socket: string })[] = [];
  for (const socket of await sockets(ctx)) {
    const live = await reach(socket);
    if (live === undefined) continue;
    live.channel.close();
    rows.push({ ...live.info, socket });
  }
  const now = Date.now();
  if (ctx.parsed.flags.json) {
    printJson(
      ctx,
      rows.map((r) => ({
        server: r.server,
        pid: r.pid,
        ageMs: now - r.startedAt,
        idleForMs: r.inFlight > 0 ? 0 : now - r.lastUsedAt,
        idleMs: r.idleMs,
        socket: r.socket,
      })),
    );
  } else if (rows.length === 0) {
    ctx.term.err("No kept sessions (conduit-mcp connect <server> keeps one).\n");
  } else {
    ctx.term.out(table(
      ["SERVER", "PID", "AGE", "IDLE", "SOCKET"],
      rows.map((r) => [
        r.server,
        String(r.pid),
        duration(now - r.startedAt),
        r.inFlight > 0 ? "busy" : `${duration(now - r.lastUsedAt)} of ${duration(r.idleMs)}`,
        r.socket,
      ]),
      ctx.term.columns,
      ctx.term.color,
    ));
  }
  return EXIT.ok;
}

// Kept sessions, with real processes: `connect` starts a background session for the fixture
// server (which appends its pid to a file at each start, so starts are counted), two `call`s
// go through it (one start in all, the same output as a fresh run), the socket is
// owner-only in an owner-only folder, a server's env settings stay out of the session's
// command line and environment (they reach it on stdin), `status` lists it, `disconnect`
// ends it and its server; an idle timeout ends it by itself; a socket left by a killed session is noticed,
// removed, and the call runs afresh; hostile lines on the socket get errors and the session
// lives on; a server that cannot start fails `connect` with its own error.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  scriptCommand,
  test,
} from "../_harness.ts";
import { execFileSync, spawn } from "node:child_process";
import { runCli, tempConfig } from "./_helpers.ts";

const SERVER = scriptCommand(
  fileURLToPath(new URL("../fixtures/stdio_server.ts", import.meta.url)),
);

const RAW = scriptCommand(fileURLToPath(new URL("./_keep_raw.ts", import.meta.url)));

/** Runs the raw-socket script and reads the JSON it prints. */
function runJson(args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(RAW.command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => out += chunk);
    child.on("close", (code) => {
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`the raw-socket script ended with ${code}: ${out}`));
      }
    });
  });
}

/** A config folder, an mcp.json naming the fixture as `fixture`, and its pid file. */
function setup(extraEnv: Record<string, string> = {}) {
  const config = tempConfig();
  const folder = mkdtempSync(join(tmpdir(), "conduit-keep-"));
  const pidFile = join(folder, "starts.txt");
  const file = join(folder, "mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        fixture: {
          command: SERVER.command,
          args: SERVER.args,
          env: { FIXTURE_PID_FILE: pidFile, ...extraEnv },
        },
      },
    }),
  );
  const starts = () =>
    existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n").filter(Boolean) : [];
  const run = (args: string[], configDir = config.dir) =>
    runCli([...args, "--config", file], { configDir });
  /** `connect fixture --json` (with `extra` flags), checked; its JSON report. */
  const connect = async (...extra: string[]) => {
    const result = await run(["connect", "fixture", ...extra, "--json"]);
    assertEquals(result.code, 0, result.stdout + result.stderr);
    return JSON.parse(result.stdout);
  };
  return {
    config,
    file,
    starts,
    run,
    connect,
    async dispose() {
      await runCli(["disconnect", "--all"], { configDir: config.dir });
      config.dispose();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test(
  "cli keep: connect, two calls, one server start; owner-only socket; status; disconnect",
  async () => {
    const s = setup();
    try {
      const kept = await s.connect();
      assertEquals(kept.server, "fixture");
      assertEquals(s.starts().length, 1);
      // The socket: owner-only, in an owner-only folder, named by a digest (no user text).
      const socket: string = kept.socket;
      assertMatch(socket, /\/sessions\/[0-9a-f]{24}\.sock$/);
      const info = statSync(socket);
      assert(info.isSocket(), "a socket");
      assertEquals((info.mode & 0o777).toString(8), "600");
      assertEquals((statSync(join(s.config.dir, "sessions")).mode & 0o777).toString(8), "700");

      const one = await s.run(["call", "echo", "message=one", "--server", "fixture"]);
      assertEquals([one.code, one.stdout], [0, "one\n"], one.stderr);
      const two = await s.run(["call", "echo", "message=two", "--server", "fixture", "--json"]);
      assertEquals(two.code, 0, two.stderr);
      const tools = await s.run(["tools", "fixture", "--json"]);
      const read = await s.run(["read", "test://resource1", "--server", "fixture", "--json"]);
      const handshake = await s.run(["status", "fixture", "--json"]);
      const others = [
        ["prompts", "fixture", "--json"],
        ["resources", "fixture", "--json"],
        ["templates", "fixture", "--json"],
        ["prompt", "greeting", "name=Ada", "--server", "fixture", "--json"],
        ["complete", "prompt", "greeting", "name=A", "--server", "fixture", "--json"],
      ];
      const more = [];
      for (const args of others) more.push(await s.run(args));
      for (const run of [tools, read, handshake, ...more]) assertEquals(run.code, 0, run.stderr);
      // Ten commands, and the server was started once: by connect.
      assertEquals(s.starts().length, 1);

      // The same output as fresh runs (another config folder: no session there).
      const other = tempConfig();
      try {
        const fresh = await Promise.all([
          ["call", "echo", "message=two", "--server", "fixture", "--json"],
          ["tools", "fixture", "--json"],
          ["read", "test://resource1", "--server", "fixture", "--json"],
          ["status", "fixture", "--json"],
          ...others,
        ].map((args) => s.run(args, other.dir)));
        assertEquals(
          fresh.map((r) => r.stdout),
          [two, tools, read, handshake, ...more].map((r) => r.stdout),
        );
        assertStringIncludes(read.stdout, '"uri": "test://resource1"');
        assertEquals(s.starts().length, 10);
      } finally {
        other.dispose();
      }
      // --verbose prints the wire, so it connects afresh.
      const verbose = await s.run([
        "call",
        "echo",
        "message=v",
        "--server",
        "fixture",
        "--verbose",
      ]);
      assertEquals([verbose.code, verbose.stdout], [0, "v\n"], verbose.stderr);
      assertStringIncludes(verbose.stderr, "tools/call");
      assertEquals(s.starts().length, 11);

      const status = await runCli(["status", "--json"], { configDir: s.config.dir });
      assertEquals(status.code, 0, status.stderr);
      const listed = JSON.parse(status.stdout);
      assertEquals(listed.length, 1);
      assertEquals([listed[0].server, listed[0].pid, listed[0].socket], [
        "fixture",
        kept.pid,
        socket,
      ]);
      assert(listed[0].ageMs >= 0 && listed[0].idleMs === 600_000, status.stdout);

      const serverPid = Number(s.starts()[0]);
      assert(alive(kept.pid) && alive(serverPid), "the session and its server run");
      const stop = await s.run(["disconnect", "fixture"]);
      assertEquals(stop.code, 0, stop.stderr);
      assertEquals(stop.stdout, `Disconnected: fixture (pid ${kept.pid})\n`);
      assert(!existsSync(socket), "the socket is removed");
      await until("the session process has ended", () => !alive(kept.pid));
      await until("the server has ended", () => !alive(serverPid));
      const none = await runCli(["status"], { configDir: s.config.dir });
      assertEquals([none.code, none.stdout], [0, ""]);
      assertStringIncludes(none.stderr, "No kept sessions");
    } finally {
      await s.dispose();
    }
  },
  { timeout: 240_000 },
);

test(
  "cli keep: a server's env settings reach the session on stdin, never on its command line or in its environment",
  async () => {
    // A secret in the entry's env: the session process (what `ps` shows) must not hold it in its
    // arguments or its own environment; only the server it starts gets it.
    const secret = `keep-secret-${crypto.randomUUID()}`;
    const s = setup({ FIXTURE_API_KEY: secret });
    try {
      const { pid } = await s.connect();
      // Read as another program would (Deno opens /proc files only with --allow-all).
      const cmdline = execFileSync("ps", ["-ww", "-o", "args=", "-p", String(pid)], {
        encoding: "utf8",
      });
      const environ = execFileSync("cat", [`/proc/${pid}/environ`], { encoding: "utf8" });
      assertStringIncludes(cmdline, "_session_main.ts", "the session's command line was read");
      assertStringIncludes(environ, "PATH=", "the session's environment was read");
      assert(!cmdline.includes(secret), "the secret is not on the session's command line");
      assert(!environ.includes(secret), "the secret is not in the session's environment");
      assert(!environ.includes("FIXTURE_API_KEY"), "nor is its name");
      const call = await s.run(["call", "echo", "message=kept", "--server", "fixture"]);
      assertEquals([call.code, call.stdout], [0, "kept\n"], call.stderr);
      assertEquals(s.starts().length, 1);
      // The same read of the server the session started finds the secret there: the checks
      // above would see it.
      const server = Number(s.starts()[0]);
      const serverEnviron = execFileSync("cat", [`/proc/${server}/environ`], { encoding: "utf8" });
      assertStringIncludes(serverEnviron, `FIXTURE_API_KEY=${secret}`);
    } finally {
      await s.dispose();
    }
  },
  { timeout: 90_000 },
);

test("cli keep: the idle timeout ends the session and removes its socket", async () => {
  const s = setup();
  try {
    const { pid, socket } = await s.connect("--idle", "1500ms");
    assert(existsSync(socket), "listening");
    await until("the socket is removed", () => !existsSync(socket), 20_000);
    await until("the session process has ended", () => !alive(pid));
    // A call after it: a fresh start, without a note (nothing was left behind).
    const call = await s.run(["call", "echo", "message=later", "--server", "fixture"]);
    assertEquals([call.code, call.stdout, call.stderr], [0, "later\n", ""]);
    assertEquals(s.starts().length, 2);
  } finally {
    await s.dispose();
  }
}, { timeout: 90_000 });

test(
  "cli keep: a socket left by a killed session is removed; the call runs afresh with a note",
  async () => {
    const s = setup();
    try {
      const { pid, socket } = await s.connect();
      process.kill(pid, "SIGKILL");
      await until("the session process has ended", () => !alive(pid));
      assert(existsSync(socket), "its socket is left behind");
      const call = await s.run(["call", "echo", "message=again", "--server", "fixture"]);
      assertEquals([call.code, call.stdout], [0, "again\n"], call.stderr);
      assertEquals(call.stderr, "note: the kept session of fixture has ended; connecting afresh\n");
      assert(!existsSync(socket), "the stale socket is removed");
      assertEquals(s.starts().length, 2);
    } finally {
      await s.dispose();
    }
  },
  { timeout: 90_000 },
);

test("cli keep: call --max-chars and read-result go through the session", async () => {
  const s = setup();
  try {
    await s.connect();
    const log = Array.from({ length: 400 }, (_, i) => `line ${i}: all well`).join("\n");
    const call = await s.run([
      "call",
      "echo",
      "--max-chars",
      "300",
      "--args",
      JSON.stringify({ message: log }),
      "--server",
      "fixture",
    ]);
    assertEquals(call.code, 0, call.stderr);
    const handle = call.stdout.match(/\nhandle: (rs_[\w-]+)\n$/)?.[1];
    assert(handle !== undefined, call.stdout);
    const read = await s.run([
      "read-result",
      handle,
      "--length",
      "100000",
      "--json",
      "--server",
      "fixture",
    ]);
    assertEquals(read.code, 0, read.stderr);
    assertEquals(JSON.parse(read.stdout).text, log);
    assertEquals(s.starts().length, 1);
  } finally {
    await s.dispose();
  }
}, { timeout: 90_000 });

test(
  "cli keep: hostile lines on the socket get clear errors and the session lives on",
  async () => {
    const s = setup();
    try {
      const { pid, socket } = await s.connect();
      const raw = await runJson([...RAW.args, socket]);
      const replies = raw as {
        id?: number;
        error?: { message: string };
        result?: { server: string };
      }[];
      const errors = replies.filter((r) => r.error !== undefined).map((r) => r.error!.message);
      assertEquals(errors, [
        "refused a line that is not JSON",
        "refused a line that is not a JSON object",
        "refused a line over 1048576 bytes",
        "unknown op: hello, ready, call, cancel or stop",
        "not a method a session runs",
        "not a method a session runs",
        "a request needs an id (a whole number)",
      ]);
      assertEquals(replies[7].id, 4);
      assertEquals(replies[7].result?.server, "fixture");
      // And commands still go through it.
      const call = await s.run(["call", "echo", "message=still", "--server", "fixture"]);
      assertEquals([call.code, call.stdout], [0, "still\n"], call.stderr);
      assertEquals(s.starts().length, 1);
      const all = await runCli(["disconnect", "--all"], { configDir: s.config.dir });
      assertEquals([all.code, all.stdout], [0, `Disconnected: fixture (pid ${pid})\n`], all.stderr);
      assert(!existsSync(socket), "the socket is removed");
    } finally {
      await s.dispose();
    }
  },
  { timeout: 90_000 },
);

test("cli keep: connect fails with the server's own error and leaves no socket", async () => {
  const config = tempConfig();
  try {
    const args = ["--", "conduit-no-such-server-command"];
    const kept = await runCli(["connect", ...args], { configDir: config.dir });
    // Gone by the time connect returns (not a moment later): nothing for the next command to find.
    const sessions = join(config.dir, "sessions");
    const left = existsSync(sessions)
      ? readdirSync(sessions).filter((f) => f.endsWith(".sock"))
      : [];
    assertEquals(left, [], "no socket is left");
    const fresh = await runCli(["tools", ...args], { configDir: config.dir });
    assertEquals(kept.code, 3, kept.stderr);
    assertEquals(kept.stderr, fresh.stderr);
    assertStringIncludes(kept.stderr, "conduit-no-such-server-command");
    const status = await runCli(["status", "--json"], { configDir: config.dir });
    assertEquals(JSON.parse(status.stdout), []);
  } finally {
    config.dispose();
  }
}, { timeout: 90_000 });

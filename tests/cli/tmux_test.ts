// The CLI driven as a person would, in a detached tmux session of a fixed size (its own
// tmux server, killed in finally): a long call whose progress line updates in place (two
// captures differ, and it stays one line), Ctrl-C cancelling it (the server receives
// notifications/cancelled, the CLI exits 130), and `watch` printing notifications as the
// server sends them, and colours only without NO_COLOR. With CONDUIT_CLI_PANES=<file>, the captured panes are written there.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { assert, assertEquals, test } from "../_harness.ts";
import { cliCommand, EVERYTHING_STDIO, tempConfig } from "./_helpers.ts";

const WIDTH = 100;
const HEIGHT = 12;

/** A tmux server of this test's own, its socket in a temporary folder. */
function tmuxServer() {
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-tmux-"));
  const socket = join(dir, "socket");
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
  return {
    tmux,
    /** The visible pane of `session`, one string per row. */
    capture: (session: string) => tmux("capture-pane", "-p", "-t", session).split("\n"),
    kill() {
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Quotes a word for the shell tmux runs the command with. */
const sh = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Polls `read` until `check` holds (fails after `timeout` ms), returning the last value. */
async function until<T>(
  read: () => T,
  check: (value: T) => boolean,
  what: string,
  timeout = 20_000,
) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = read();
    if (check(value)) return value;
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function commandLine(args: string[], configDir: string, more = ""): string {
  const { command, args: head } = cliCommand();
  const env = `${more} CONDUIT_MCP_CONFIG_DIR=${sh(configDir)} DENO_NO_UPDATE_CHECK=1`;
  // After the CLI ends, print its exit code and keep the pane open for the capture.
  return `env ${env} ${[command, ...head, ...args].map(sh).join(" ")}; echo EXIT=$?; sleep 60`;
}

const nonEmpty = (rows: string[]) => rows.filter((row) => row.trim() !== "");

test(
  "cli tmux: a live progress line, Ctrl-C cancelling the call, watch printing notifications",
  async () => {
    await using server = await startHttpFixture({
      http: { response: "sse" },
      core: { mode: "legacy-only" },
    });
    await using watched = await startHttpFixture();
    const config = tempConfig();
    const tmux = tmuxServer();
    const panes: string[] = [];
    const keep = (title: string, rows: string[]) =>
      panes.push(`--- ${title} ---\n${rows.join("\n").trimEnd()}\n`);
    try {
      // A long call: 200 steps over 40 s, one progress notification per step.
      const call = commandLine(
        ["call", "slow", "ms=40000", "steps=200", server.url.href],
        config.dir,
      );
      tmux.tmux("new-session", "-d", "-s", "call", "-x", String(WIDTH), "-y", String(HEIGHT), call);
      const step = (rows: string[]) => Number(/ (\d+)\/200 /.exec(rows[0])?.[1]);
      const first = await until(
        () => tmux.capture("call"),
        (rows) => / \d+\/200 /.test(rows[0]) && step(rows) >= 10,
        "the progress bar",
      );
      const second = await until(
        () => tmux.capture("call"),
        (rows) => step(rows) >= step(first) + 10,
        "the progress line to change",
      );
      keep("call slow: first capture", first);
      keep("call slow: second capture", second);
      for (const rows of [first, second]) {
        // One line, redrawn in place: the first row holds it, nothing below.
        assertEquals(nonEmpty(rows).length, 1, rows.join("\n"));
        assert(
          /^slow {2}\[[█░]{20}\] {2}\d+\/200 {2}\d+% {2}\d+\.\ds {2}step \d+$/.test(rows[0]),
          rows[0],
        );
      }
      assert(first[0] !== second[0], "the line changed");

      tmux.tmux("send-keys", "-t", "call", "C-c");
      const ended = await until(
        () => tmux.capture("call"),
        (rows) => rows.some((row) => row.startsWith("EXIT=")),
        "the CLI to exit",
      );
      keep("call slow: after Ctrl-C", ended);
      assertEquals(nonEmpty(ended), ["Cancelled.", "EXIT=130"]);
      await until(
        () => server.core.methods(),
        (methods) => methods.includes("notifications/cancelled"),
        "the server to receive notifications/cancelled",
      );
      const cancelled = server.core.received.find((m) =>
        "method" in m && m.method === "notifications/cancelled"
      ) as { params?: { requestId?: unknown } };
      const call_ = server.core.received.find((m) =>
        "method" in m && m.method === "tools/call"
      ) as { id?: unknown };
      assertEquals(cancelled.params?.requestId, call_.id);

      // A server task over stdio (no total): a spinner with the task's status, then the result.
      const task = commandLine(
        ["call", "simulate-research-query", "topic=tides", "--task", ...EVERYTHING_STDIO],
        config.dir,
      );
      tmux.tmux("new-session", "-d", "-s", "task", "-x", String(WIDTH), "-y", String(HEIGHT), task);
      const spinning = await until(
        () => tmux.capture("task"),
        (rows) => / task working: /.test(rows[0]) && Number(/ (\d+\.\d)s /.exec(rows[0])?.[1]) >= 1,
        "the task's spinner",
      );
      keep("call --task: while the task works", spinning);
      assertEquals(nonEmpty(spinning).length, 1, spinning.join("\n"));
      assert(
        /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] {2}simulate-research-query {2}\d+\.\ds {2}task working: \S/.test(
          spinning[0],
        ),
        spinning[0],
      );
      const done = await until(
        () => tmux.capture("task"),
        (rows) => rows.some((row) => row.startsWith("EXIT=")),
        "the task to end",
      );
      keep("call --task: the end of the result", done);
      assertEquals(nonEmpty(done).slice(-2), [
        "*This is a simulated research report from the Everything MCP Server.*",
        "EXIT=0",
      ]);

      // watch: each notification on a line of its own, as it arrives.
      const watch = commandLine(["watch", watched.url.href], config.dir);
      tmux.tmux(
        "new-session",
        "-d",
        "-s",
        "watch",
        "-x",
        String(WIDTH),
        "-y",
        String(HEIGHT),
        watch,
      );
      await until(
        () => tmux.capture("watch"),
        (rows) => rows.some((row) => row.includes("Watching for notifications")),
        "watch to start",
      );
      let sent = 0;
      const listed = await until(
        () => {
          if (watched.core.changeList("tools") > 0) sent++;
          return tmux.capture("watch");
        },
        (rows) =>
          rows.filter((row) => row.includes("notifications/tools/list_changed")).length >= 2,
        "two notifications on the pane",
      );
      assert(sent >= 2, "the server sent them");
      keep("watch", listed);
      const lines = listed.filter((row) => row.includes("notifications/tools/list_changed"));
      for (const line of lines) {
        assert(/^\d\d:\d\d:\d\d notifications\/tools\/list_changed$/.test(line), line);
      }
      tmux.tmux("send-keys", "-t", "watch", "C-c");
      const stopped = await until(
        () => tmux.capture("watch"),
        (rows) => rows.some((row) => row.includes("EXIT=")),
        "watch to exit",
      );
      keep("watch: after Ctrl-C", stopped);

      // Colours on a terminal, none with NO_COLOR (the pane captured with its escapes).
      for (const [name, env] of [["colour", "-u NO_COLOR"], ["plain", "NO_COLOR=1"]]) {
        const tools = commandLine(["tools", watched.url.href], config.dir, env);
        tmux.tmux(
          "new-session",
          "-d",
          "-s",
          name,
          "-x",
          String(WIDTH),
          "-y",
          String(HEIGHT),
          tools,
        );
        const rows = await until(
          () => tmux.tmux("capture-pane", "-p", "-e", "-t", name).split("\n"),
          (rows) => rows.some((row) => row.includes("EXIT=")),
          `tools (${name}) to exit`,
        );
        const header = rows.find((row) => row.includes("NAME"))!;
        if (name === "colour") assert(header.includes("\x1b[1mNAME"), JSON.stringify(header));
        else assert(!rows.join("\n").includes("\x1b["), JSON.stringify(rows));
      }
      assertEquals(nonEmpty(stopped).slice(-2), ["Stopped watching.", "EXIT=0"]);
    } finally {
      tmux.kill();
      config.dispose();
      const file = process.env.CONDUIT_CLI_PANES;
      if (file) writeFileSync(file, panes.join("\n"));
    }
  },
  { timeout: 90_000 },
);

test(
  "cli tmux: the connecting line while a server starts, a tool's --help, servers",
  async () => {
    const config = tempConfig();
    const tmux = tmuxServer();
    const panes: string[] = [];
    const keep = (title: string, rows: string[]) =>
      panes.push(`--- ${title} ---\n${rows.join("\n").trimEnd()}\n`);
    const dir = mkdtempSync(join(tmpdir(), "conduit-cli-tmux-servers-"));
    const open = (name: string, line: string, height = HEIGHT) =>
      tmux.tmux("new-session", "-d", "-s", name, "-x", String(WIDTH), "-y", String(height), line);
    const exited = (name: string, what: string) =>
      until(
        () => tmux.capture(name),
        (rows) => rows.some((row) => row.startsWith("EXIT=")),
        what,
        40_000,
      );
    try {
      // A server that takes four seconds to start.
      const slow = ["--", "sh", "-c", `sleep 4; exec node ${sh(EVERYTHING_STDIO[2])}`];
      open("slow", commandLine(["call", "get-sum", "a=2", "b=40", ...slow], config.dir));
      const waiting = await until(
        () => tmux.capture("slow"),
        (rows) => Number(/ \((\d+) s\)$/.exec(rows[0])?.[1]) >= 2,
        "the connecting line at 2 s",
      );
      keep("a server that takes 4 s to start: while it starts", waiting);
      assertEquals(nonEmpty(waiting).length, 1, waiting.join("\n"));
      assert(/^connecting to sh -c sleep 4; exec node .+ \(\d s\)$/.test(waiting[0]), waiting[0]);
      assert(waiting[0].length < WIDTH, "one line, cut to the width");
      const answered = await exited("slow", "the call to end");
      keep("a server that takes 4 s to start: the answer", answered);
      // The line is gone: the answer stands where it was.
      assertEquals(nonEmpty(answered), ["The sum of 2 and 40 is 42.", "EXIT=0"]);

      open("help", commandLine(["call", "get-sum", "--help", ...EVERYTHING_STDIO], config.dir));
      const help = await exited("help", "call get-sum --help to end");
      keep("call get-sum --help", help);
      assertEquals(nonEmpty(help), [
        "Usage: conduit-mcp call get-sum a=<number> b=<number> <server>",
        "Returns the sum of two numbers",
        "Arguments:",
        "  NAME  TYPE    REQUIRED  DESCRIPTION",
        "  a     number  yes       First number",
        "  b     number  yes       Second number",
        "EXIT=0",
      ]);

      const file = join(dir, "mcp.json");
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            everything: { command: "node", args: [EVERYTHING_STDIO[2]] },
            broken: { command: "sh", args: ["-c", "echo boom >&2; exit 5"] },
          },
        }),
      );
      open("servers", commandLine(["servers", "--config", file], config.dir));
      const servers = await exited("servers", "servers to end");
      keep("servers", servers);
      const rows = nonEmpty(servers);
      assert(/^NAME +STATE +DETAIL +TARGET$/.test(rows[0]), rows[0]);
      assert(
        /^everything +✓ connected +mcp-servers\/everything \S+, \d+ tools +node /.test(rows[1]),
        rows[1],
      );
      assert(
        /^broken +✗ failed +exited with code 5 before answering — stderr: boom +sh -c /.test(
          rows[2],
        ),
        rows[2],
      );
      assertEquals(rows.at(-1), "EXIT=3");
    } finally {
      tmux.kill();
      config.dispose();
      rmSync(dir, { recursive: true, force: true });
      const file = process.env.CONDUIT_CLI_PANES;
      if (file) writeFileSync(`${file}.first-hour`, panes.join("\n"));
    }
  },
  { timeout: 90_000 },
);

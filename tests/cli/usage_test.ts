// The CLI as a subprocess, for what is not one server's commands: usage errors and help
// (exit 2), a command that cannot start (exit 3), Ctrl-C while connecting (exit 130, the
// server stopped), servers named in config files, and the client's full schema check.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { EVERYTHING_STDIO, runCli } from "./_helpers.ts";
import { main, type Terminal } from "../../cli.ts";
import { mockStdio } from "../../testing/mod.ts";

const QUIET: Terminal = {
  out: () => {},
  err: () => {},
  tty: false,
  color: false,
  columns: 80,
  env: () => undefined,
  onInterrupt: () => () => {},
};

const OPTS = { timeout: 60_000 };

test("cli stdio: Ctrl-C while connecting exits 130 and stops the server it started", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-hang-"));
  const pidFile = join(dir, "pid");
  try {
    // A "server" that starts, says so in a file, and never answers.
    const hang = `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));` +
      "setInterval(() => {}, 1000);";
    let pid = 0;
    const started = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (!existsSync(pidFile)) return;
        // The file may be there before its text is (a busy machine): wait for the pid.
        const text = readFileSync(pidFile, "utf8");
        if (text === "") return;
        pid = Number(text);
        clearInterval(poll);
        resolve();
      }, 20);
    });
    const run = runCli(["tools", "--", "node", "-e", hang], {
      onStart: (signal) => void started.then(() => signal("SIGINT")),
    });
    const done = await run;
    assertEquals([done.code, done.stderr], [130, "Cancelled.\n"]);
    assert(pid > 0, "the server started");
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      } catch {
        alive = false;
      }
    }
    assert(!alive, "the server was stopped");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, OPTS);

test("cli stdio: the client's schema validation refuses what the quick check lets by", async () => {
  const definition = {
    tools: [{
      name: "nested",
      inputSchema: {
        type: "object",
        properties: {
          o: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        },
      },
    }, {
      name: "remote",
      inputSchema: { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } },
    }],
  };
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-mock-"));
  const module = join(dir, "definition.js");
  writeFileSync(module, `export default ${JSON.stringify(definition)};\n`);
  const { command, args } = mockStdio(module);
  try {
    const bad = await runCli(["call", "nested", 'o={"n":"x"}', "--", command, ...args]);
    assertEquals(bad.code, 2);
    const last = bad.stderr.trimEnd().split("\n").at(-1)!;
    assertStringIncludes(
      last,
      'error: The arguments of tool "nested" do not match its input schema',
    );
    assertStringIncludes(last, 'at /o/n: Instance type "string"');
    // A schema the client cannot use: listed, but a call is refused, with the warning saying why.
    const listed = await runCli(["tools", "--", command, ...args]);
    assertEquals([listed.code, listed.stderr], [0, ""]);
    assert(/^remote\s+a\?$/m.test(listed.stdout), listed.stdout);
    const remote = await runCli(["call", "remote", "a=1", "--", command, ...args]);
    assertEquals(remote.code, 2);
    const [warning, error] = remote.stderr.trimEnd().split("\n");
    assert(warning.startsWith('warning: tool "remote" is left out:'), warning);
    assertStringIncludes(warning, "remote references are not fetched");
    assert(error.startsWith("error: the server has no tool remote (it has: nested)"), error);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, OPTS);

test("cli stdio: servers named in a config file, by --config or the nearest mcp.json", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-config-"));
  try {
    const config = {
      mcpServers: { everything: { command: "node", args: [EVERYTHING_STDIO[2]] } },
    };
    writeFileSync(join(dir, "mcp.json"), JSON.stringify(config));
    // The walk up stops at the repository root: dir is one.
    mkdirSync(join(dir, ".git"));
    mkdirSync(join(dir, "project", "src"), { recursive: true });
    const given = await runCli([
      "status",
      "--json",
      "--config",
      join(dir, "mcp.json"),
      "-s",
      "everything",
    ]);
    assertEquals(given.code, 0, given.stderr);
    assertEquals(JSON.parse(given.stdout).server, "everything");
    // A command without words of its own takes the name alone.
    const nearest = await runCli(["tools", "everything"], { cwd: join(dir, "project", "src") });
    assertEquals(nearest.code, 0, nearest.stderr);
    assert(/^get-sum\s+/m.test(nearest.stdout), nearest.stdout);
    const unknown = await runCli(["tools", "--server", "nope"], { cwd: dir });
    assertEquals(unknown.code, 2);
    assertStringIncludes(unknown.stderr, "has no server nope (it has: everything)");
    const extra = await runCli(["tools", "everything", "more"], { cwd: dir });
    assertEquals([extra.code, extra.stderr.split("\n").length], [2, 2]);
    assertStringIncludes(extra.stderr, 'tools takes no arguments but the server: "more"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, OPTS);

test("cli: usage errors, help for every command, a command that cannot start", async () => {
  const none = await runCli([]);
  assertEquals(none.code, 2);
  assertStringIncludes(none.stderr, "Exit codes:");
  const help = await runCli(["--help"]);
  assertEquals(help.code, 0);
  for (const line of ["0    ok", "1    the tool reported", "2    usage", "3    the server could"]) {
    assertStringIncludes(help.stdout, line);
  }
  const names = [...help.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
  assertEquals(names.slice(0, 15), [
    "tools",
    "prompts",
    "resources",
    "templates",
    "call",
    "prompt",
    "read",
    "complete",
    "status",
    "login",
    "logout",
    "whoami",
    "watch",
    "search",
    "servers",
  ]);
  for (const name of names.slice(0, 15)) {
    let out = "";
    const code = await main([name, "--help"], { ...QUIET, out: (text) => void (out += text) });
    assertEquals(code, 0, name);
    assert(out.startsWith(`Usage: conduit-mcp ${name}`), out);
  }
  const own = await runCli(["call", "--help"]);
  assertEquals(own.code, 0);
  assertStringIncludes(own.stdout, "Exit code 1 when the tool reports an error (isError).");
  const flag = await runCli(["tools", "--frob", ...EVERYTHING_STDIO]);
  assertEquals([flag.code, flag.stderr], [
    2,
    "error: unknown flag --frob (see conduit-mcp --help)\n",
  ]);
  const noServer = await runCli(["tools"]);
  assertEquals(noServer.code, 2);
  assertStringIncludes(noServer.stderr, "no server: give a URL, --server <name>, or -- <command>");
  const gone = await runCli(["tools", "--", "conduit-no-such-command-xyz"]);
  assertEquals(gone.code, 3);
  assertEquals(gone.stderr.trim().split("\n").length, 1, gone.stderr);
  assertStringIncludes(gone.stderr, 'Cannot start "conduit-no-such-command-xyz"');
}, OPTS);

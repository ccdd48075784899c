// The CLI as a subprocess (deno run -A cli.ts, or bun cli.ts) against the real
// @modelcontextprotocol/server-everything over stdio (legacy era): each command for people
// and with --json, exit codes, and bad arguments refused before anything is sent.
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

test("cli stdio: tools as a table and as JSON", async () => {
  const people = await runCli(["tools", ...EVERYTHING_STDIO]);
  assertEquals(people.code, 0, people.stderr);
  const lines = people.stdout.trimEnd().split("\n");
  assert(/^NAME\s+DESCRIPTION$/.test(lines[0]), lines[0]);
  assert(lines.some((line) => /^get-sum\s+Returns the sum of two numbers$/.test(line)));
  const scripts = await runCli(["tools", "--json", ...EVERYTHING_STDIO]);
  assertEquals(scripts.code, 0, scripts.stderr);
  const tools = JSON.parse(scripts.stdout) as { name: string; inputSchema: unknown }[];
  assertEquals(tools.length, lines.length - 1);
  assert(tools.some((tool) => tool.name === "trigger-long-running-operation"));
}, OPTS);

test("cli stdio: call with schema-read arguments, text and image results, --json", async () => {
  const sum = await runCli(["call", "get-sum", "a=2", "b=40", ...EVERYTHING_STDIO]);
  assertEquals([sum.code, sum.stdout], [0, "The sum of 2 and 40 is 42.\n"], sum.stderr);
  // No progress line when standard error is not a terminal.
  assert(!sum.stderr.includes("\r"), JSON.stringify(sum.stderr));
  const image = await runCli(["call", "get-tiny-image", ...EVERYTHING_STDIO]);
  assertEquals(image.code, 0, image.stderr);
  assert(/^\[image image\/png, \d+\.\d KiB\]$/m.test(image.stdout), image.stdout);
  const json = await runCli([
    "call",
    "get-sum",
    "--args",
    '{"a":1,"b":2}',
    "--json",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(json.code, 0, json.stderr);
  const result = JSON.parse(json.stdout);
  assertEquals([result.isError, result.content[0].text], [false, "The sum of 1 and 2 is 3."]);
}, OPTS);

test("cli stdio: bad arguments are refused before the call is sent (exit 2)", async () => {
  const bad = await runCli(["call", "get-sum", "a=two", "b=1", "--verbose", ...EVERYTHING_STDIO]);
  assertEquals(bad.code, 2);
  assertStringIncludes(bad.stderr, 'error: argument a: expected a number, got "two"');
  assertStringIncludes(bad.stderr, '"tools/list"');
  assert(!bad.stderr.includes('"tools/call"'), "the call never went out");
  const missing = await runCli(["call", "get-sum", "a=1", ...EVERYTHING_STDIO]);
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.stderr, "error: missing required argument b");
  const unknown = await runCli(["call", "no-such-tool", ...EVERYTHING_STDIO]);
  assertEquals(unknown.code, 2);
  assertStringIncludes(unknown.stderr, "the server has no tool no-such-tool (it has: echo,");
}, OPTS);

test("cli stdio: prompts, prompt, resources, templates, read, complete", async () => {
  const prompts = await runCli(["prompts", ...EVERYTHING_STDIO]);
  assertEquals(prompts.code, 0, prompts.stderr);
  assert(/^args-prompt\s+city state\?\s+A prompt with two arguments/m.test(prompts.stdout));
  const prompt = await runCli(["prompt", "args-prompt", "city=Paris", ...EVERYTHING_STDIO]);
  assertEquals(prompt.code, 0, prompt.stderr);
  assertStringIncludes(prompt.stdout, "user:\n");
  assertStringIncludes(prompt.stdout, "Paris");
  const missing = await runCli(["prompt", "args-prompt", ...EVERYTHING_STDIO]);
  assertEquals([missing.code, missing.stderr.trim()], [2, "error: missing required argument city"]);
  const resources = await runCli(["resources", "--json", ...EVERYTHING_STDIO]);
  assertEquals(resources.code, 0, resources.stderr);
  const uri = (JSON.parse(resources.stdout) as { uri: string }[])[0].uri;
  const read = await runCli(["read", uri, ...EVERYTHING_STDIO]);
  assertEquals(read.code, 0, read.stderr);
  assert(read.stdout.length > 100, read.stdout);
  const templates = await runCli(["templates", ...EVERYTHING_STDIO]);
  assertStringIncludes(templates.stdout, "demo://resource/dynamic/text/{resourceId}");
  const complete = await runCli([
    "complete",
    "prompt",
    "completable-prompt",
    "department=Eng",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals([complete.code, complete.stdout], [0, "Engineering\n"], complete.stderr);
}, OPTS);

test("cli stdio: prompt, read and complete as JSON", async () => {
  const prompt = await runCli([
    "prompt",
    "args-prompt",
    "city=Paris",
    "--json",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(prompt.code, 0, prompt.stderr);
  const messages = JSON.parse(prompt.stdout).messages;
  assertEquals(messages[0].role, "user");
  assertStringIncludes(messages[0].content.text, "Paris");
  const read = await runCli([
    "read",
    "demo://resource/dynamic/text/3",
    "--json",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(read.code, 0, read.stderr);
  assertEquals(JSON.parse(read.stdout).contents[0].uri, "demo://resource/dynamic/text/3");
  const blob = await runCli(["read", "demo://resource/dynamic/blob/3", ...EVERYTHING_STDIO]);
  assertEquals(blob.code, 0, blob.stderr);
  assert(/^\[[\w/.-]+, \d+ B\]$/.test(blob.stdout.trim()), blob.stdout);
  const complete = await runCli([
    "complete",
    "prompt",
    "completable-prompt",
    "department=Eng",
    "--json",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(JSON.parse(complete.stdout).completion.values, ["Engineering"]);
}, OPTS);

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
        pid = Number(readFileSync(pidFile, "utf8"));
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
    }],
  };
  const module = `data:text/javascript,export default ${
    encodeURIComponent(JSON.stringify(definition))
  };`;
  const { command, args } = mockStdio(module);
  const bad = await runCli(["call", "nested", 'o={"n":"x"}', "--", command, ...args]);
  assertEquals(bad.code, 2);
  assertEquals(bad.stderr.trim().split("\n").length, 1, bad.stderr);
  assertStringIncludes(bad.stderr, 'do not match its input schema at /o/n: Instance type "string"');
}, OPTS);

test("cli stdio: --task runs the call as a server task and awaits its result", async () => {
  const run = await runCli([
    "call",
    "simulate-research-query",
    "topic=tides",
    "--task",
    "--json",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assertEquals(result.isError, false);
  assertStringIncludes(result.content[0].text, "# Research Report: tides");
}, OPTS);

test("cli stdio: servers named in a config file, by --config or the nearest mcp.json", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-config-"));
  try {
    const config = {
      mcpServers: { everything: { command: "node", args: [EVERYTHING_STDIO[2]] } },
    };
    writeFileSync(join(dir, "mcp.json"), JSON.stringify(config));
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
    const nearest = await runCli(["tools", "--server", "everything"], {
      cwd: join(dir, "project", "src"),
    });
    assertEquals(nearest.code, 0, nearest.stderr);
    assert(/^get-sum\s+/m.test(nearest.stdout), nearest.stdout);
    const unknown = await runCli(["tools", "--server", "nope"], { cwd: dir });
    assertEquals(unknown.code, 2);
    assertStringIncludes(unknown.stderr, "has no server nope (it has: everything)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, OPTS);

test("cli stdio: status shows the legacy handshake; --json for scripts", async () => {
  const people = await runCli(["status", ...EVERYTHING_STDIO]);
  assertEquals(people.code, 0, people.stderr);
  assert(/^era\s+legacy$/m.test(people.stdout), people.stdout);
  assert(/^server\s+mcp-servers\/everything /m.test(people.stdout), people.stdout);
  assert(/^capabilities\s+.*tools \(listChanged\)/m.test(people.stdout), people.stdout);
  const scripts = await runCli([
    "status",
    "--json",
    "--protocol",
    "2025-06-18",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(scripts.code, 0, scripts.stderr);
  const info = JSON.parse(scripts.stdout);
  assertEquals([info.era, info.version], ["legacy", "2025-06-18"]);
  assert("tools" in info.capabilities);
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
  assertEquals(names.slice(0, 12), [
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
    "watch",
  ]);
  for (const name of names.slice(0, 12)) {
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

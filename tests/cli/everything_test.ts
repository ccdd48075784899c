// The CLI as a subprocess (deno run -A cli.ts, or bun cli.ts) against the real
// @modelcontextprotocol/server-everything over stdio (legacy era): each command for people
// and with --json, exit codes, and bad arguments refused before anything is sent.
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { EVERYTHING_STDIO, runCli } from "./_helpers.ts";

const OPTS = { timeout: 60_000 };

test("cli stdio: tools as a table and as JSON", async () => {
  const people = await runCli(["tools", ...EVERYTHING_STDIO]);
  assertEquals(people.code, 0, people.stderr);
  const lines = people.stdout.trimEnd().split("\n");
  assert(/^NAME\s+ARGUMENTS\s+DESCRIPTION$/.test(lines[0]), lines[0]);
  // Each tool's arguments: the required ones by name, the others with "?".
  assert(lines.some((line) => /^get-sum\s+a b\s+Returns the sum of two numbers$/.test(line)));
  assert(lines.some((line) => /^get-env\s+-\s+Returns all environment/.test(line)));
  assert(lines.some((line) => /^get-resource-links\s+count\?\s+Returns up to ten/.test(line)));
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

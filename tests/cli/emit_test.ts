// `emit-ts` end to end, the CLI run as a subprocess under the current runtime: typed wrappers
// written for the real server-everything (stdio), the hostile-schema fixture (a mock server
// over stdio) and the modern SDK fixture; `deno check` passes on them and on a script using
// them, fails on scripts with one wrong argument type or one wrong use of a result (one
// `deno check` over all of them, the errors only in the wrong ones), and the
// script then calls the real servers through the wrappers.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  runtime,
  scriptCommand,
  test,
} from "../_harness.ts";
import { mockStdio } from "../../testing/mod.ts";
import { EVERYTHING, EVERYTHING_STDIO, runCli } from "./_helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MOD = pathToFileURL(join(ROOT, "mod.ts")).href;
const CONFIG = join(ROOT, "deno.json");
const DENO = join(ROOT, "node_modules/.bin/deno");
const ZOO = mockStdio(new URL("../fixtures/emit_zoo.ts", import.meta.url));
const MODERN = scriptCommand(new URL("../fixtures/modern_sdk_server.ts", import.meta.url));
const EVERYTHING_CMD = { command: "node", args: [EVERYTHING] };
const SLOW = { timeout: 600_000 };

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (no shell). */
function run(command: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      maxBuffer: 16 << 20,
      timeout: 300_000,
    }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** `deno check` of `files` with the package's config (so the library's own imports resolve). */
const denoCheck = (dir: string, files: string[]) =>
  run(DENO, ["check", "--config", CONFIG, ...files], dir);

/** Runs a script of `dir` under the current runtime. */
function runScript(dir: string, file: string): Promise<Ran> {
  const path = join(dir, file);
  return runtime === "bun"
    ? run(process.execPath, [path], dir)
    : run(process.execPath, ["run", "-A", "--config", CONFIG, path], dir);
}

/** Emits the wrappers of one server into `dir/file`. */
async function emit(dir: string, file: string, server: { command: string; args: string[] }) {
  const out = join(dir, file);
  const ran = await runCli([
    "emit-ts",
    "--out",
    out,
    "--import",
    MOD,
    "--",
    server.command,
    ...server.args,
  ], {
    timeout: 120_000,
  });
  assertEquals(ran.code, 0, ran.stderr);
  assertMatch(ran.stdout, /^Wrote \d+ functions to .+\n$/);
  return readFileSync(out, "utf8");
}

const USE = `
import { connect, isMcpError } from ${JSON.stringify(MOD)};
import { getStructuredContent, getSum } from "./everything.ts";
import { deleteTool, evil2J, fails, getSum2, tree, type TreeResultNode } from "./zoo.ts";
import { add } from "./modern.ts";

const out: Record<string, unknown> = {};
{
  await using client = await connect(${JSON.stringify(EVERYTHING_CMD)}, { reconnect: false });
  out.sum = (await getSum(client, { a: 2, b: 40 })).content;
  const weather = await getStructuredContent(client, { location: "Chicago" });
  const humidity: number = weather.humidity;
  out.weather = { humidity, conditions: weather.conditions };
}
{
  await using client = await connect(${JSON.stringify(ZOO)}, { reconnect: false });
  const root = await tree(client, { depth: 2 });
  const child: TreeResultNode = root.children[0];
  out.tree = [root.value, child.value, child.children[0].value, child.children[0].children.length];
  out.wire = [
    (await deleteTool(client)).content,
    (await getSum2(client)).content,
    (await evil2J(client)).content,
  ];
  try {
    await fails(client);
    out.fails = "resolved";
  } catch (error) {
    out.fails = isMcpError(error) ? [error.kind, error.reason] : String(error);
  }
}
{
  await using client = await connect(${JSON.stringify(MODERN)}, { reconnect: false });
  const { sum } = await add(client, { a: 2, b: 40 });
  out.add = sum;
}
console.log(JSON.stringify(out));
`;

/** The README's `emit-ts` section: its excerpt of the module, and its script. */
function readmeBlocks(): { excerpt: string; script: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### Typed wrappers: `emit-ts`"));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  return { excerpt: blocks[0], script: blocks[1] };
}

/** One wrong argument type: get-sum takes numbers. */
const WRONG_ARG = `
import type { McpClient } from ${JSON.stringify(MOD)};
import { getSum } from "./everything.ts";

export async function sum(client: McpClient) {
  return await getSum(client, { a: "two", b: 1 });
}
`;

/** One wrong use of a structured result: a node's value is a number. */
const WRONG_RESULT = `
import type { McpClient } from ${JSON.stringify(MOD)};
import { tree } from "./zoo.ts";

export async function label(client: McpClient): Promise<string> {
  const root = await tree(client);
  return root.children[0].value;
}
`;

test(
  "cli emit-ts: wrappers format, lint and type-check, wrong types fail deno check, calls reach the real servers",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "conduit-emit-"));
    try {
      const everything = await emit(dir, "everything.ts", EVERYTHING_CMD);
      assertStringIncludes(everything, `from ${JSON.stringify(MOD)};`);
      assertStringIncludes(
        everything,
        "export type GetSumArgs = {\n  /** First number */\n  a: number;",
      );
      assertStringIncludes(everything, "): Promise<GetStructuredContentResult> {");
      assertStringIncludes(everything, 'location: "New York" | "Chicago" | "Los Angeles";');
      const zoo = await emit(dir, "zoo.ts", ZOO);
      // No comment ended early: with every comment removed, the breakout text is gone.
      const code = zoo.replace(/\/\*[\s\S]*?\*\//g, "");
      assert(!code.includes("pwned"), code);
      // deno-lint-ignore no-control-regex -- finding ESC is the point
      assert(!/[\u001b\u202e]/.test(zoo), "no escape or bidi character in the module");
      assertStringIncludes(zoo, 'client.callTool("evil*/\\u001b[2J\\u202e", args, options)');
      await emit(dir, "modern.ts", MODERN);
      const readme = readmeBlocks();
      assertStringIncludes(everything, readme.excerpt);
      const target =
        '{\n  command: "npx",\n  args: ["-y", "@modelcontextprotocol/server-everything"],\n}';
      assertStringIncludes(readme.script, target);
      writeFileSync(
        join(dir, "readme.ts"),
        readme.script.replace('"jsr:@conduit/mcp"', JSON.stringify(MOD))
          .replace(target, JSON.stringify(EVERYTHING_CMD)),
      );
      writeFileSync(join(dir, "use.ts"), USE);
      writeFileSync(join(dir, "wrong_arg.ts"), WRONG_ARG);
      writeFileSync(join(dir, "wrong_result.ts"), WRONG_RESULT);

      // As the formatter writes them (its defaults: no config).
      const files = ["everything.ts", "zoo.ts", "modern.ts"];
      const fmt = await run(DENO, ["fmt", "--no-config", "--check", ...files], dir);
      assertEquals(fmt.code, 0, fmt.stdout + fmt.stderr);
      const lint = await run(DENO, ["lint", "--no-config", ...files], dir);
      assertEquals(lint.code, 0, lint.stdout + lint.stderr);
      // One check over the good files and the wrong scripts together (one type-check of the
      // library, not two): exactly the two wrong lines fail, nothing in the good files.
      const checked = await denoCheck(dir, [
        ...files,
        "use.ts",
        "readme.ts",
        "wrong_arg.ts",
        "wrong_result.ts",
      ]);
      assert(checked.code !== 0, "the wrong scripts fail the check");
      // deno check colours its report when FORCE_COLOR is set, whatever its value.
      // deno-lint-ignore no-control-regex -- matching ESC is the point
      const report = checked.stderr.replace(/\x1b\[[0-9;]*m/g, "");
      const errors = report.match(/TS\d+ \[ERROR\]/g) ?? [];
      assertEquals(errors.length, 2, report);
      // Where each error is (its first "at" line; the lines after it only point at types).
      const places = [...report.matchAll(/^ {4}at file:\/\/\S*\/([a-z_]+\.ts):\d+:\d+$/gm)]
        .map((m) => m[1]);
      assertEquals(places.sort(), ["wrong_arg.ts", "wrong_result.ts"], report);
      assertMatch(
        report,
        /TS2322 \[ERROR\]: Type 'string' is not assignable to type 'number'[\s\S]*wrong_arg\.ts:6/,
      );
      assertMatch(
        report,
        /TS2322 \[ERROR\]: Type 'number' is not assignable to type 'string'[\s\S]*wrong_result\.ts:7/,
      );

      const used = await runScript(dir, "use.ts");
      assertEquals(used.code, 0, used.stderr);
      const out = JSON.parse(used.stdout);
      assertEquals(out.sum, [{ type: "text", text: "The sum of 2 and 40 is 42." }]);
      assertEquals(out.weather, { humidity: 82, conditions: "Light rain / drizzle" });
      assertEquals(out.tree, [0, 1, 2, 0]);
      const texts = (out.wire as { text: string }[][]).map((content) => content[0].text);
      assertEquals(texts, ["deleted", "underscore", "evil"]);
      assertEquals(out.fails, ["server", "tool_error"]);
      assertEquals(out.add, 42);
      const readmeRun = await runScript(dir, "readme.ts");
      assertEquals([readmeRun.code, readmeRun.stdout], [0, "82\n"], readmeRun.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  SLOW,
);

test(
  "cli emit-ts: the same module on stdout each run, --json names the functions, a bad --import is refused",
  async () => {
    const first = await runCli(["emit-ts", "--", ZOO.command, ...ZOO.args]);
    assertEquals(first.code, 0, first.stderr);
    const second = await runCli(["emit-ts", "--", ZOO.command, ...ZOO.args]);
    assertEquals(second.stdout, first.stdout);
    assertStringIncludes(first.stdout, 'from "jsr:@conduit/mcp@^0.1.0";');
    const json = await runCli([
      "emit-ts",
      "--json",
      "--import",
      "npm:@conduit/mcp",
      ...EVERYTHING_STDIO,
    ]);
    assertEquals(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout);
    assertStringIncludes(report.source, 'from "npm:@conduit/mcp";');
    const sum = report.functions.find((f: { tool: string }) => f.tool === "get-sum");
    assertEquals(sum, { tool: "get-sum", function: "getSum", args: "GetSumArgs" });
    const structured = report.functions.find((f: { tool: string }) =>
      f.tool === "get-structured-content"
    );
    assertEquals(structured.result, "GetStructuredContentResult");
    const help = await runCli(["emit-ts", "--help"]);
    assertEquals(help.code, 0, help.stderr);
    assert(help.stdout.startsWith("Usage: conduit-mcp emit-ts "), help.stdout);
    const bad = await runCli(["emit-ts", "--import", " ", ...EVERYTHING_STDIO]);
    assertEquals(bad.code, 2, bad.stderr);
    assertStringIncludes(bad.stderr, "--import needs a module specifier");
  },
  { timeout: 120_000 },
);

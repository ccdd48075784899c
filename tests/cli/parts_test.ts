// The CLI's pure parts, table-first: the command line, arguments read by a schema and
// checked before sending, the progress line, content for a terminal, failures and exit codes.
import { parseArgs } from "../../cli/_args.ts";
import { parseServers } from "../../cli/_config.ts";
import { ArgumentsError, describeFailure } from "../../cli/_errors.ts";
import { clean, renderBlock, renderToolResult, table } from "../../cli/_format.ts";
import {
  renderConnecting,
  renderProgress,
  startConnecting,
  startProgress,
} from "../../cli/_progress.ts";
import { didYouMean } from "../../cli/_suggest.ts";
import { colorOn, type Terminal } from "../../cli/terminal.ts";
import {
  checkToolArgs,
  parameterNames,
  parameters,
  parseToolArgs,
  unnamedArgs,
} from "../../cli/_tool_args.ts";
import { isMcpError, McpError } from "../../mod.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
  test,
} from "../_harness.ts";

test("cli args: the command, its words, flags, and the server after -- or as a URL", () => {
  const cases: [string[], Record<string, unknown>][] = [
    [["tools", "--", "npx", "-y", "server-x"], {
      command: "tools",
      words: [],
      serverCommand: ["npx", "-y", "server-x"],
    }],
    [["call", "add", "http://127.0.0.1:9/mcp", "a=1", "--json"], {
      command: "call",
      words: ["add", "a=1"],
      server: "http://127.0.0.1:9/mcp",
      json: true,
    }],
    // With --server given, an http URL among the words is a word (read <uri>).
    [["read", "https://example.com/doc", "--server", "docs"], {
      command: "read",
      words: ["https://example.com/doc"],
      server: "docs",
    }],
    [["status", "-H", "X-Key: 1", "--header=Y: 2", "--timeout", "500", "--protocol=legacy"], {
      command: "status",
      headers: ["X-Key: 1", "Y: 2"],
      timeout: 500,
      protocol: "legacy",
    }],
  ];
  for (const [argv, expected] of cases) {
    const parsed = parseArgs(argv);
    const seen: Record<string, unknown> = {
      command: parsed.command,
      words: parsed.words,
      serverCommand: parsed.serverCommand,
      server: parsed.flags.server,
      json: parsed.flags.json,
      headers: parsed.flags.headers,
      timeout: parsed.flags.timeout,
      protocol: parsed.flags.protocol,
    };
    for (const [key, value] of Object.entries(expected)) {
      assertEquals(seen[key], value, `${argv.join(" ")}: ${key}`);
    }
  }
});

test("cli args: bad flags are usage errors naming the flag", () => {
  const cases: [string[], string][] = [
    [["tools", "--frob"], "unknown flag --frob"],
    [["tools", "--timeout"], "--timeout needs a value"],
    [["tools", "--timeout", "soon"], "--timeout takes milliseconds"],
    [["tools", "--header", "no colon"], "--header takes"],
    [["tools", "--json=yes"], "--json takes no value"],
    [["tools", "--"], "nothing after --"],
  ];
  for (const [argv, message] of cases) {
    const error = assertThrows(() => parseArgs(argv), TypeError);
    assertStringIncludes(error.message, message);
  }
});

const SCHEMA = {
  type: "object",
  properties: {
    n: { type: "integer", minimum: 1, maximum: 20 },
    x: { type: "number" },
    on: { type: "boolean" },
    tags: { type: "array" },
    opts: { type: "object" },
    name: { type: "string" },
    mode: { enum: ["fast", "slow"] },
    either: { type: ["number", "string"] },
  },
  required: ["n"],
  additionalProperties: false,
};

test("cli tool args: key=value read by the input schema, over --args JSON", () => {
  const args = parseToolArgs(
    ["n=3", "x=-1.5", "on=false", "tags=[1,2]", 'opts={"a":1}', "name=42", "either=7", "mode=fast"],
    '{"name":"base","extra":true}',
    SCHEMA,
  );
  assertEquals(args, {
    n: 3,
    x: -1.5,
    on: false,
    tags: [1, 2],
    opts: { a: 1 },
    name: "42",
    either: 7,
    mode: "fast",
    extra: true,
  });
  assertEquals(parseToolArgs(["either=abc", "v=a=b"], undefined, SCHEMA), {
    either: "abc",
    v: "a=b",
  });
});

test("cli tool args: values the schema refuses fail before anything is sent", () => {
  const cases: [string[], string | undefined, string][] = [
    [["n=three"], undefined, "argument n: expected an integer"],
    [["n=1.5"], undefined, "argument n: expected an integer"],
    [["on=maybe"], undefined, "argument on: expected true or false"],
    [["tags={}"], undefined, "argument tags: expected a JSON array"],
    [["noequals"], undefined, "expected key=value"],
    [[], "{not json", "--args is not JSON"],
    [[], "[1]", "--args must be a JSON object"],
  ];
  for (const [words, json, message] of cases) {
    const error = assertThrows(() => parseToolArgs(words, json, SCHEMA), TypeError);
    assertStringIncludes(error.message, message);
  }
  assertEquals(checkToolArgs({ n: 30, mode: "medium", other: 1 }, SCHEMA), [
    "argument n: at most 20",
    'argument mode: one of "fast", "slow"',
    "unknown argument other",
  ]);
  assertEquals(checkToolArgs({ x: 1 }, SCHEMA), ["missing required argument n"]);
  assertEquals(checkToolArgs({ n: 5 }, SCHEMA), []);
});

test("cli progress: a bar with a total, a spinner without, elapsed time, one line", () => {
  const bar = renderProgress("slow", { progress: 2, total: 4, message: "step 2" }, 1_500, 0, 80);
  assertEquals(bar, `slow  [${"█".repeat(10)}${"░".repeat(10)}]  2/4  50%  1.5s  step 2`);
  const spin = [0, 1].map((frame) => renderProgress("slow", { progress: 3 }, 61_000, frame, 80));
  assertEquals(spin, ["⠋  slow  3  1m01s", "⠙  slow  3  1m01s"]);
  const long = renderProgress("t", { progress: 1, total: 2, message: "x\n".repeat(100) }, 0, 0, 40);
  assertEquals(long.length, 39);
  assert(!long.includes("\n"), "one line");
});

test("cli progress: drawn in place on a TTY only, erased when the call ends", () => {
  const written: string[] = [];
  const term = (tty: boolean): Terminal => ({
    out: () => {},
    err: (text) => void written.push(text),
    tty,
    color: false,
    columns: 80,
    env: () => undefined,
    onInterrupt: () => () => {},
  });
  const quiet = startProgress(term(false), "slow");
  quiet.update({ progress: 1, total: 2 });
  quiet.stop();
  assertEquals(written, []);
  let clock = 1_000;
  const line = startProgress(term(true), "slow", () => clock);
  line.stop();
  assertEquals(written, [], "a call that ends at once leaves nothing");
  const live = startProgress(term(true), "slow", () => clock);
  clock += 500;
  live.update({ progress: 1, total: 2 });
  live.note("task working");
  live.stop();
  live.update({ progress: 2, total: 2 });
  assertEquals(written.length, 3);
  assert(written.every((text) => text.startsWith("\r\x1b[2K") && !text.includes("\n")));
  assertStringIncludes(written[0], "1/2  50%  0.5s");
  assertStringIncludes(written[1], "1/2  50%  0.5s  task working");
  assertEquals(written[2], "\r\x1b[2K");
});

test("cli format: tables, blocks shaped for a terminal, control characters removed", () => {
  assertEquals(
    table(["NAME", "DESCRIPTION"], [["a\x1b[2J", "x"], ["bb", "y"]], 80, false),
    "NAME  DESCRIPTION\na     x\nbb    y\n",
  );
  assertEquals(
    renderBlock({ type: "audio", mimeType: "audio/wav", data: "A".repeat(4096) }),
    "[audio audio/wav, 3.0 KiB]",
  );
  assertEquals(
    renderBlock({ type: "resource_link", uri: "demo://x", name: "x" }),
    "[link demo://x (x)]",
  );
  assertEquals(clean("a\x07b\nc", true), "ab\nc");
  const failed = renderToolResult(
    { content: [{ type: "text", text: "boom" }], isError: true },
    false,
  );
  assertEquals(failed, "The tool reported an error:\nboom\n");
  const structured = renderToolResult({
    content: [{ type: "text", text: '{"sum":42}' }],
    structuredContent: { sum: 42 },
    isError: false,
  }, false);
  assertEquals(structured, '{\n  "sum": 42\n}\n');
});

test("cli errors: one line with a hint, the exit code by kind, causes with --verbose", () => {
  const at = { server: "http://127.0.0.1:9/mcp", connected: true, verbose: false };
  const cases: [unknown, boolean, number, string][] = [
    [new TypeError("unknown flag --x"), true, 2, "error: unknown flag --x"],
    [new McpError("Unauthorized (401)", { kind: "auth" }), true, 3, "conduit-mcp login http://"],
    [new McpError("Cannot reach", { kind: "transport" }), false, 3, "is the server running"],
    [new McpError("Method not found", { kind: "server", code: -32601 }), true, 1, "Method not"],
    [new McpError("Too slow", { kind: "timeout" }), true, 1, "raise --timeout"],
    [new McpError("Too slow", { kind: "timeout" }), false, 3, "raise --timeout"],
    [new McpError("Cancelled", { kind: "cancelled" }), true, 130, "Cancelled."],
  ];
  for (const [error, connected, code, text] of cases) {
    const failure = describeFailure(error, { ...at, connected });
    assertEquals(failure.code, code, String(error));
    assertStringIncludes(failure.text, text);
    assertEquals(failure.text.trimEnd().split("\n").length, 1, failure.text);
  }
  const refused = new McpError("Unauthorized (401)", { kind: "auth" });
  const given = describeFailure(refused, { ...at, authHeader: true }).text;
  assertStringIncludes(given, "the server refused the Authorization header given");
  const root = new Error("ECONNREFUSED");
  const chained = new McpError("Cannot reach", { kind: "transport", cause: root });
  const verbose = describeFailure(chained, { ...at, verbose: true }).text;
  assertStringIncludes(verbose, "caused by Error: ECONNREFUSED");
});

test("cli colours: only on a TTY, never with NO_COLOR; config files name servers", async () => {
  assertEquals([colorOn(true, undefined), colorOn(true, ""), colorOn(false, undefined)], [
    true,
    false,
    false,
  ]);
  const env = (name: string) => ({ API_KEY: "k-1" } as Record<string, string>)[name];
  const config = await parseServers(
    `{
      // JSONC, as hosts write it
      "mcpServers": {
        "local": { "command": "node", "args": ["\${workspaceFolder}/server.js"], "env": { "A": "1" } },
        "remote": { "url": "https://mcp.example.com/mcp", "headers": { "X-Key": "\${env:API_KEY}" } },
        "off": { "command": "node", "disabled": true },
      },
    }`,
    "/work/project/.vscode/mcp.json",
    env,
  );
  assertEquals(Object.keys(config.servers), ["local", "remote"]);
  assertEquals(config.servers.local.args, ["/work/project/server.js"]);
  assertEquals(config.servers.remote.url, "https://mcp.example.com/mcp");
  assertEquals(config.servers.remote.headers, { "X-Key": "k-1" });
  const error = await assertRejects(() => parseServers("{}", "/work/mcp.json", env));
  assertEquals([isMcpError(error), (error as McpError).kind], [true, "config"]);
  assertEquals(describeFailure(error, { connected: false, verbose: false }).code, 2);
});

test("cli parameters: names for the tools table, types for --help, keys the schema lacks", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: "number", description: "First\nmore" },
      kind: { enum: ["x", "y"], title: "Kind" },
      n: { type: ["integer", "null"], default: 3 },
      free: {},
    },
    required: ["a", "kind"],
  };
  assertEquals(parameters(schema), [
    { name: "a", type: "number", required: true, description: "First" },
    { name: "kind", type: 'one of "x", "y"', required: true, description: "Kind" },
    { name: "n", type: "integer or null (default 3)", required: false, description: "" },
    { name: "free", type: "any", required: false, description: "" },
  ]);
  assertEquals(parameterNames(schema), "a kind n? free?");
  assertEquals(parameterNames({ type: "object" }), "-");
  assertEquals(parameterNames(schema, 8), "a kind …");
  assertEquals(unnamedArgs({ a: 1, c: 2, d: 3 }, schema), ["c", "d"]);
  // A schema that refuses other keys reports them itself (checkToolArgs), as errors.
  assertEquals(unnamedArgs({ c: 1 }, { ...schema, additionalProperties: false }), []);
  assertEquals(unnamedArgs({ c: 1 }, undefined), []);
});

test("cli suggestions and the connecting line", () => {
  assertEquals(didYouMean("tool", ["tools", "call", "servers"]), " (did you mean tools?)");
  assertEquals(didYouMean("--jsn", ["--json", "--verbose"]), " (did you mean --json?)");
  assertEquals(didYouMean("Servers", ["servers"]), " (did you mean servers?)");
  assertEquals(didYouMean("zzz", ["tools"]), "");
  assertEquals(renderConnecting("npx -y server", 3_999, 80), "connecting to npx -y server (3 s)");
  const long = renderConnecting("x".repeat(200) + "\x1b[2J", 12_000, 40);
  assertEquals([long.length, long.endsWith("… (12 s)"), long.includes("\x1b")], [39, true, false]);
  const written: string[] = [];
  const clock = 0;
  const stop = startConnecting(
    {
      out: () => {},
      err: (text) => void written.push(text),
      tty: true,
      color: false,
      columns: 80,
      env: () => undefined,
      onInterrupt: () => () => {},
    },
    "srv",
    () => clock,
  );
  stop();
  assertEquals(written, [], "a connect that ends at once leaves nothing");
});

test("cli errors: --json failures, an exit before answering, a start failure named once", () => {
  const exited = new McpError(
    "The server process exited with code 5; its stderr ends with:\nboom",
    {
      kind: "transport",
      reason: "process_exited",
    },
  );
  const early = describeFailure(exited, { server: "srv", connected: false, verbose: false });
  assertEquals(
    early.text,
    "error: The server process exited with code 5 before answering (srv); its stderr ends with:\nboom\n",
  );
  assertEquals(early.json, {
    message:
      "The server process exited with code 5 before answering (srv); its stderr ends with:\nboom",
    exitCode: 3,
    kind: "transport",
    reason: "process_exited",
    server: "srv",
  });
  // After the handshake it is no longer "before answering".
  const late = describeFailure(exited, { server: "srv", connected: true, verbose: false });
  assert(!late.text.includes("before answering"), late.text);
  const missing = new McpError(
    'Cannot start "nope": the command (or the working directory) was not found (nope: not found)',
    { kind: "transport", reason: "command_not_found" },
  );
  const start = describeFailure(missing, { server: "nope a b", connected: false, verbose: false });
  assertEquals(
    start.text,
    'error: Cannot start "nope": the command (or the working directory) was not found — is it ' +
      "installed, and on PATH?\n",
  );
  const refused = describeFailure(new ArgumentsError(["missing b", "bad\x1b[2Ja"], "x takes:\n"), {
    connected: true,
    verbose: false,
  });
  assertEquals(refused.text, "error: missing b\nerror: bada\nx takes:\n");
  assertEquals(refused.json.problems, ["missing b", "bada"]);
  assertEquals(refused.code, 2);
  const unreachable = new McpError("Cannot reach", { kind: "transport", reason: "fetch_failed" });
  const noPointer = describeFailure(unreachable, { server: "u", connected: false, verbose: true });
  assert(!noPointer.text.includes("--verbose shows more"), noPointer.text);
  const pointer = describeFailure(unreachable, { server: "u", connected: false, verbose: false });
  assertStringIncludes(pointer.text, "(--verbose shows more)");
});

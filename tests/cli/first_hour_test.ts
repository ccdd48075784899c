// The CLI in a person's first hour, as a subprocess: a tool's arguments (`call <tool> --help`,
// arguments the schema does not name), failures that say what happened (a server that exits
// before answering, a command that cannot start, did-you-mean, JSON failures), config files
// (`--config` alone, `servers`), the real wire under `--verbose` with a server's stray stdout
// lines, and `read --out`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { EVERYTHING, EVERYTHING_STDIO, runCli } from "./_helpers.ts";

const OPTS = { timeout: 90_000 };

/** A 127.0.0.1 port where nothing listens (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

test(
  "cli first hour: call <tool> --help, the parameters after a refusal, unnamed arguments",
  async () => {
    const help = await runCli(["call", "get-sum", "--help", ...EVERYTHING_STDIO]);
    assertEquals(help.code, 0, help.stderr);
    assertEquals(help.stdout.split("\n").slice(0, 8), [
      "Usage: conduit-mcp call get-sum a=<number> b=<number> <server>",
      "",
      "Returns the sum of two numbers",
      "",
      "Arguments:",
      "  NAME  TYPE    REQUIRED  DESCRIPTION",
      "  a     number  yes       First number",
      "  b     number  yes       Second number",
    ]);
    // Optional ones in brackets, enums and defaults in the type.
    const links = await runCli(["call", "get-annotated-message", "--help", ...EVERYTHING_STDIO]);
    assertEquals(links.code, 0, links.stderr);
    assertStringIncludes(links.stdout, "[includeImage=<boolean>]");
    assert(
      /^ {2}messageType +one of "error", "success", "debug" +yes/m.test(links.stdout),
      links.stdout,
    );
    // Without a server, `call --help` is the command's own help.
    const plain = await runCli(["call", "get-sum", "--help"]);
    assertEquals(plain.code, 0);
    assert(plain.stdout.startsWith("Usage: conduit-mcp call <tool>"), plain.stdout);

    const missing = await runCli(["call", "get-sum", "a=1", ...EVERYTHING_STDIO]);
    assertEquals(missing.code, 2);
    assertEquals(
      missing.stderr,
      [
        "error: missing required argument b",
        "get-sum takes:",
        "  NAME  TYPE    REQUIRED  DESCRIPTION",
        "  a     number  yes       First number",
        "  b     number  yes       Second number",
        "",
      ].join("\n"),
    );
    assert(!missing.stderr.includes("tools --json"), "no pointer to tools --json");

    const extra = await runCli(["call", "get-sum", "a=1", "b=2", "c=3", ...EVERYTHING_STDIO]);
    assertEquals([extra.code, extra.stdout], [0, "The sum of 1 and 2 is 3.\n"], extra.stderr);
    assertEquals(extra.stderr, "warning: c is not a parameter of get-sum (it takes: a, b)\n");
    const typo = await runCli(["call", "echo", "message=hi", "mesage=x", ...EVERYTHING_STDIO]);
    assertEquals(typo.code, 0, typo.stderr);
    assertEquals(
      typo.stderr,
      "warning: mesage is not a parameter of echo (did you mean message?) (it takes: message)\n",
    );
  },
  OPTS,
);

test(
  "cli first hour: an exit before answering, a command named once, --verbose's pointer",
  async () => {
    for (let i = 0; i < 3; i++) {
      // Under Deno a write to the dead process used to fail first: "Cannot write to the server".
      const exited = await runCli(["tools", "--", "sh", "-c", "echo boom >&2; exit 5"]);
      assertEquals([exited.code, exited.stderr], [
        3,
        "error: The server process exited with code 5 before answering (sh -c echo boom >&2; exit 5); " +
        "its stderr ends with:\nboom\n",
      ]);
      const silent = await runCli(["tools", "--", "false"]);
      assertEquals([silent.code, silent.stderr], [
        3,
        "error: The server process exited with code 1 before answering (false) — run the command " +
        "alone to see why\n",
      ]);
    }
    const gone = await runCli(["tools", "--", "conduit-no-such-command-xyz", "arg"]);
    assertEquals(gone.code, 3);
    assertEquals(gone.stderr.split("conduit-no-such-command-xyz").length, 2, gone.stderr);
    assertEquals(
      gone.stderr,
      'error: Cannot start "conduit-no-such-command-xyz": the command (or the working directory) ' +
        "was not found — is it installed, and on PATH?\n",
    );
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const quiet = await runCli(["tools", url]);
    assertEquals(quiet.code, 3);
    assertStringIncludes(quiet.stderr, "(--verbose shows more)");
    const verbose = await runCli(["tools", "--verbose", url]);
    assertEquals(verbose.code, 3);
    assertStringIncludes(verbose.stderr, "is the server running, and is the command or URL right?");
    assert(!verbose.stderr.includes("--verbose shows more"), verbose.stderr);
  },
  OPTS,
);

test(
  "cli first hour: did you mean, for commands, flags, tools, prompts and config names",
  async () => {
    const command = await runCli(["tool", ...EVERYTHING_STDIO]);
    assertEquals([command.code, command.stderr], [
      2,
      "error: unknown command tool (did you mean tools?) (see conduit-mcp --help)\n",
    ]);
    const flag = await runCli(["tools", "--jsn", ...EVERYTHING_STDIO]);
    assertEquals([flag.code, flag.stderr], [
      2,
      "error: unknown flag --jsn (did you mean --json?) (see conduit-mcp --help)\n",
    ]);
    const far = await runCli(["frobnicate"]);
    assertEquals(far.stderr, "error: unknown command frobnicate (see conduit-mcp --help)\n");
    const tool = await runCli(["call", "get-sun", "a=1", "b=2", ...EVERYTHING_STDIO]);
    assertEquals([tool.code, tool.stderr], [
      2,
      "error: the server has no tool get-sun (did you mean get-sum?) (see conduit-mcp call --help)\n",
    ]);
    const prompt = await runCli(["prompt", "args-promt", "city=Paris", ...EVERYTHING_STDIO]);
    assertEquals(prompt.code, 2);
    assertStringIncludes(prompt.stderr, "no prompt args-promt (did you mean args-prompt?)");
    const dir = mkdtempSync(join(tmpdir(), "conduit-cli-near-"));
    try {
      const file = join(dir, "mcp.json");
      writeFileSync(file, JSON.stringify({ mcpServers: { everything: { command: "node" } } }));
      const server = await runCli(["tools", "--config", file, "-s", "evrything"]);
      assertEquals(server.code, 2);
      assertStringIncludes(server.stderr, "has no server evrything (did you mean everything?)");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  OPTS,
);

test("cli first hour: with --json a failure is a JSON object on stdout", async () => {
  const usage = await runCli(["tools", "--json", "--jsn"]);
  assertEquals([usage.code, usage.stderr], [2, ""]);
  assertEquals(JSON.parse(usage.stdout), {
    error: {
      message: "unknown flag --jsn (did you mean --json?)",
      hint: "see conduit-mcp --help",
      exitCode: 2,
    },
  });
  const exited = await runCli(["tools", "--json", "--", "sh", "-c", "echo boom >&2; exit 5"]);
  assertEquals([exited.code, exited.stderr], [3, ""]);
  assertEquals(JSON.parse(exited.stdout), {
    error: {
      message:
        "The server process exited with code 5 before answering (sh -c echo boom >&2; exit 5); " +
        "its stderr ends with:\nboom",
      exitCode: 3,
      kind: "transport",
      reason: "process_exited",
      server: "sh -c echo boom >&2; exit 5",
    },
  });
  const args = await runCli(["call", "get-sum", "a=x", "--json", ...EVERYTHING_STDIO]);
  assertEquals([args.code, args.stderr], [2, ""]);
  assertEquals(JSON.parse(args.stdout).error.problems, ['argument a: expected a number, got "x"']);
}, OPTS);

test(
  "cli first hour: --config alone lists the servers; servers reports each one's state",
  async () => {
    await using guarded = await startHttpFixture({ http: { requireToken: "t0ken-for-the-test" } });
    const nowhere = `http://127.0.0.1:${await closedPort()}/mcp`;
    const dir = mkdtempSync(join(tmpdir(), "conduit-cli-servers-"));
    try {
      const file = join(dir, "mcp.json");
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            everything: { command: "node", args: [EVERYTHING] },
            broken: { command: "sh", args: ["-c", "echo boom >&2; exit 5"] },
            guarded: { url: guarded.url.href },
            nowhere: { url: nowhere },
          },
        }),
      );
      const listed = await runCli(["--config", file]);
      assertEquals(listed.code, 0, listed.stderr);
      assertEquals(listed.stdout.trimEnd().split("\n").map((line) => line.split(/\s{2,}/)), [
        ["NAME", "TYPE", "TARGET"],
        ["everything", "stdio", `node ${EVERYTHING}`],
        ["broken", "stdio", "sh -c echo boom >&2; exit 5"],
        ["guarded", "http", guarded.url.href],
        ["nowhere", "http", nowhere],
      ]);
      // A command without a server names the file's.
      const which = await runCli(["tools", "--config", file]);
      assertEquals(which.code, 2);
      assertStringIncludes(which.stderr, "(everything, broken, guarded, nowhere) with --server");

      const states = await runCli(["servers", "--config", file]);
      assertEquals(states.code, 3, states.stderr);
      const rows = states.stdout.trimEnd().split("\n").map((line) => line.split(/\s{2,}/));
      assertEquals(rows[0], ["NAME", "STATE", "DETAIL", "TARGET"]);
      const byName = Object.fromEntries(rows.slice(1).map((row) => [row[0], row]));
      assert(
        /^mcp-servers\/everything \S+, \d+ tools$/.test(byName.everything[2]),
        rows.join("\n"),
      );
      assertEquals(byName.everything[1], "✓ connected");
      assertEquals(byName.broken.slice(1, 3), [
        "✗ failed",
        "exited with code 5 before answering — stderr: boom",
      ]);
      assertEquals(byName.guarded[1], "! needs login");
      assertStringIncludes(byName.guarded[2], "log in with: conduit-mcp login guarded");
      assertEquals(byName.nowhere[1], "✗ failed");
      const json = await runCli(["servers", "--json", "--config", file]);
      assertEquals(json.code, 3);
      const report = JSON.parse(json.stdout) as { servers: { name: string; state: string }[] };
      assertEquals(report.servers.map((s) => [s.name, s.state]), [
        ["everything", "connected"],
        ["broken", "failed"],
        ["guarded", "needs login"],
        ["nowhere", "failed"],
      ]);
      const all = JSON.parse(json.stdout).servers[0];
      assert(all.tools > 0 && typeof all.version === "string", json.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  OPTS,
);

test(
  "cli first hour: --verbose shows the real wire and the server's stray stdout, redacted",
  async () => {
    const secret = "sk-verbose-secret-0123456789";
    const dir = mkdtempSync(join(tmpdir(), "conduit-cli-wire-"));
    try {
      const file = join(dir, "mcp.json");
      // A server that writes a line of its own on stdout first, with a key it was given.
      const script = `echo "starting with key $API_KEY"; exec node ${JSON.stringify(EVERYTHING)}`;
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: { chatty: { command: "sh", args: ["-c", script], env: { API_KEY: secret } } },
        }),
      );
      const run = await runCli([
        "call",
        "echo",
        "message=hi",
        "--verbose",
        "--config",
        file,
        "-s",
        "chatty",
      ]);
      assertEquals([run.code, run.stdout], [0, "Echo: hi\n"], run.stderr);
      assertStringIncludes(run.stderr, "← not JSON-RPC, skipped: starting with key [redacted]");
      assert(!run.stderr.includes(secret), "the key is never printed");
      // The client's own identity and the ids and progress tokens as they went.
      assertStringIncludes(run.stderr, '"clientInfo":{"name":"conduit-mcp-cli","version":"0.1.0"}');
      assert(!run.stderr.includes("recorded-client"), run.stderr);
      const call = run.stderr.split("\n").find((line) => line.includes('"method":"tools/call"'))!;
      const sent = JSON.parse(call.slice(call.indexOf("{")));
      assertEquals(sent.params._meta.progressToken, sent.id);
      const answer = run.stderr.split("\n").find((line) =>
        line.startsWith("← recv") && line.includes(`"id":${sent.id}`) && line.includes("Echo: hi")
      );
      assert(answer !== undefined, run.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  OPTS,
);

test("cli first hour: read --out saves a blob as its bytes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-cli-out-"));
  try {
    const out = join(dir, "blob.bin");
    const uri = "demo://resource/dynamic/blob/3";
    const json = await runCli(["read", uri, "--json", ...EVERYTHING_STDIO]);
    const blob = JSON.parse(json.stdout).contents[0].blob as string;
    const saved = await runCli(["read", uri, "--out", out, ...EVERYTHING_STDIO]);
    assertEquals(saved.code, 0, saved.stderr);
    const bytes = readFileSync(out);
    assertEquals(saved.stdout, `Saved ${bytes.length} B (text/plain) to ${out}\n`);
    // The server's text includes the time it made it: compare up to that.
    const expected = atob(blob);
    const got = new TextDecoder().decode(bytes);
    assert(got.startsWith("Resource 3: This is a base64 blob"), got);
    assertEquals(got.slice(0, 30), expected.slice(0, 30));
    const text = join(dir, "doc.md");
    const doc = await runCli([
      "read",
      "demo://resource/static/document/features.md",
      "--out",
      text,
      ...EVERYTHING_STDIO,
    ]);
    assertEquals(doc.code, 0, doc.stderr);
    assert(readFileSync(text, "utf8").length > 100);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, OPTS);

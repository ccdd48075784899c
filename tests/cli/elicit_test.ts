// The CLI answering a server's questions without a terminal (stdin not a TTY): an
// elicitation no rule answers gets `cancel` (never `decline`) and one stderr line naming the
// server and its sanitised message; `--answer key=value` and a config entry's `elicitation`
// rules answer by rule, values read by the field's type; in both eras (the fixture's legacy
// `elicitation/create` requests and modern `input_required` rounds) and against
// server-everything; sampling refused with the way to configure it, or answered by
// `--sample-command`; `--root` offering the working folder.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import process from "node:process";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";
import { parseArgs } from "../../cli/_args.ts";
import { answerRule, rootsOf } from "../../cli/_answers.ts";
import { checkedUrl } from "../../cli/_form.ts";
import { lineReader } from "../../cli/_line_reader.ts";
import { EVERYTHING_STDIO, runCli, tempConfig } from "./_helpers.ts";

const FIXTURE = scriptCommand(
  fileURLToPath(new URL("../fixtures/stdio_server.ts", import.meta.url)),
);

/** The fixture over stdio in one era, with the `mrtr` tool listed. */
function fixture(mode: "legacy-only" | "modern-only"): string[] {
  const knobs = JSON.stringify({ mode, listMrtr: true });
  return ["--", "env", `FIXTURE_KNOBS=${knobs}`, FIXTURE.command, ...FIXTURE.args];
}

const FORM = {
  method: "elicitation/create",
  params: {
    message: "Deploy where?",
    requestedSchema: {
      type: "object",
      properties: {
        env: {
          type: "string",
          title: "Environment",
          oneOf: [{ const: "stg", title: "Staging" }, {
            const: "prd",
            title: "Production",
          }],
        },
        replicas: { type: "integer", minimum: 1, maximum: 9 },
        notify: { type: "boolean", default: false },
        note: { type: "string" },
      },
      required: ["env", "replicas"],
    },
  },
};
const HOSTILE = "Sign\x1b[2J\x1b[H in \u202eplease\x07";
const URL_REQUEST = {
  method: "elicitation/create",
  params: { mode: "url", message: HOSTILE, url: "https://auth.example/x", elicitationId: "e1" },
};

for (const mode of ["legacy-only", "modern-only"] as const) {
  test(
    `cli elicit (${mode}): a rule from the config answers, the rest is cancelled with a line`,
    async () => {
      const config = tempConfig();
      try {
        const file = join(config.dir, "mcp.json");
        const [, ...server] = fixture(mode);
        writeFileSync(
          file,
          JSON.stringify({
            mcpServers: {
              fx: {
                command: server[0],
                args: server.slice(1),
                elicitation: [{ match: "Deploy", answer: { env: "Production", replicas: "3" } }],
              },
            },
          }),
        );
        const plan = [{ form: FORM, link: URL_REQUEST }];
        const run = await runCli(
          ["call", "mrtr", "--args", JSON.stringify({ plan }), "--config", file, "--server", "fx"],
          { configDir: config.dir },
        );
        assertEquals(run.code, 0, run.stderr);
        const { rounds } = JSON.parse(run.stdout.trim());
        // The labelled choice read by its title, the integer typed as text read as a number,
        // the default filled in; the URL request, which no rule answers: cancel.
        assertEquals(rounds[0].form, {
          action: "accept",
          content: { env: "prd", replicas: 3, notify: false },
        });
        assertEquals(rounds[0].link, { action: "cancel" });
        const lines = run.stderr.trim().split("\n");
        assertEquals(lines.length, 1, run.stderr);
        assertEquals(
          lines[0],
          'fx asked "Sign in please": answered cancel (no terminal to ask on, and no --answer or ' +
            "config rule answers it)",
        );
      } finally {
        config.dispose();
      }
    },
    { timeout: 90_000 },
  );

  test(
    `cli elicit (${mode}): --answer values the form refuses answer cancel, saying why`,
    async () => {
      const plan = [{ form: FORM }];
      const run = await runCli([
        "call",
        "mrtr",
        "--args",
        JSON.stringify({ plan }),
        "--answer",
        "env=stg",
        "--answer",
        "replicas=12",
        ...fixture(mode),
      ]);
      assertEquals(run.code, 0, run.stderr);
      assertEquals(JSON.parse(run.stdout.trim()).rounds[0].form, { action: "cancel" });
      assertStringIncludes(run.stderr, 'field "replicas" must be at most 9');
      assertStringIncludes(run.stderr, "answered cancel");
    },
    { timeout: 90_000 },
  );
}

test(
  "cli elicit: server-everything's form cancelled without a terminal, answered by --answer",
  async () => {
    const cancelled = await runCli(["call", "trigger-elicitation-request", ...EVERYTHING_STDIO]);
    assertEquals(cancelled.code, 0, cancelled.stderr);
    assertStringIncludes(cancelled.stdout, "User cancelled the elicitation dialog");
    assert(!cancelled.stdout.includes("decline"), cancelled.stdout);
    assert(
      /asked "Please provide inputs for the following fields:": answered cancel/.test(
        cancelled.stderr,
      ),
      cancelled.stderr,
    );

    const answered = await runCli([
      "call",
      "trigger-elicitation-request",
      "--answer",
      "name=Ada Lovelace",
      "--answer",
      "check=yes",
      "--answer",
      "integer=7",
      "--answer",
      "untitledMultipleSelectEnum=Piano,Drums",
      "--answer",
      "titledSingleSelectEnum=Wonder Woman",
      "--json",
      ...EVERYTHING_STDIO,
    ]);
    assertEquals(answered.code, 0, answered.stderr);
    const text = JSON.parse(answered.stdout).content.map((c: { text: string }) => c.text).join("");
    const raw = JSON.parse(text.slice(text.indexOf("Raw result: ") + "Raw result: ".length));
    assertEquals(raw.action, "accept");
    assertEquals(raw.content.name, "Ada Lovelace");
    assertEquals(raw.content.check, true);
    assertEquals(raw.content.integer, 7);
    assertEquals(raw.content.untitledMultipleSelectEnum, ["Piano", "Drums"]);
    assertEquals(raw.content.titledSingleSelectEnum, "hero-3");
    // Fields left out get their defaults.
    assertEquals(raw.content.firstLine, "It was a dark and stormy night.");
    assertEquals(answered.stderr, "");
  },
  { timeout: 90_000 },
);

test("cli sampling: refused with how to configure it, answered by --sample-command", async () => {
  const refused = await runCli([
    "call",
    "trigger-sampling-request",
    "prompt=hi",
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(refused.code, 1, refused.stderr);
  // The server got the refusal, and said so in its tool error.
  assertStringIncludes(refused.stdout, "The client has no model to sample with");
  assertStringIncludes(
    refused.stderr,
    'asked to sample a model: refused. To answer, pass --sample-command "<command>"',
  );
  // One line, not also the client's warning about its handler.
  assertEquals(refused.stderr.trim().split("\n").length, 1, refused.stderr);

  // The command gets the request as JSON on stdin; what it prints is the reply.
  const script = `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{` +
    `const p=JSON.parse(s);process.stdout.write("echo: "+p.messages[0].content.text)})'`;
  const answered = await runCli([
    "call",
    "trigger-sampling-request",
    "prompt=tides",
    "--sample-command",
    script,
    ...EVERYTHING_STDIO,
  ]);
  assertEquals(answered.code, 0, answered.stderr);
  assertStringIncludes(
    answered.stdout,
    '"text": "echo: Resource trigger-sampling-request context: tides"',
  );
  assertStringIncludes(answered.stdout, '"role": "assistant"');
}, { timeout: 90_000 });

test("cli roots: --root offers the working folder, --root <dir> another", async () => {
  const config = tempConfig();
  try {
    const run = await runCli(
      ["call", "get-roots-list", "--root", "--root", config.dir, ...EVERYTHING_STDIO],
      { cwd: process.cwd() },
    );
    assertEquals(run.code, 0, run.stderr);
    assertStringIncludes(run.stdout, "(2 total)");
    assertStringIncludes(run.stdout, `URI: ${pathToFileURL(process.cwd()).href}`);
    assertStringIncludes(run.stdout, `URI: ${pathToFileURL(config.dir).href}`);
    // Without --root the client declares no roots, and the server has no such tool.
    const none = await runCli(["call", "get-roots-list", ...EVERYTHING_STDIO]);
    assertEquals(none.code, 2, none.stderr);
    assertStringIncludes(none.stderr, "has no tool get-roots-list");
  } finally {
    config.dispose();
  }
}, { timeout: 90_000 });

test("cli help: the flags that answer the server's questions", async () => {
  const help = await runCli(["--help"]);
  assertEquals(help.code, 0, help.stderr);
  for (const flag of ["--answer key=value", '--sample-command "<cmd>"', "--root [<dir>]"]) {
    assertStringIncludes(help.stdout, `\n  ${flag}  `);
  }
  const bad = await runCli(["call", "x", "--answer", "novalue", ...EVERYTHING_STDIO]);
  assertEquals(bad.code, 2);
  assertStringIncludes(bad.stderr, '--answer takes key=value, not "novalue"');
}, { timeout: 90_000 });

test("cli parts: --root's forms, the line reader's keys", async () => {
  const parsed = parseArgs([
    "call",
    "t",
    "--root",
    "--root",
    "./x",
    "--root=/abs",
    "k=v",
    "--root",
  ]);
  assertEquals(parsed.flags.roots, [".", "./x", "/abs", "."]);
  assertEquals(parsed.words, ["t", "k=v"]);
  assertEquals(rootsOf(["."], "/srv/app"), [{ uri: "file:///srv/app", name: "app" }]);
  assertEquals(answerRule(["a=1", "b=x=y"]), { answer: { a: "1", b: "x=y" } });

  let send = (_: string) => {};
  let stopped = false;
  const echoed: string[] = [];
  const reader = lineReader({
    read: (onData) => {
      send = onData;
      return () => void (stopped = true);
    },
  }, (text) => void echoed.push(text));
  const first = reader.line();
  // Typed ahead in one chunk: an arrow key ignored, Backspace, Enter, then the next line.
  send("ab\x1b[Dc\x7fd\rnext\r");
  assertEquals(await first, "abd");
  assertEquals(await reader.line(), "next");
  const third = reader.line();
  send("x\x03");
  assertEquals(await third, undefined); // Ctrl-C
  const controller = new AbortController();
  const fourth = reader.line(controller.signal);
  controller.abort();
  assertEquals(await fourth, undefined);
  assert(!echoed.join("").includes("\x1b"), JSON.stringify(echoed));
  reader.close();
  assert(stopped, "raw mode left");
}, { timeout: 90_000 });

const SAMPLE = {
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 },
};

test(
  "cli sampling in both eras: the refusal reaches the server (legacy) or ends the call (modern)",
  async () => {
    const args = ["call", "mrtr", "--args", JSON.stringify({ plan: [{ s: SAMPLE }] })];
    const legacy = await runCli([...args, ...fixture("legacy-only")]);
    assertEquals(legacy.code, 0, legacy.stderr);
    const error = JSON.parse(legacy.stdout.trim()).rounds[0].s.error;
    assertEquals(error.code, -1);
    assertStringIncludes(error.message, "The client has no model to sample with");
    const modern = await runCli([...args, ...fixture("modern-only")]);
    assertEquals(modern.code, 1, modern.stderr);
    assertStringIncludes(modern.stderr, "error: The client has no model to sample with");
    for (const run of [legacy, modern]) {
      assertStringIncludes(run.stderr, 'refused. To answer, pass --sample-command "<command>"');
    }
    const answered = await runCli([
      ...args,
      "--sample-command",
      "cat > /dev/null; echo sampled",
      ...fixture("modern-only"),
    ]);
    assertEquals(answered.code, 0, answered.stderr);
    assertEquals(JSON.parse(answered.stdout.trim()).rounds[0].s, {
      role: "assistant",
      content: { type: "text", text: "sampled" },
      model: "cat",
      stopReason: "endTurn",
    });
  },
  { timeout: 90_000 },
);

test("cli parts: a URL request opens only http(s) links without credentials", () => {
  const refused = (raw: unknown, needle: string) => {
    const checked = checkedUrl(raw);
    assert(typeof checked === "string", `${String(raw)} was accepted`);
    assertStringIncludes(checked, needle);
  };
  refused("javascript:alert(1)", "scheme");
  refused("file:///etc/passwd", "scheme");
  refused("data:text/html,<script>alert(1)</script>", "scheme");
  refused("https://user:secret@example.com/consent", "credentials");
  refused("https://:secret@example.com/", "credentials");
  refused("not a url", "not valid");
  refused(42, "no URL");
  // The scheme a server names is shown inert.
  const odd = checkedUrl("x\u001b[2J:payload");
  assert(typeof odd === "string" && !odd.includes("\u001b"), String(odd));
  const ok = checkedUrl("https://example.com/consent?state=1");
  assert(ok instanceof URL && ok.href === "https://example.com/consent?state=1");
});

// Item 25: what a hostile server writes reaches the terminal without its escape sequences
// (whole sequences removed, printable tails included), C1 controls or bidi overrides, on
// every path the CLI prints server text; --json escapes C1 and bidi characters.
import { fileURLToPath } from "node:url";
import { main } from "../../cli/main.ts";
import { clean } from "../../cli/_format.ts";
import type { Terminal } from "../../cli/terminal.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { runCli } from "../cli/_helpers.ts";

const HOSTILE = fileURLToPath(
  new URL("../fixtures/hostile_terminal_server.mjs", import.meta.url),
);

function fakeTerminal(): Terminal & { stdout: string; stderr: string } {
  const term = {
    stdout: "",
    stderr: "",
    out(text: string) {
      term.stdout += text;
    },
    err(text: string) {
      term.stderr += text;
    },
    tty: false,
    color: false,
    columns: Infinity,
    env: (_name: string) => undefined,
    onInterrupt: () => () => {},
  };
  return term;
}

/**
 * Nothing of the hostile sequences, nor their printable tails, is left in `text`; with
 * `escapedOk`, text JSON escaped (the wire under --verbose, --json) may spell them out.
 */
function assertInert(text: string, where: string, escapedOk = false): void {
  assert(
    // deno-lint-ignore no-control-regex
    !/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text),
    `${where}: a control character in ${JSON.stringify(text)}`,
  );
  assert(!/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(text), `${where}: a bidi control`);
  if (escapedOk) {
    const lines = text.split("\n").filter((line) => !/^(?:→|←)|^\s*"/.test(line));
    if (lines.length === 0) return;
    text = lines.join("\n");
  }
  for (const tail of ["Q0xJUEJPQVJE", "TITLEPWNED", "evil.example", "52;c", "2J", "31m"]) {
    assert(!text.includes(tail), `${where}: the tail ${tail} is left in ${JSON.stringify(text)}`);
  }
}

async function run(argv: string[]) {
  const term = fakeTerminal();
  const code = await main([...argv, "--", "node", HOSTILE], term);
  return { code, ...term };
}

test("item 25: the one sanitiser removes whole escape sequences, C1 controls and bidi overrides", () => {
  const text =
    "a\x1b]52;c;Q0xJUEJPQVJE\x07b\x1b]0;TITLEPWNED\x1b\\c\x1b]8;;http://evil.example/\x1b\\d" +
    "\x1b[2Je\x9b31mf\x9d0;TITLEPWNED\x9cg\u202eh\u2066i\x1bPq2J\x1b\\j\x1b(Bk";
  assertEquals(clean(text), "abcdefghijk");
  assertEquals(clean("one\ntwo\x1b[2J\tthree", true), "one\ntwo\tthree");
  // An unterminated OSC takes the rest of the text with it, not only its introducer.
  assertInert(clean("x\x1b]52;c;Q0xJUEJPQVJE"), "unterminated");
});

test("item 25: an unknown tool's or prompt's error lists the server's names inert", async () => {
  const tool = await run(["call", "nosuch"]);
  assertEquals(tool.code, 2);
  assertStringIncludes(tool.stderr, "has no tool nosuch");
  assertStringIncludes(tool.stderr, "toollinkevil");
  assertInert(tool.stderr, "call");
  const prompt = await run(["prompt", "nosuch"]);
  assertEquals(prompt.code, 2);
  assertStringIncludes(prompt.stderr, "promptlinkevil");
  assertInert(prompt.stderr, "prompt");
});

test("item 25: a server's error message is printed inert", async () => {
  const result = await run(["call", "fails"]);
  assertStringIncludes(result.stderr, "refused");
  assertInert(result.stderr, "error message");
  const verbose = await run(["call", "fails", "--verbose"]);
  assertStringIncludes(verbose.stderr, "refused");
  assertInert(verbose.stderr, "error message with causes", true);
});

test("item 25: the schema's values in an argument problem are printed inert", async () => {
  const result = await run(["call", "pick", "v=x"]);
  assertEquals(result.code, 2);
  assertStringIncludes(result.stderr, "argument v");
  assert(!/[\x80-\x9f\u202e]/.test(result.stderr), JSON.stringify(result.stderr));
});

test("item 25: a crashed server's stderr tail is printed inert", async () => {
  const term = fakeTerminal();
  const code = await main(["status", "--", "node", HOSTILE, "crash"], term);
  assertEquals(code, 3);
  assertStringIncludes(term.stderr, "stderr linkevil");
  assertInert(term.stderr, "stderr tail");
});

test("item 25: status prints the server's capability keys inert; --json escapes C1 and bidi", async () => {
  const result = await run(["status"]);
  assertEquals(result.code, 0);
  assertStringIncludes(result.stdout, "capslinkevil");
  assertInert(result.stdout, "status");
  const json = await run(["status", "--json"]);
  assertEquals(json.code, 0);
  assertInert(json.stdout, "status --json", true);
  assertStringIncludes(json.stdout, "\\u009b31m\\u202eevil");
  const parsed = JSON.parse(json.stdout);
  assert(Object.keys(parsed.capabilities).some((key) => key.endsWith("\x9b31m\u202eevil")));
});

test("item 25: --verbose shows the server's stderr inert", async () => {
  const result = await runCli(["status", "--verbose", "--", "node", HOSTILE]);
  assertEquals(result.code, 0, result.stderr);
  assertStringIncludes(result.stderr, "stderr linkevil");
  assertInert(result.stderr, "--verbose stderr", true);
});

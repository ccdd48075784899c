// The CLI and spilled results, across processes: `call --max-chars` prints the model's text
// (within budget) and the handle of the rest, kept in the config directory's results
// folder; `read-result` in another run, with the same server, reads it back exactly, greps
// it, and finds nothing for another server's identity.
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";
import { runCli, tempConfig } from "./_helpers.ts";

const SERVER = scriptCommand(
  fileURLToPath(new URL("../fixtures/stdio_server.ts", import.meta.url)),
);
const STDIO = ["--", SERVER.command, ...SERVER.args];
const LOG = Array.from({ length: 800 }, (_, i) => `log line ${i}: all well`).join("\n");

test("cli spill: call --max-chars prints the handle, read-result reads the rest in another run", async () => {
  const config = tempConfig();
  try {
    const call = await runCli(
      ["call", "echo", "--max-chars", "400", "--args", JSON.stringify({ message: LOG }), ...STDIO],
      { configDir: config.dir },
    );
    assertEquals(call.code, 0, call.stderr);
    const match = call.stdout.match(/\nhandle: (rs_[\w-]+)\n$/);
    assert(match !== null, call.stdout);
    const shown = call.stdout.slice(0, match.index);
    assert(shown.length <= 400, `${shown.length}`);
    assert(shown.startsWith("log line 0: all well\n"), shown.slice(0, 80));
    assertStringIncludes(shown, `read_result {"handle":"${match[1]}"`);

    const read = await runCli(
      ["read-result", match[1], "--length", "1000000", "--json", ...STDIO],
      { configDir: config.dir },
    );
    assertEquals(read.code, 0, read.stderr);
    const page = JSON.parse(read.stdout);
    assert(page.text === LOG, "read back exactly");
    assertEquals([page.offset, page.total, page.nextOffset], [0, LOG.length, null]);

    const paged = await runCli(
      ["read-result", match[1], "--offset", "100", "--length", "50", ...STDIO],
      { configDir: config.dir },
    );
    assertEquals(paged.code, 0, paged.stderr);
    assertEquals(paged.stdout, LOG.slice(100, 150) + "\n");
    assertStringIncludes(paged.stderr, "next --offset 150");

    const grep = await runCli(
      ["read-result", match[1], "--grep", "line 777:", ...STDIO],
      { configDir: config.dir },
    );
    assertEquals(grep.code, 0, grep.stderr);
    assertStringIncludes(grep.stdout, "778: log line 777: all well");

    // Another server (another command line) is another identity: nothing of it.
    const other = await runCli(
      ["read-result", match[1], ...STDIO, "--unused-flag"],
      { configDir: config.dir },
    );
    assertEquals(other.code, 1, other.stderr);
    assert(!other.stdout.includes("log line"), other.stdout);
  } finally {
    config.dispose();
  }
});

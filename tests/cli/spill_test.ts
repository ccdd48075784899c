// The CLI and spilled results, across processes: `call --max-chars` prints the model's text
// (within budget) and the handle of the rest, kept in the config directory's results
// folder; `read-result` in another run, with the same server, reads it back exactly, greps
// it, and finds nothing for another server's identity.
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";
import { EVERYTHING_STDIO, runCli, tempConfig } from "./_helpers.ts";

const SERVER = scriptCommand(
  fileURLToPath(new URL("../fixtures/stdio_server.ts", import.meta.url)),
);
const STDIO = ["--", SERVER.command, ...SERVER.args];
const LOG = Array.from({ length: 800 }, (_, i) => `log line ${i}: all well`).join("\n");

/**
 * Reads a kept result whole with `read-result … --json` (through `server`) and checks it is
 * `expected`, exactly.
 */
async function readsWhole(
  args: string[],
  server: string[],
  configDir: string,
  expected: string,
) {
  const read = await runCli(["read-result", ...args, "--length", "1000000", "--json", ...server], {
    configDir,
  });
  assertEquals(read.code, 0, read.stderr);
  const page = JSON.parse(read.stdout);
  assert(page.text === expected, "read back exactly");
  assertEquals([page.offset, page.total, page.nextOffset], [0, expected.length, null]);
}

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

    await readsWhole([match[1]], STDIO, config.dir, LOG);

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

test(
  "cli spill: read-result --media reads an image's base64 that call --max-chars kept",
  async () => {
    const config = tempConfig();
    try {
      // The image as the server sends it, for the comparison.
      const whole = await runCli(["call", "get-tiny-image", "--json", ...EVERYTHING_STDIO], {
        configDir: config.dir,
      });
      assertEquals(whole.code, 0, whole.stderr);
      const blocks = (JSON.parse(whole.stdout) as { content: { type: string; data?: string }[] })
        .content.filter((block) => block.type === "image");
      assertEquals(blocks.length, 1);
      const data = blocks[0].data!;
      assert(data.length > 100, `${data.length}`);

      const call = await runCli(
        ["call", "get-tiny-image", "--max-chars", "2000", ...EVERYTHING_STDIO],
        { configDir: config.dir },
      );
      assertEquals(call.code, 0, call.stderr);
      const match = call.stdout.match(/\nhandle: (rs_[\w-]+)\n$/);
      assert(match !== null, call.stdout);
      const handle = match[1];
      // The model's text names the image and how to read it, never its base64.
      assertStringIncludes(call.stdout, `read_result {"handle":"${handle}","media":0}`);
      assert(!call.stdout.includes(data.slice(0, 40)), call.stdout);

      // The image's base64, exactly.
      await readsWhole([handle, "--media", "0"], EVERYTHING_STDIO, config.dir, data);

      // Paged like the text: for people, the page and where the next one starts.
      const paged = await runCli(
        [
          "read-result",
          handle,
          "--media",
          "0",
          "--offset",
          "10",
          "--length",
          "30",
          ...EVERYTHING_STDIO,
        ],
        { configDir: config.dir },
      );
      assertEquals(paged.code, 0, paged.stderr);
      assertEquals(paged.stdout, data.slice(10, 40) + "\n");
      assertStringIncludes(paged.stderr, "next --offset 40");

      const none = await runCli(
        ["read-result", handle, "--media", "1", ...EVERYTHING_STDIO],
        { configDir: config.dir },
      );
      assertEquals(none.code, 1, none.stderr);
      assertStringIncludes(none.stderr, "no media block 1");

      const both = await runCli(
        ["read-result", handle, "--media", "0", "--grep", "x", ...EVERYTHING_STDIO],
        { configDir: config.dir },
      );
      assertEquals(both.code, 2, both.stderr);
      assertStringIncludes(both.stderr, "one of --grep, --json-path and --media");

      const bad = await runCli(["read-result", handle, "--media", "-1", ...EVERYTHING_STDIO], {
        configDir: config.dir,
      });
      assertEquals(bad.code, 2, bad.stderr);
      assertStringIncludes(bad.stderr, "--media takes a whole number");
    } finally {
      config.dispose();
    }
  },
  { timeout: 120_000 },
);

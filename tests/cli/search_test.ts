// `conduit-mcp search "<query>"` as a subprocess over two configured stdio servers: the first
// run learns their catalogues (each server started once), the second answers from the
// stored catalogue without starting anything; --json; a missing query is a usage error.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mockStdio } from "../../testing/stdio.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { startsIn } from "../hub/_stdio.ts";
import { runCli, tempConfig } from "./_helpers.ts";

const FIXTURE = new URL("../fixtures/catalogue_server.ts", import.meta.url);

test(
  "cli search: ranks every configured server's tools, from the stored catalogue on the second run",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "conduit-search-"));
    const config = tempConfig();
    try {
      const server = mockStdio(FIXTURE, {
        denoFlags: ["--allow-read", "--allow-env", "--allow-write"],
      });
      const env = { HUB_STARTS_FILE: join(dir, "starts") };
      const file = join(dir, "mcp.json");
      writeFileSync(
        file,
        JSON.stringify({ mcpServers: { weather: { ...server, env }, backup: { ...server, env } } }),
      );
      const options = { configDir: config.dir, timeout: 60_000 };
      const first = await runCli(["search", "weather forecast", "--config", file], options);
      assertEquals(first.code, 0, first.stderr);
      const lines = first.stdout.trimEnd().split("\n");
      assert(/^weather__forecast\s+Forecast the weather of a city$/.test(lines[0]), lines[0]);
      assertStringIncludes(first.stdout, "backup__forecast");
      assertEquals(startsIn(dir).length, 2, "each server started once to learn its catalogue");
      const second = await runCli(
        ["search", "weather", "alerts", "--json", "--config", file],
        options,
      );
      assertEquals(second.code, 0, second.stderr);
      const found = JSON.parse(second.stdout) as { query: string; tools: { name: string }[] };
      assertEquals(found.query, "weather alerts");
      assertEquals(found.tools[0].name, "weather__alerts");
      assertEquals(startsIn(dir).length, 2, "the second run started nothing");
      const none = await runCli(["search", "--config", file], options);
      assertEquals(none.code, 2);
      assertStringIncludes(none.stderr, "search needs a query");
    } finally {
      config.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { timeout: 120_000 },
);

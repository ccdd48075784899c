// Config files in the three hosts' real formats (tests/fixtures/hub_configs/, with comments
// and trailing commas) start real hubs: stdio children and an HTTP server, with variables
// from the environment and VS Code inputs.
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../hub/config.ts";
import { hub } from "../../hub/hub.ts";
import { startModernSdkHttp } from "../fixtures/modern_sdk_server.ts";
import { assertArrayIncludes, assertEquals, runtime, scriptCommand, test } from "../_harness.ts";

const config = (name: string) =>
  fileURLToPath(new URL(`../fixtures/hub_configs/${name}`, import.meta.url));

/** What the files' variables stand for, so the fixture runs under the current runtime. */
function variables(port: string): Record<string, string> {
  const script = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));
  return {
    RUNTIME: script.command,
    RUN_FLAG: runtime === "deno" ? "-A" : "--bun",
    SERVER_SCRIPT: script.args[script.args.length - 1],
    FIXTURE_PORT: port,
    FIXTURE_KEY: "key-from-env",
  };
}

const apiKeys = (requests: { headers: Record<string, string> }[]) => [
  ...new Set(requests.map((r) => r.headers["x-api-key"])),
];

test(
  "config hub: Claude Desktop's file starts its stdio server; the disabled one stays out",
  async () => {
    const loaded = await loadConfig(config("claude_desktop_config.json"), { env: variables("0") });
    assertEquals(Object.keys(loaded.servers), ["fixture"]);
    await using servers = hub(loaded);
    await servers.ready(30_000);
    assertEquals(servers.status().servers.fixture.state, "ready");
    const names = (await servers.listAllTools()).map((t) => t.name);
    assertArrayIncludes(names, ["fixture__echo", "fixture__add"]);
    const result = await servers.callTool("fixture__add", { a: 1, b: 2 });
    assertEquals(result.isError, false);
  },
  { timeout: 60_000 },
);

test(
  "config hub: Cursor's file: a remote HTTP server with its header, and a stdio one",
  async () => {
    await using modern = await startModernSdkHttp();
    const loaded = await loadConfig(config("cursor_mcp.json"), {
      env: variables(modern.url.port),
    });
    await using servers = hub(loaded);
    await servers.ready(30_000);
    assertEquals(servers.serverNames(), ["remote", "local"]);
    const names = (await servers.listAllTools()).map((t) => t.name);
    assertArrayIncludes(names, ["remote__echo", "remote__add", "local__echo"]);
    const sum = await servers.callTool("remote__add", { a: 2, b: 3 });
    assertEquals(sum.structuredContent, { sum: 5 });
    assertEquals(apiKeys(modern.requests), ["key-from-env"]);
  },
  { timeout: 60_000 },
);

test(
  "config hub: VS Code's file: inputs answered by the host, defaults, an unused key warned",
  async () => {
    await using modern = await startModernSdkHttp();
    const warnings: string[] = [];
    const loaded = await loadConfig(config("vscode_mcp.json"), {
      env: variables(modern.url.port),
      inputs: { "fixture-key": "key-from-input" },
      onWarning: (w) => warnings.push(w),
    });
    assertEquals(warnings.length, 1);
    assertEquals(
      warnings[0].endsWith("servers.local.envFile is not used by the hub; left out"),
      true,
    );
    assertEquals((loaded.servers.local as { env: Record<string, string> }).env, {
      FIXTURE_BANNER: "from VS Code",
    });
    await using servers = hub(loaded);
    await servers.ready(30_000);
    const names = (await servers.listAllTools()).map((t) => t.name);
    assertArrayIncludes(names, ["local__echo", "remote__echo"]);
    const echoed = await servers.callTool("remote__echo", { message: "from vs code" });
    assertEquals(echoed.content[0].text, "from vs code");
    assertEquals(apiKeys(modern.requests), ["key-from-input"]);
  },
  { timeout: 60_000 },
);

// The CLI as a subprocess against HTTP servers on 127.0.0.1:0: the modern-era fixture built
// on @modelcontextprotocol/server 2.x, the house fixture (a tool that fails, a header the
// wire print must redact), an address where nothing listens, and an OAuth server (login,
// the stored tokens used by later commands, logout).
import { statSync } from "node:fs";
import { join } from "node:path";
import { startHttpFixture } from "../fixtures/http_server.ts";
import { startModernSdkHttp } from "../fixtures/modern_sdk_server.ts";
import { startOAuthFixture } from "../fixtures/oauth_server.ts";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { runCli, tempConfig } from "./_helpers.ts";

const OPTS = { timeout: 60_000 };

test("cli http: the modern fixture's lists, for people and as JSON", async () => {
  await using server = await startModernSdkHttp();
  const url = server.url.href;
  const tools = await runCli(["tools", url]);
  assertEquals(tools.code, 0, tools.stderr);
  assert(/^add\s+a b\s+Adds two numbers$/m.test(tools.stdout), tools.stdout);
  const prompts = await runCli(["prompts", url, "--json"]);
  assertEquals(JSON.parse(prompts.stdout).map((p: { name: string }) => p.name), ["greet"]);
  const resources = await runCli(["resources", url]);
  assert(/^fixture:\/\/readme\s+readme\s+text\/plain$/m.test(resources.stdout), resources.stdout);
  const templates = await runCli(["templates", "--json", url]);
  assertEquals(JSON.parse(templates.stdout)[0].uriTemplate, "fixture://items/{id}");
}, OPTS);

test("cli http: call, prompt, read and status in the modern era", async () => {
  await using server = await startModernSdkHttp();
  const url = server.url.href;
  const sum = await runCli(["call", "add", "a=2", "b=40", url]);
  assertEquals([sum.code, sum.stdout], [0, '42\nstructured content:\n{\n  "sum": 42\n}\n']);
  const json = await runCli(["call", "add", "a=2", "b=40", "--json", url]);
  assertEquals(JSON.parse(json.stdout).structuredContent, { sum: 42 });
  const counted = await runCli(["call", "count", "to=3", url]);
  assertEquals([counted.code, counted.stdout], [0, "counted to 3\n"], counted.stderr);
  const bounds = await runCli(["call", "count", "to=50", url]);
  // The problem, then the tool's parameters (the schema's description, if any).
  assertEquals(bounds.code, 2);
  assertEquals(bounds.stderr.split("\n").slice(0, 3), [
    "error: argument to: at most 20",
    "count takes:",
    "  NAME  TYPE     REQUIRED  DESCRIPTION",
  ]);
  assert(/^ {2}to {4}integer {2}yes/m.test(bounds.stderr), bounds.stderr);
  const prompt = await runCli(["prompt", "greet", "name=Ada", url]);
  assertEquals(prompt.stdout, "user:\nHello, Ada!\n");
  const read = await runCli(["read", "fixture://items/7", url]);
  assertEquals(read.stdout, "item 7\n");
  const status = await runCli(["status", url]);
  assert(/^era\s+modern$/m.test(status.stdout), status.stdout);
  assert(/^version\s+2026-07-28$/m.test(status.stdout), status.stdout);
  assertStringIncludes(status.stdout, "A fixture built on @modelcontextprotocol/server 2.x.");
  const legacy = await runCli(["status", "--json", "--protocol", "legacy", url]);
  assertEquals(JSON.parse(legacy.stdout).era, "legacy");
}, OPTS);

test(
  "cli http: a tool error exits 1; --verbose prints the wire with the header redacted",
  async () => {
    await using server = await startHttpFixture();
    const url = server.url.href;
    const failed = await runCli(["call", "fail", url]);
    assertEquals(failed.code, 1);
    assert(failed.stdout.startsWith("The tool reported an error:\n"), failed.stdout);
    const secret = "sk-cli-secret-0123456789";
    const verbose = await runCli([
      "call",
      "echo",
      "message=hi",
      "--verbose",
      "-H",
      `X-Api-Key: ${secret}`,
      url,
    ]);
    assertEquals([verbose.code, verbose.stdout], [0, "hi\n"], verbose.stderr);
    assertStringIncludes(verbose.stderr, '→ send {"jsonrpc":"2.0"');
    assertStringIncludes(verbose.stderr, '"method":"tools/call"');
    assertStringIncludes(verbose.stderr, "← recv ");
    const sent = server.requests.filter((r) => r.headers["x-api-key"] === secret).length;
    assert(sent > 0, "the header was sent");
    assert(!verbose.stderr.includes(secret) && !verbose.stdout.includes(secret), "never printed");
  },
  OPTS,
);

test(
  "cli http: a request the server refuses exits 1; watch --json prints one object a line",
  async () => {
    await using modern = await startModernSdkHttp();
    const refused = await runCli(["complete", "prompt", "greet", "name=A", modern.url.href]);
    assertEquals(refused.code, 1);
    assertStringIncludes(refused.stderr, "Method not found");
    await using server = await startHttpFixture();
    let interrupted = false;
    let poke: ReturnType<typeof setInterval> | undefined;
    const watch = await runCli(["watch", "--json", server.url.href], {
      onStderr: (text) => {
        // Until the server's listen holds the filter, a change reaches nobody: send until seen.
        if (text.includes("Watching for notifications")) {
          poke = setInterval(() => server.core.changeList("prompts"), 50);
        }
      },
      onStdout: (_text, signal) => {
        clearInterval(poke);
        if (!interrupted) signal("SIGINT");
        interrupted = true;
      },
      timeout: 20_000,
    });
    clearInterval(poke);
    assertEquals(watch.code, 0, watch.stderr);
    const line = JSON.parse(watch.stdout.trim().split("\n")[0]);
    assertEquals(line.method, "notifications/prompts/list_changed");
    assert(!Number.isNaN(Date.parse(line.time)), line.time);
    assertStringIncludes(watch.stderr, "Stopped watching.");
  },
  OPTS,
);

test("cli http: a server that cannot be reached exits 3 with one line", async () => {
  const gone = await runCli(["tools", "http://127.0.0.1:1/mcp", "--timeout", "2000"]);
  assertEquals(gone.code, 3);
  const lines = gone.stderr.trim().split("\n");
  assertEquals(lines.length, 1, gone.stderr);
  assertStringIncludes(lines[0], "error: ");
  assertStringIncludes(lines[0], "is the server running");
  const verbose = await runCli(["tools", "http://127.0.0.1:1/mcp", "--verbose"]);
  assertEquals(verbose.code, 3);
  assertStringIncludes(verbose.stderr, "caused by ");
}, OPTS);

test(
  "cli http: login stores tokens (0600) that later commands use; logout forgets them",
  async () => {
    await using upstream = await startHttpFixture();
    await using as = await startOAuthFixture({}, { upstream: upstream.url });
    const config = tempConfig();
    try {
      const url = as.url.href;
      const before = await runCli(["tools", url], { configDir: config.dir });
      assertEquals(before.code, 3);
      assertStringIncludes(before.stderr, `log in with: conduit-mcp login ${url}`);
      // The "browser": follows the printed URL, through the redirect into the loopback callback.
      let browsed: Promise<number> | undefined;
      const login = await runCli(["login", url, "--no-browser"], {
        configDir: config.dir,
        onStderr: (text) => {
          const printed = /^ {2}(http:\/\/\S+)$/m.exec(text)?.[1];
          if (printed !== undefined && browsed === undefined) {
            browsed = fetch(printed).then(async (page) => {
              await page.body?.cancel();
              return page.status;
            });
          }
        },
      });
      assertEquals(login.code, 0, login.stderr);
      assertEquals(await browsed, 200);
      assertStringIncludes(login.stdout, `Logged in to ${url}`);
      const file = join(config.dir, "tokens.json");
      assertEquals(statSync(file).mode & 0o777, 0o600);
      const after = await runCli(["tools", url, "--verbose"], { configDir: config.dir });
      assertEquals(after.code, 0, after.stderr);
      assert(/^echo\s+/m.test(after.stdout), after.stdout);
      assertStringIncludes(after.stderr, '→ send {"jsonrpc":"2.0"');
      assertEquals(as.count("/authorize"), 1);
      for (const secret of as.secrets()) {
        for (const text of [login.stdout, login.stderr, after.stdout, after.stderr]) {
          assert(!text.includes(secret), "no secret is printed");
        }
      }
      const logout = await runCli(["logout", url], { configDir: config.dir });
      assertEquals([logout.code, logout.stdout], [0, `Logged out of ${url}\n`]);
      const again = await runCli(["tools", url], { configDir: config.dir });
      assertEquals(again.code, 3);
    } finally {
      config.dispose();
    }
  },
  OPTS,
);

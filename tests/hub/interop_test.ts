// The hub over real servers: server-everything (stdio, legacy era), the modern SDK fixture
// over Streamable HTTP, a command that does not exist, and a stdio child killed mid-run.
// Names, routing, isolation, recovery, the lazy catalogue.
import { fileURLToPath } from "node:url";
import { hub } from "../../hub/hub.ts";
import { CALL_TOOL, SEARCH_TOOLS } from "../../hub/lazy.ts";
import type { ToolResult } from "../../client/types.ts";
import { type ChildProcess, type SpawnOptions, spawnProcess } from "../../runtime/spawn.ts";
import type { HubStdioServer } from "../../hub/types.ts";
import { startModernSdkHttp } from "../fixtures/modern_sdk_server.ts";
import { assert, assertArrayIncludes, assertEquals, scriptCommand, test } from "../_harness.ts";
import { mcpError, waitFor } from "../client/_helpers.ts";

const EVERYTHING = fileURLToPath(
  new URL(
    "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    import.meta.url,
  ),
);
const GRACE = { closeGracePeriod: 1_000, terminateGracePeriod: 1_000 };

function text(result: ToolResult): string {
  return result.content.map((block) => String(block.text ?? "")).join("");
}

/** The fixture stdio server, each child it starts kept in `children`. */
function victim(children: ChildProcess[]): HubStdioServer {
  const script = scriptCommand(new URL("../fixtures/stdio_server.ts", import.meta.url));
  return {
    ...script,
    ...GRACE,
    spawn(options: SpawnOptions) {
      const child = spawnProcess(options);
      children.push(child);
      return child;
    },
    reconnect: { attempts: 20, initialDelay: 50, maxDelay: 200, jitter: 0 },
    requestTimeout: 20_000,
  };
}

test(
  "hub interop: everything (stdio) + modern fixture (HTTP) + a missing command + a killed child",
  async () => {
    await using modern = await startModernSdkHttp();
    const children: ChildProcess[] = [];
    const warnings: string[] = [];
    await using servers = hub({
      servers: {
        everything: {
          command: "node",
          args: [EVERYTHING, "stdio"],
          ...GRACE,
          requestTimeout: 20_000,
        },
        modern: modern.url.href,
        missing: { command: "conduit-no-such-server-7f3a", reconnect: false },
        victim: victim(children),
      },
      reconnect: { initialDelay: 60_000 },
      onWarning: (w) => warnings.push(w),
    });
    await servers.ready(45_000);
    const status = servers.status().servers;
    assertEquals(
      [status.everything.state, status.modern.state, status.victim.state],
      ["ready", "ready", "ready"],
    );
    assertEquals([status.everything.era, status.modern.era], ["legacy", "modern"]);
    // Isolation: the missing command is reported and waits for its restart; nobody else cares.
    assertEquals(status.missing.state, "waiting");
    assertEquals([status.missing.error?.kind, status.missing.error?.reason], [
      "transport",
      "command_not_found",
    ]);
    assert(status.missing.nextRetry! > Date.now());
    assert(warnings.some((w) => w.startsWith('Server "missing" failed')));

    // Names: every server's tools under server__tool.
    const names = (await servers.listAllTools()).map((t) => t.name);
    assertArrayIncludes(names, [
      "everything__echo",
      "everything__get-sum",
      "modern__echo",
      "modern__add",
      "victim__echo",
    ]);
    assert(!names.some((name) => name.startsWith("missing__")));
    assert(names.every((name) => /^(everything|modern|victim)__/.test(name)));

    // Routing: each call reaches its owner, options passed on.
    assertEquals(text(await servers.callTool("everything__echo", { message: "hi" })), "Echo: hi");
    const sum = await servers.callTool("modern__add", { a: 2, b: 40 }, { timeout: 10_000 });
    assertEquals(sum.structuredContent, { sum: 42 });
    assertEquals(
      text(await servers.callTool("victim__echo", { message: "v" })).includes("v"),
      true,
    );
    const posts = modern.requests.filter((r) =>
      (r.body as { method?: string } | undefined)?.method === "tools/call"
    );
    assertEquals(posts.length, 1);
    const down = await mcpError(servers.callTool("missing__anything"));
    assertEquals([down.kind, down.reason], ["unavailable", "server_unavailable"]);

    // Recovery: the victim's child is killed; its client starts another and calls go on.
    assertEquals(children.length, 1);
    const first = children[0];
    first.kill("SIGKILL");
    await first.exited;
    await waitFor(() => children.length === 2, "a second child", 20_000);
    await waitFor(() => servers.status().servers.victim.state === "ready", "victim ready", 20_000);
    assertEquals(
      text(await servers.callTool("victim__echo", { message: "again" })).includes("again"),
      true,
    );
    assertNotSamePid(first, children[1]);
    // The others never noticed.
    assertEquals(
      text(await servers.callTool("everything__echo", { message: "still" })),
      "Echo: still",
    );
    assertEquals(servers.status().servers.modern.state, "ready");
  },
  { timeout: 90_000 },
);

function assertNotSamePid(a: ChildProcess, b: ChildProcess) {
  assert(a.pid !== b.pid, "a new process");
}

test("hub interop: the lazy catalogue over everything and the modern fixture", async () => {
  await using modern = await startModernSdkHttp();
  await using servers = hub({
    servers: {
      everything: {
        command: "node",
        args: [EVERYTHING, "stdio"],
        ...GRACE,
        requestTimeout: 20_000,
      },
      modern: modern.url,
    },
    lazy: true,
  });
  await servers.ready(45_000);
  assertEquals((await servers.listAllTools()).map((t) => t.name), [SEARCH_TOOLS, CALL_TOOL]);
  const found = await servers.callTool(SEARCH_TOOLS, { query: "add numbers sum", limit: 5 });
  const tools = (found.structuredContent as { tools: { name: string; inputSchema: unknown }[] })
    .tools;
  assertArrayIncludes(tools.map((t) => t.name), ["everything__get-sum", "modern__add"]);
  assert(tools.every((t) => typeof t.inputSchema === "object"));
  const echo = await servers.callTool(SEARCH_TOOLS, { query: "echo", limit: 10 });
  const echoes = (echo.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
  assertEquals(echoes.slice(0, 2), ["everything__echo", "modern__echo"]);
  const ran = await servers.callTool(CALL_TOOL, {
    name: "everything__get-sum",
    arguments: { a: 20, b: 22 },
  });
  assert(text(ran).includes("42"), text(ran));
  const modernRan = await servers.callTool(CALL_TOOL, {
    name: "modern__add",
    arguments: { a: 1, b: 2 },
  });
  assertEquals(modernRan.structuredContent, { sum: 3 });
}, { timeout: 90_000 });

test(
  "hub interop: a killed child whose client does not reconnect is restarted by the hub",
  async () => {
    const children: ChildProcess[] = [];
    const warnings: string[] = [];
    await using servers = hub({
      servers: { victim: { ...victim(children), reconnect: false } },
      reconnect: { initialDelay: 50, jitter: 0 },
      onWarning: (w) => warnings.push(w),
    });
    await servers.ready(30_000);
    assertEquals(
      text(await servers.callTool("victim__echo", { message: "one" })).includes("one"),
      true,
    );
    children[0].kill("SIGKILL");
    await waitFor(
      () => warnings.some((w) => w.includes("restart 1 in 50 ms")),
      "the restart",
      20_000,
    );
    await waitFor(() => children.length === 2, "a second child", 20_000);
    await waitFor(() => servers.status().servers.victim.state === "ready", "victim ready", 20_000);
    assertEquals(servers.status().servers.victim.restarts, 0);
    assertEquals(
      text(await servers.callTool("victim__echo", { message: "two" })).includes("two"),
      true,
    );
  },
  { timeout: 60_000 },
);

// A `sandbox` key per entry in the hosts' files loadConfig reads: variables expanded in its
// lists, bad values refused naming the key (never the value), refused on an HTTP entry; and
// a hub built from such a file starts that server sandboxed.
import { loadConfig } from "../../hub/config.ts";
import { hub } from "../../hub/hub.ts";
import { assertEquals, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";
import { DENO, probe, SECRET, world } from "./_probe.ts";

test("config: a sandbox per entry (Claude and VS Code files), variables expanded in its lists", async () => {
  const claude = await loadConfig(
    `{
    "mcpServers": {
      "files": {
        "command": "npx", "args": ["-y", "server-files"],
        "sandbox": { "read": ["\${env:PROJECT}"], "write": ["\${env:PROJECT}/out"], "net": [],
                     "env": ["LANG"], "run": ["git"], "required": true },
      },
    },
  }`,
    { env: { PROJECT: "/srv/app" } },
  );
  assertEquals(claude.servers.files, {
    command: "npx",
    args: ["-y", "server-files"],
    sandbox: {
      read: ["/srv/app"],
      write: ["/srv/app/out"],
      net: [],
      env: ["LANG"],
      run: ["git"],
      required: true,
    },
  });
  const vscode = await loadConfig(
    `{
    "servers": {
      "local": { "type": "stdio", "command": "deno", "args": ["run", "main.ts"],
                 "sandbox": { "read": ["\${workspaceFolder}"] } },
    },
  }`,
    { variables: { workspaceFolder: "/srv/app" }, env: {} },
  );
  assertEquals(vscode.servers.local, {
    command: "deno",
    args: ["run", "main.ts"],
    sandbox: { read: ["/srv/app"] },
  });
});

test("config: a bad sandbox is a config error naming the key, never the value", async () => {
  const cases: [string, string, string][] = [
    [`{ "read": ["\${env:REL}"] }`, "mcpServers.s.sandbox.read[0]", "must be an absolute path"],
    [`{ "required": "yes" }`, "mcpServers.s.sandbox.required", "must be true or false"],
    [`{ "reed": [] }`, "mcpServers.s.sandbox", 'Unknown option "reed"'],
    [`["/srv"]`, "mcpServers.s.sandbox", "must be an object"],
  ];
  for (const [sandbox, key, problem] of cases) {
    const text = `{ "mcpServers": { "s": { "command": "x", "sandbox": ${sandbox} } } }`;
    const error = await mcpError(loadConfig(text, { env: { REL: "relative/secret-path" } }));
    assertEquals([error.kind, error.reason, (error.data as { key?: string })?.key], [
      "config",
      "invalid_value",
      key,
    ]);
    assertEquals(error.message.includes(problem), true, error.message);
    assertEquals(error.message.includes("secret-path"), false, error.message);
  }
  const http = await mcpError(loadConfig(
    `{ "mcpServers": { "web": { "url": "https://example.com/mcp", "sandbox": {} } } }`,
  ));
  assertEquals([http.reason, (http.data as { key?: string })?.key], [
    "invalid_entry",
    "mcpServers.web.sandbox",
  ]);
});

test("config: a hub from a file with a sandbox starts that server contained", async () => {
  const w = await world();
  try {
    const config = await loadConfig(
      `{
      "mcpServers": {
        "probe": { "command": "\${env:DENO}", "args": ["run", "\${env:SERVER}"],
                   "sandbox": { "read": ["\${env:PROJECT}"] } },
      },
    }`,
      { env: { DENO, SERVER: w.server, PROJECT: w.project } },
    );
    await using servers = hub({ servers: config.servers });
    await servers.ready(15_000);
    assertEquals(servers.status().servers.probe.containment, "deno-permissions");
    const client = servers.client("probe");
    const answer = await probe(client, "read_file", { path: w.secret });
    assertEquals(answer, "refused: NotCapable");
    assertEquals(answer.includes(SECRET), false);
  } finally {
    await w.close();
  }
}, { timeout: 30_000 });

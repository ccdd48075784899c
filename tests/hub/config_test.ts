// loadConfig: the three hosts' formats (text and files, with comments and trailing commas),
// variables, disabled entries, text vs path, and errors naming the file, entry and key.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isConfigText, loadConfig } from "../../hub/config.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes, test } from "../_harness.ts";
import { mcpError } from "../client/_helpers.ts";

test("config: Claude Desktop / Cursor mcpServers, stdio and HTTP, comments and trailing commas", async () => {
  const text = `
    // comment first, so this is text
    {
      "mcpServers": {
        "files": { "command": "npx", "args": ["-y", "server-files", "\${HOME_DIR}", 8080], "cwd": "/srv" },
        "search": { "type": "sse", "url": "https://mcp.example.com/\${env:ZONE}/sse",
                    "headers": { "Authorization": "Bearer \${TOKEN}" } },
        "off": { "command": "nope", "disabled": true, },
        "num": { "command": "srv", "env": { "PORT": 3000, "DEBUG": true, "E": "\${UNSET:-fallback}" } },
      },
    }`;
  const env: Record<string, string> = { HOME_DIR: "/home/ada", ZONE: "eu", TOKEN: "t0k" };
  const config = await loadConfig(text, { env });
  assertEquals(Object.keys(config.servers), ["files", "search", "num"]);
  assertEquals(config.servers.files, {
    command: "npx",
    args: ["-y", "server-files", "/home/ada", "8080"],
    cwd: "/srv",
  });
  assertEquals(config.servers.search, {
    url: "https://mcp.example.com/eu/sse",
    headers: { Authorization: "Bearer t0k" },
  });
  assertEquals(config.servers.num, {
    command: "srv",
    env: { PORT: "3000", DEBUG: "true", E: "fallback" },
  });
});

test("config: VS Code servers + inputs (answers, defaults), settings.json's mcp section, variables", async () => {
  const text = `{
    "inputs": [
      { "type": "promptString", "id": "key", "description": "API key", "password": true },
      { "type": "promptString", "id": "region", "default": "eu" },
    ],
    "servers": {
      "api": { "type": "http", "url": "https://api.example.com/mcp", "headers": { "X-Key": "\${input:key}" } },
      "local": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/server.js", "\${input:region}"] },
    },
  }`;
  const asked: string[] = [];
  const config = await loadConfig(text, {
    inputs: (input) => {
      asked.push(`${input.id}:${input.password === true}`);
      return input.id === "key" ? "secret-key" : undefined;
    },
    variables: { workspaceFolder: "/srv/app" },
    env: {},
  });
  assertEquals(asked, ["key:true", "region:false"]);
  assertEquals(config.servers.api, {
    url: "https://api.example.com/mcp",
    headers: { "X-Key": "secret-key" },
  });
  assertEquals(config.servers.local, {
    command: "node",
    args: ["/srv/app/server.js", "eu"],
  });
  const settings = await loadConfig(
    `{ "editor.fontSize": 14, "mcp": { "inputs": [{ "id": "k", "default": "d" }],
       "servers": { "s": { "command": "x", "env": { "K": "\${input:k}" } } } } }`,
    { inputs: { other: "y" } },
  );
  assertEquals(settings.servers.s, { command: "x", env: { K: "d" } });
});

test("config: the hub's keys start, idleMs and alwaysLoad are kept on stdio and HTTP entries", async () => {
  const warnings: string[] = [];
  const config = await loadConfig(
    `{ "mcpServers": {
      "files": { "command": "npx", "start": "lazy", "idleMs": 60000, "alwaysLoad": ["read"] },
      "search": { "url": "https://mcp.example.com/mcp", "start": "eager", "alwaysLoad": true }
    } }`,
    { onWarning: (message) => warnings.push(message) },
  );
  assertEquals(
    config.servers,
    {
      files: { command: "npx", start: "lazy", idleMs: 60000, alwaysLoad: ["read"] },
      search: { url: "https://mcp.example.com/mcp", start: "eager", alwaysLoad: true },
    } as unknown as typeof config.servers,
  );
  assertEquals(warnings, []);
});

test("config: text or path is decided by content", () => {
  const table: [string, boolean][] = [
    ["{}", true],
    ["  \n\t{", true],
    ["// c\n/* d */ {", true],
    ["\uFEFF{", true],
    ["/home/ada/.cursor/mcp.json", false],
    ["claude_desktop_config.json", false],
    ["// only a comment", false],
    ["[1]", false],
  ];
  for (const [value, text] of table) assertEquals(isConfigText(value), text, value);
});

test("config: bad files are kind config errors naming the file, the entry and the key", async () => {
  const table: [string, string, string | undefined, string | undefined][] = [
    ['{ "mcpServers": { "a": { "command": "x" } ', "invalid_json", undefined, undefined],
    ["{ }", "no_servers", undefined, undefined],
    ['{ "mcpServers": {}, "servers": {} }', "ambiguous", undefined, "servers"],
    ['{ "mcpServers": [] }', "invalid_value", undefined, "mcpServers"],
    ['{ "mcpServers": { "a": "npx x" } }', "invalid_entry", "a", "mcpServers.a"],
    ['{ "mcpServers": { "a": {} } }', "invalid_entry", "a", "mcpServers.a.command"],
    ['{ "mcpServers": { "a": { "command": "" } } }', "invalid_value", "a", "mcpServers.a.command"],
    [
      '{ "mcpServers": { "a": { "command": "x", "start": "soon" } } }',
      "invalid_value",
      "a",
      "mcpServers.a.start",
    ],
    [
      '{ "mcpServers": { "a": { "url": "https://x.example", "idleMs": 0 } } }',
      "invalid_value",
      "a",
      "mcpServers.a.idleMs",
    ],
    [
      '{ "mcpServers": { "a": { "command": "x", "alwaysLoad": "all" } } }',
      "invalid_value",
      "a",
      "mcpServers.a.alwaysLoad",
    ],
    [
      '{ "mcpServers": { "a": { "command": "x", "args": "y" } } }',
      "invalid_value",
      "a",
      "mcpServers.a.args",
    ],
    [
      '{ "mcpServers": { "a": { "command": "x", "args": [{}] } } }',
      "invalid_value",
      "a",
      "mcpServers.a.args[0]",
    ],
    [
      '{ "mcpServers": { "gh": { "command": "x", "env": { "T": null } } } }',
      "invalid_value",
      "gh",
      "mcpServers.gh.env.T",
    ],
    [
      '{ "mcpServers": { "gh": { "command": "x", "env": { "T": "${env:NOPE_X}" } } } }',
      "undefined_variable",
      "gh",
      "mcpServers.gh.env.T",
    ],
    ['{ "mcpServers": { "a": { "url": "ftp://x" } } }', "invalid_value", "a", "mcpServers.a.url"],
    [
      '{ "mcpServers": { "a": { "url": "http://x", "headers": { "H": 1.5, "G": [] } } } }',
      "invalid_value",
      "a",
      "mcpServers.a.headers.G",
    ],
    [
      '{ "mcpServers": { "a": { "url": "http://x", "command": "y" } } }',
      "invalid_entry",
      "a",
      "mcpServers.a.url",
    ],
    [
      '{ "mcpServers": { "a": { "type": "ws", "url": "http://x" } } }',
      "invalid_value",
      "a",
      "mcpServers.a.type",
    ],
    [
      '{ "mcpServers": { "a": { "type": "http", "command": "y" } } }',
      "invalid_value",
      "a",
      "mcpServers.a.type",
    ],
    [
      '{ "mcpServers": { "a": { "command": "y", "disabled": "yes" } } }',
      "invalid_value",
      "a",
      "mcpServers.a.disabled",
    ],
    [
      '{ "servers": { "a": { "command": "${input:k}" } } }',
      "unknown_input",
      "a",
      "servers.a.command",
    ],
    [
      '{ "inputs": [{ "id": "k" }], "servers": { "a": { "command": "${input:k}" } } }',
      "missing_input",
      "a",
      "servers.a.command",
    ],
    ['{ "inputs": [{ "name": "k" }], "servers": {} }', "invalid_value", undefined, "inputs[0].id"],
  ];
  for (const [text, reason, entry, key] of table) {
    const error = await mcpError(loadConfig(text, { env: {} }));
    assertEquals([error.kind, error.reason], ["config", reason], text);
    const data = error.data as { file: string; entry?: string; key?: string };
    assertEquals([data.file, data.entry, data.key], ["<text>", entry, key], text);
    assertStringIncludes(error.message, "<text>");
    if (key !== undefined) assertStringIncludes(error.message, key);
  }
  // A secret in the file never reaches the message.
  const secret = await mcpError(
    loadConfig(
      '{ "mcpServers": { "a": { "url": "http://x", "headers": { "K": "hunter2", "B": {} } } } }',
    ),
  );
  assert(!secret.message.includes("hunter2"), secret.message);
  const json = await mcpError(loadConfig('{\n  "mcpServers": { "a": 1 x }\n}'));
  assertStringIncludes(json.message, "line 2");
});

test("config: a path is read; a missing file is config/file_not_found naming it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "conduit-config-"));
  try {
    const path = join(dir, "mcp.json");
    writeFileSync(path, '// a host file\n{ "mcpServers": { "a": { "command": "x", }, }, }\n');
    assertEquals((await loadConfig(path)).servers, { a: { command: "x" } });
    assertEquals((await loadConfig(new URL(`file://${path}`))).servers, { a: { command: "x" } });
    const missing = await mcpError(loadConfig(join(dir, "nope.json")));
    assertEquals([missing.kind, missing.reason], ["config", "file_not_found"]);
    assertStringIncludes(missing.message, "nope.json");
    const inFile = await mcpError(
      (writeFileSync(path, '{ "mcpServers": { "a": { "command": 1 } } }'), loadConfig(path)),
    );
    assertEquals((inFile.data as { file: string }).file, path);
    assertStringIncludes(inFile.message, `${path}: mcpServers.a.command`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await assertRejects(() => loadConfig(42 as never), TypeError);
  await assertRejects(
    () => loadConfig("{}", { environment: {} } as never),
    TypeError,
    "environment",
  );
});

test("config: keys the hub has no use for are left out with a warning", async () => {
  const warnings: string[] = [];
  const config = await loadConfig(
    '{ "servers": { "a": { "command": "x", "envFile": "${workspaceFolder}/.env", "dev": {} } } }',
    { onWarning: (w) => warnings.push(w) },
  );
  assertEquals(config.servers.a, { command: "x" });
  assertEquals(warnings, [
    "<text>: servers.a.envFile is not used by the hub; left out",
    "<text>: servers.a.dev is not used by the hub; left out",
  ]);
});

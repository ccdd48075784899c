// The package's `conduit-mcp` bin, as a host's install links it: `bun x conduit-mcp …` finds it
// in the host's node_modules/.bin and runs cli.ts under Bun (its shebang).
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";
import { CLI, EVERYTHING } from "./_helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const path = `${join(ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}`;
  return new Promise((resolve) => {
    execFile(command, args, {
      cwd,
      env: { ...process.env, PATH: path, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      timeout: 60_000,
    }, (error, stdout, stderr) => {
      const code = error === null ? 0 : Number((error as { code?: unknown }).code ?? 1);
      resolve({ code, stdout, stderr });
    });
  });
}

test("cli bin: package.json names cli.ts, whose shebang runs it under Bun", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  assertEquals(manifest.bin, { "conduit-mcp": "./cli.ts" });
  assertEquals(readFileSync(CLI, "utf8").split("\n")[0], "#!/usr/bin/env bun");
});

test("cli bin: bun x conduit-mcp runs the linked bin in a host project", async () => {
  const host = mkdtempSync(join(tmpdir(), "conduit-bin-"));
  try {
    mkdirSync(join(host, "node_modules", ".bin"), { recursive: true });
    symlinkSync(CLI, join(host, "node_modules", ".bin", "conduit-mcp"));
    writeFileSync(join(host, "package.json"), '{ "name": "host", "private": true }\n');
    const bun = join(ROOT, "node_modules", ".bin", "bun");
    const help = await run(bun, ["x", "conduit-mcp", "--help"], host);
    assertEquals(help.code, 0, help.stderr);
    assertStringIncludes(help.stdout, "Usage: conduit-mcp <command>");
    const tools = await run(
      bun,
      ["x", "conduit-mcp", "tools", "--json", "--", "node", EVERYTHING],
      host,
    );
    assertEquals(tools.code, 0, tools.stderr);
    const listed = JSON.parse(tools.stdout) as { name: string }[];
    assert(listed.some((tool) => tool.name === "echo"), tools.stdout);
  } finally {
    rmSync(host, { recursive: true, force: true });
  }
}, { timeout: 90_000 });

// Deno without --allow-env: the server would start without PATH and HOME. The client says so
// when it starts the server (a warning, on stderr by default) and in the exit error, with the
// flag to add. Deno runs as a real subprocess, under either test runner.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes, test } from "../_harness.ts";

const DENO = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));
const CLIENT = fileURLToPath(new URL("../fixtures/env_client.ts", import.meta.url));

function run(flags: string[]): { out: { message?: string; reason?: string }; stderr: string } {
  const result = spawnSync(DENO, ["run", ...flags, CLIENT], {
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" },
  });
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  assert(line.startsWith("{"), `no result line; stderr: ${result.stderr}`);
  return { out: JSON.parse(line), stderr: result.stderr };
}

test(
  "deno without --allow-env: a warning before the server runs, and the hint in the exit error",
  () => {
    const { out, stderr } = run(["--allow-read", "--allow-run"]);
    assertEquals(out.reason, "process_exited");
    const hint =
      "Deno may not read PATH, HOME, so the server starts without them: run deno with --allow-env " +
      "(or --allow-env=PATH,HOME), or pass them in env";
    assertStringIncludes(out.message!, `The server process exited with code 127 (${hint})`);
    assertStringIncludes(out.message!, "HOME is not set");
    // Warnings go to stderr by default, prefixed with the package's name.
    assertStringIncludes(stderr, `@conduit/mcp: stdio: ${hint}`);
  },
  { timeout: 60_000 },
);

test("deno with --allow-env: no warning, and the server gets HOME", () => {
  const { out, stderr } = run(["--allow-read", "--allow-run", "--allow-env"]);
  assert(!stderr.includes("--allow-env"), stderr);
  assert(!(out.message ?? "").includes("--allow-env"), out.message);
  assert(!(out.message ?? "").includes("HOME is not set"), out.message);
  assertEquals(out.reason, "process_exited"); // exit 0 before answering: it had HOME
}, { timeout: 60_000 });

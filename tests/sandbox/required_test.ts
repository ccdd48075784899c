// Where no sandbox applies (a real client process whose PATH has no bwrap, a command Deno
// cannot run): `required: true` fails at once with sandbox_unavailable, saying why, without
// starting the server; without it the server starts unsandboxed, with a warning.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes, scriptCommand, test } from "../_harness.ts";

const linux = (globalThis as { process?: { platform?: string } }).process?.platform === "linux";
const CLIENT = fileURLToPath(new URL("../fixtures/sandbox_required_client.ts", import.meta.url));
const SERVER = fileURLToPath(new URL("../fixtures/sandbox_probe_server.mjs", import.meta.url));

function run(...extra: string[]): Record<string, unknown> {
  const { command, args } = scriptCommand(CLIENT);
  const child = spawnSync(command, [...args, ...extra], {
    encoding: "utf8",
    env: { PATH: "/nonexistent-sandbox-test-bin", HOME: "/tmp" },
    timeout: 30_000,
  });
  const line = child.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`no report from the client: ${child.stdout}\n${child.stderr}`);
  }
}

test("sandbox: required, with no bwrap on this machine's PATH, refuses to start the server", () => {
  const report = run();
  assertEquals(
    [report.connected, report.kind, report.reason],
    [false, "unavailable", "sandbox_unavailable"],
  );
  assertStringIncludes(
    String(report.message),
    'Cannot start "/bin/sh" sandboxed: the command is not one Deno runs, and bwrap is not installed (Debian package bubblewrap)',
  );
  assertEquals(report.warnings, []);
  // At once: no retries with backoff.
  assert((report.ms as number) < 5_000, `took ${report.ms} ms`);
}, { ignore: !linux, timeout: 40_000 });

test(
  "sandbox: not required, with no bwrap on PATH, the server starts unsandboxed with a warning",
  () => {
    const node = spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).stdout.trim();
    const report = run("loose", node, SERVER);
    assertEquals([report.connected, report.containment, report.read], [true, "none", "ok:"]);
    assertEquals(report.warnings, [
      "sandbox: no sandbox applies (the command is not one Deno runs, and bwrap is not installed (Debian package bubblewrap)); the server runs unsandboxed",
    ]);
  },
  { ignore: !linux, timeout: 40_000 },
);

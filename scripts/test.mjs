// The whole gate: static checks, then the one suite under Deno and under Bun, then the
// conformance suite, each step's output shown as it runs. Fails on any failure and ends with
// "N passed, N failed".
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runStreaming } from "./_stream.mjs";

// No colours: NO_COLOR, and no FORCE_COLOR at all, since Deno turns colours on when
// FORCE_COLOR is set to anything, "0" included (and its children inherit it).
const { FORCE_COLOR: _forced, ...inherited } = process.env;
const env = { ...inherited, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
const bin = (name) => join("node_modules", ".bin", name);
const DENO_ALLOW = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
  "--allow-net=127.0.0.1,localhost",
  "--unstable-kv",
];
const SOURCE_DIRS = [
  "protocol",
  "clock",
  "client",
  "transports",
  "runtime",
  "sandbox",
  "oauth",
  "cache",
  "governance",
  "hub",
  "adapters",
  "cli",
  "testing",
  "tracing",
]
  .filter((dir) => {
    try {
      return readdirSync(dir).some((f) => f.endsWith(".ts"));
    } catch {
      return false;
    }
  });

let passed = 0;
let failed = 0;
const failures = [];

async function run(label, command, args, { count } = {}) {
  const started = Date.now();
  process.stdout.write(`\n=== ${label}\n`);
  // Written through as it comes (a suite runs for minutes), and kept for the counts.
  const result = await runStreaming(command, args, { env });
  const output = result.output;
  const ok = result.status === 0;
  const counted = count ? count(output) : { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  if (!ok && counted.failed === 0) counted.failed = 1;
  passed += counted.passed;
  failed += counted.failed;
  if (!ok) failures.push(label);
  process.stdout.write(`=== ${label}: ${ok ? "ok" : "FAILED"} (${Date.now() - started} ms)\n`);
  return ok;
}

function denoCount(output) {
  const line = [
    ...output.matchAll(/^(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/gm),
  ]
    .at(-1);
  return line ? { passed: Number(line[1]), failed: Number(line[2]) } : { passed: 0, failed: 0 };
}

function bunCount(output) {
  const pass = [...output.matchAll(/^\s*(\d+) pass$/gm)].at(-1);
  const fail = [...output.matchAll(/^\s*(\d+) fail$/gm)].at(-1);
  return { passed: pass ? Number(pass[1]) : 0, failed: fail ? Number(fail[1]) : 0 };
}

function listTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTests(path);
    return entry.name.endsWith("_test.ts") ? [path] : [];
  });
}

// Every test file must be reachable from tests/all.ts, so both runners see the same suite.
const all = readFileSync("tests/all.ts", "utf8");
const missing = listTests("tests").filter((file) => !all.includes(`./${file.slice(6)}`));
process.stdout.write("\n=== every test file is in tests/all.ts\n");
if (missing.length) {
  process.stdout.write(`missing: ${missing.join(", ")}\n`);
  failed += 1;
  failures.push("tests/all.ts lists every test file");
}

const deno = bin("deno");
const entries = ["mod.ts", "http.ts"];
await run("deno check", deno, [
  "check",
  ...entries,
  "tests/all.ts",
  "bun.test.ts",
  ...extraCheck(),
]);
await run("deno check (edge: no deno.ns)", deno, [
  "check",
  "--config",
  "tests/edge/deno.edge.json",
  "http.ts",
  "tests/edge/_worker.ts",
]);
await run("deno lint", deno, ["lint"]);
await run("deno fmt --check", deno, ["fmt", "--check"]);
await run("deno doc --lint", deno, [
  "doc",
  "--lint",
  ...entries,
  "oauth/mod.ts",
  "testing/mod.ts",
  "hub/mod.ts",
  "governance/mod.ts",
  "adapters/mod.ts",
  "cache/mod.ts",
  "cli.ts",
]);
await run("deno publish --dry-run", deno, ["publish", "--dry-run", "--allow-dirty"]);
await run("deno test", deno, ["test", ...DENO_ALLOW, "tests/all.ts"], { count: denoCount });
await run("deno test --doc", deno, ["test", "--doc", ...DENO_ALLOW, ...entries, ...SOURCE_DIRS], {
  count: denoCount,
});
await run("bun test", bin("bun"), ["test", "--timeout", "60000", "./bun.test.ts"], {
  count: bunCount,
});
await run("conformance", process.execPath, ["scripts/conformance.mjs"], {
  count: conformanceCount,
});

function conformanceCount(output) {
  const line = [...output.matchAll(/^conformance: (\d+) passed, (\d+) failed$/gm)].at(-1);
  return line ? { passed: Number(line[1]), failed: Number(line[2]) } : { passed: 0, failed: 0 };
}

function extraCheck() {
  return ["examples", "conformance", "bench", "scripts"].flatMap((dir) => {
    try {
      return readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => join(dir, f));
    } catch {
      return [];
    }
  });
}

if (failures.length) process.stdout.write(`\nFailed steps: ${failures.join("; ")}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failures.length || failed ? 1 : 0);

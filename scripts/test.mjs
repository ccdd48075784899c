// The whole gate: static checks, the one suite under Deno and under Bun, the doc tests and
// the conformance suite. Fails on any failure and ends with "N passed, N failed".
//
// The steps run in two lanes at once, of about the same length: the static checks, the Deno
// suite and the conformance suite in one; the Bun suite and the doc tests in the other. The
// suites spend most of their time waiting on the processes and servers they start, so two
// lanes overlap well on two cores (more would only make the machine's load, and the tests'
// timing, worse). The output still reads as one run: each step's output is shown whole, in
// the order below, the first unfinished step as it comes and the others once their turn
// comes. `--serial` runs the steps one after another instead.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { orderedOutput } from "./_ordered.mjs";
import { runStreaming } from "./_stream.mjs";

const SERIAL = process.argv.includes("--serial");

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

/**
 * One step: its label, the program and arguments, how to count its results from its output
 * (default: one passed or one failed step), and its lane (steps of one lane run in order).
 */
function step(label, command, args, { count, lane = "deno" } = {}) {
  return { label, command, args, count, lane };
}

async function run(index, write, end) {
  const { label, command, args, count } = steps[index];
  const started = Date.now();
  write(`\n=== ${label}\n`);
  const result = await runStreaming(command, args, { env, write });
  const output = result.output;
  const ok = result.status === 0;
  const counted = count ? count(output) : { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  if (!ok && counted.failed === 0) counted.failed = 1;
  passed += counted.passed;
  failed += counted.failed;
  if (!ok) failures[index] = { label, tests: failedTests(output) };
  write(`=== ${label}: ${ok ? "ok" : "FAILED"} (${Date.now() - started} ms)\n`);
  end();
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

/**
 * The names of the failed tests in a step's output, so that the run's last lines say which
 * failed: Bun's `(fail)` lines and the entries of Deno's FAILURES list.
 */
function failedTests(output) {
  const bun = [...output.matchAll(/^\(fail\) (.+)$/gm)].map((m) => m[1]);
  const list = output.lastIndexOf("\n FAILURES");
  const deno = list < 0
    ? []
    : output.slice(list).split("\n").filter((line) => line.includes(" => "));
  return [...bun, ...deno].map((name) => name.trim());
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
  failures.push({ label: "tests/all.ts lists every test file", tests: [] });
}

const deno = bin("deno");
const entries = ["mod.ts", "http.ts"];
const steps = [
  step("deno check", deno, ["check", ...entries, "tests/all.ts", "bun.test.ts", ...extraCheck()]),
  step("deno check (edge: no deno.ns)", deno, [
    "check",
    "--config",
    "tests/edge/deno.edge.json",
    "http.ts",
    "tests/edge/_worker.ts",
  ]),
  step("deno lint", deno, ["lint"]),
  step("deno fmt --check", deno, ["fmt", "--check"]),
  step("deno doc --lint", deno, [
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
  ]),
  step("deno publish --dry-run", deno, ["publish", "--dry-run", "--allow-dirty"]),
  // What is published: the entries bundled into dist/ (npm run build), typed by the sources.
  step("npm run build", bin("bun"), ["scripts/build.mjs"]),
  step("deno publish --dry-run (the built package)", deno, [
    "publish",
    "--dry-run",
    "--allow-dirty",
    "--config",
    "deno.publish.json",
  ]),
  // --no-check: "deno check" above type-checks tests/all.ts with the same config.
  step("deno test", deno, ["test", "--no-check", ...DENO_ALLOW, "tests/all.ts"], {
    count: denoCount,
  }),
  step("bun test", bin("bun"), ["test", "--timeout", "60000", "./bun.test.ts"], {
    count: bunCount,
    lane: "bun",
  }),
  step("deno test --doc", deno, ["test", "--doc", ...DENO_ALLOW, ...entries, ...SOURCE_DIRS], {
    count: denoCount,
    lane: "bun", // after the Bun suite, which ends sooner than the Deno one
  }),
  step("conformance", process.execPath, ["scripts/conformance.mjs"], { count: conformanceCount }),
];

const started = Date.now();
const output = orderedOutput(steps.length);
const lanes = new Map();
steps.forEach(({ lane }, index) => {
  const key = SERIAL ? "all" : lane;
  lanes.set(key, [...lanes.get(key) ?? [], index]);
});
await Promise.all([...lanes.values()].map(async (lane) => {
  for (const index of lane) await run(index, output.writer(index), () => output.end(index));
}));
process.stdout.write(`\n=== all steps: ${Math.round((Date.now() - started) / 1000)} s\n`);

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

const failedSteps = failures.filter(Boolean);
if (failedSteps.length) {
  process.stdout.write(`\nFailed steps: ${failedSteps.map((f) => f.label).join("; ")}\n`);
  for (const { label, tests } of failedSteps) {
    for (const test of tests) process.stdout.write(`  ${label}: ${test}\n`);
  }
}
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failedSteps.length || failed ? 1 : 0);

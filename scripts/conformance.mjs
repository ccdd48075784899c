// The conformance gate: runs the official MCP conformance runner
// (@modelcontextprotocol/conformance, under Bun: it cannot run on Node 20) against
// conformance/client.ts, for each requirement set and each adapter runtime, with
// conformance/baseline.yml as the expected failures. Node 20, no dependencies.
//
//   node scripts/conformance.mjs                       # 2 sets × 2 runtimes
//   node scripts/conformance.mjs --rev 2025-11-25 --runtime bun
//   node scripts/conformance.mjs --scenario sse-retry [--runtime deno|bun] [--rev 2025-11-25]
//   node scripts/conformance.mjs --timeout 60000       # per scenario (runner default 30 s)
//
// Per run it prints the scored scenarios that passed, failed unexpectedly, failed as
// expected (baseline) or passed while listed (stale), the unscored ones for information,
// and ends with `conformance: N passed, N failed` (passed = scored scenarios that passed,
// failed = unexpected failures + stale baseline entries; expected failures count as
// neither). json-schema-2020-12-preservation is unscored upstream but required by issue 5,
// so it is counted too. Stricter than the runner in one way: a scenario whose checks all
// pass still fails when the adapter did not finish (crash, non-zero exit, timeout), unless
// the scenario expects the client to refuse. Exit code 1 when any runner run exits
// non-zero or a counted scenario fails. Results (checks.json, adapter stdout/stderr, the
// runner's log) stay in out/conformance/.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const RUNNER = "node_modules/@modelcontextprotocol/conformance/dist/index.js";
const BASELINE = "conformance/baseline.yml";
const OUT = "out/conformance";
const REVS = ["2026-07-28", "2025-11-25"];
const ADAPTERS = {
  deno: "node_modules/.bin/deno run -A conformance/client.ts",
  bun: "node_modules/.bin/bun conformance/client.ts",
};
/** Unscored upstream, required here (issue 5). */
const ALSO_REQUIRED = new Set(["json-schema-2020-12-preservation"]);
// No FORCE_COLOR at all: Deno turns colours on when it is set to anything, "0" included.
const { FORCE_COLOR: _forced, ...inherited } = process.env;
const env = { ...inherited, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };

// --- arguments ---------------------------------------------------------------------------

function parseArgs(argv) {
  const args = { scenario: undefined, runtimes: Object.keys(ADAPTERS), revs: REVS, timeout: [] };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--scenario" && value) args.scenario = argv[++i];
    else if (flag === "--runtime" && value in ADAPTERS) (args.runtimes = [value]), i++;
    else if (flag === "--rev" && REVS.includes(value)) (args.revs = [value]), i++;
    else if (flag === "--timeout" && /^\d+$/.test(value)) {
      (args.timeout = ["--timeout", value]), i++;
    } else {
      console.error(
        `usage: node scripts/conformance.mjs [--scenario <name>] [--runtime deno|bun] ` +
          `[--rev ${REVS.join("|")}] [--timeout <ms per scenario, default 30000>]`,
      );
      process.exit(2);
    }
  }
  args.revSet = argv.includes("--rev");
  return args;
}

// --- tiny YAML readers (the two files have a fixed, simple shape) ------------------------

/** `client:` list of a requirements file, and its `not_scored` client scenarios. */
function readRequirements(rev) {
  const lines = readFileSync(
    join(ROOT, `node_modules/@modelcontextprotocol/conformance/requirements/${rev}.yaml`),
    "utf8",
  ).split("\n");
  const scored = [];
  const unscored = [];
  let section = "";
  let pending;
  for (const raw of lines) {
    const line = raw.replace(/\s+#.*$/, "");
    if (/^\S/.test(line)) section = line.replace(/:.*$/, "");
    const item = /^\s+-\s+([^\s:]+)\s*$/.exec(line);
    if (section === "client" && item) scored.push(item[1]);
    const entry = /^\s+-\s+scenario:\s*(\S+)/.exec(line);
    if (section === "not_scored" && entry) pending = entry[1];
    const leg = /^\s+leg:\s*(\S+)/.exec(line);
    if (section === "not_scored" && leg && pending) {
      if (leg[1] === "client") unscored.push(pending);
      pending = undefined;
    }
  }
  return { scored, unscored };
}

/** The `client:` entries of the baseline: whole scenarios and `scenario:check-id` pairs. */
function readBaseline() {
  const whole = new Set();
  const checks = new Map();
  let section = "";
  for (const raw of readFileSync(join(ROOT, BASELINE), "utf8").split("\n")) {
    const line = raw.replace(/(^|\s)#.*$/, "");
    if (/^\S/.test(line)) section = line.replace(/:.*$/, "");
    const item = /^\s+-\s+(\S+)\s*$/.exec(line);
    if (section !== "client" || !item) continue;
    const [scenario, check] = item[1].split(/:(.*)/s);
    if (check) checks.set(scenario, new Set([...(checks.get(scenario) ?? []), check]));
    else whole.add(scenario);
  }
  return { whole, checks };
}

// --- results -----------------------------------------------------------------------------

const SEVERITY = { FAILURE: 3, WARNING: 2, SUCCESS: 1, INFO: 0, SKIPPED: 0 };
const bad = (check) => check.status === "FAILURE" || check.status === "WARNING";
// The runner names each result directory <scenario>-<ISO time with : and . as ->.
const STAMP = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** scenario → { checks, dir } from every checks.json under dir (newest wins). */
function readResults(dir) {
  const results = new Map();
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === "checks.json") {
        const name = relative(dir, d).split(sep).join("/");
        if (!STAMP.test(name)) continue;
        const scenario = name.replace(STAMP, "");
        const previous = results.get(scenario);
        if (previous && previous.dir > d) continue;
        try {
          results.set(scenario, { checks: JSON.parse(readFileSync(path, "utf8")), dir: d });
        } catch {
          results.set(scenario, { checks: [], dir: d, unreadable: true });
        }
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return results;
}

/** Worst status per check id (the runner's collapse). */
function collapse(checks) {
  const worst = new Map();
  for (const check of checks) {
    const seen = worst.get(check.id);
    if (!seen || SEVERITY[check.status] > SEVERITY[seen.status]) worst.set(check.id, check);
  }
  return [...worst.values()];
}

/**
 * Scenarios whose adapter may exit non-zero: the client is expected to refuse
 * (conformance.md; the runner's `allowClientError`).
 */
const MAY_REFUSE = new Set([
  "http-invalid-tool-headers",
  "auth/resource-mismatch",
  "auth/scope-retry-limit",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/metadata-issuer-mismatch",
]);

/**
 * Whether the adapter ran to its end (it logs `[conformance] done` just before exit 0).
 * A --requirements run ignores the client's exit code, so a crashed adapter would
 * otherwise "pass" scenarios whose checks only look for wrong requests (initialize,
 * http-standard-headers); conformance.md requires exit 0 within 30 s.
 */
function finished(scenario, result) {
  if (MAY_REFUSE.has(scenario)) return true;
  const stderr = join(result.dir, "stderr.txt");
  return existsSync(stderr) && /\[conformance\] done\s*$/m.test(readFileSync(stderr, "utf8"));
}

/** pass | fail | expected | stale | missing, judged as the runner judges the baseline. */
function verdict(scenario, result, baseline) {
  if (!result || result.unreadable) return baseline.whole.has(scenario) ? "expected" : "missing";
  const failing = result.checks.some(bad) || !finished(scenario, result);
  if (baseline.whole.has(scenario)) return failing ? "expected" : "stale";
  const listed = baseline.checks.get(scenario);
  if (!listed) return failing ? "fail" : "pass";
  const collapsed = collapse(result.checks);
  if (collapsed.some((c) => bad(c) && !listed.has(c.id))) return "fail";
  if (collapsed.some((c) => listed.has(c.id) && c.status === "SUCCESS")) return "stale";
  return failing ? "expected" : "pass";
}

function failureLines(scenario, result) {
  if (!result) return ["    (no result: the runner did not run it or crashed)"];
  const lines = collapse(result.checks).filter(bad).map((c) =>
    `    ✗ ${c.id} [${c.status}] ${c.name}: ${oneLine(c.errorMessage ?? c.description)}`
  );
  if (!lines.length && !finished(scenario, result)) {
    lines.push(
      "    ✗ (every check passed, but the adapter did not finish: it failed or timed out)",
    );
  }
  const stderr = join(result.dir, "stderr.txt");
  if (existsSync(stderr)) {
    const text = readFileSync(stderr, "utf8").split("\n");
    let tail = text
      .filter((l) => l.includes("[conformance]") && /failed|refused|gave up|unknown/.test(l))
      .map((l) => l.replace(/^.*\[conformance\]\s*/, ""));
    // The adapter never got going (a load or link error): show the runtime's error line.
    if (!text.some((l) => l.includes("[conformance]"))) {
      tail = text.filter((l) => /Error\b/.test(l)).slice(0, 1);
    }
    for (const l of tail.slice(-2)) lines.push(`    adapter: ${oneLine(l)}`);
  }
  return lines;
}

function oneLine(text) {
  // deno-lint-ignore no-control-regex
  const s = String(text ?? "").replace(/\x1b\[[0-9;]*m/g, "").replace(/\s+/g, " ").trim();
  return s.length > 300 ? `${s.slice(0, 297)}...` : s;
}

// --- running -----------------------------------------------------------------------------

function runRunner(args, { logFile, inherit }) {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, "node_modules/.bin/bun"), [RUNNER, ...args], {
      cwd: ROOT,
      env,
      stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    child.on("error", (error) => resolve({ code: -1, output: `${output}\n${error.message}` }));
    child.on("close", (code, signal) => {
      if (logFile) writeFileSync(logFile, output);
      resolve({ code: code ?? (signal ? 1 : 0), output });
    });
  });
}

async function fullRun(rev, runtime, baseline) {
  const dir = join(OUT, `${rev}-${runtime}`);
  rmSync(join(ROOT, dir), { recursive: true, force: true });
  mkdirSync(join(ROOT, dir), { recursive: true });
  const started = Date.now();
  const { code, output } = await runRunner([
    "client",
    "--command",
    ADAPTERS[runtime],
    "--requirements",
    rev,
    "--expected-failures",
    BASELINE,
    "-o",
    dir,
    ...args.timeout,
  ], { logFile: join(ROOT, `${dir}.log`) });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const { scored, unscored } = readRequirements(rev);
  const results = readResults(join(ROOT, dir));
  const by = { pass: [], fail: [], expected: [], stale: [], missing: [] };
  for (const s of scored) by[verdict(s, results.get(s), baseline)].push(s);
  const extra = unscored.map((s) => {
    const result = results.get(s);
    const ok = result && !result.unreadable && !result.checks.some(bad) && finished(s, result);
    return { s, ok, result };
  });

  console.log(
    `\n=== conformance ${rev} · adapter under ${runtime} (${seconds} s, runner exit ${code})`,
  );
  console.log(
    `scored ${scored.length}: ${by.pass.length} passed, ${by.fail.length + by.missing.length} ` +
      `failed, ${by.expected.length} expected failures, ${by.stale.length} stale baseline entries`,
  );
  for (const s of by.pass) console.log(`  ✓ ${s}`);
  for (const s of [...by.fail, ...by.missing]) {
    console.log(`  ✗ ${s}`);
    for (const l of failureLines(s, results.get(s))) console.log(l);
  }
  for (const s of by.stale) console.log(`  ! ${s}: passes but is listed in ${BASELINE}; remove it`);
  if (by.expected.length) console.log(`  ~ expected: ${by.expected.join(", ")}`);
  console.log(`unscored ${extra.length}:`);
  for (const { s, ok, result } of extra) {
    console.log(`  ${ok ? "✓" : "✗"} ${s}${ALSO_REQUIRED.has(s) ? " (required by issue 5)" : ""}`);
    if (!ok && ALSO_REQUIRED.has(s)) { for (const l of failureLines(s, result)) console.log(l); }
  }
  if (code !== 0 && !by.fail.length && !by.stale.length && !by.missing.length) {
    console.log(`runner output (exit ${code}):\n${output.split("\n").slice(-15).join("\n")}`);
  }
  const required = extra.filter((e) => ALSO_REQUIRED.has(e.s));
  return {
    ok: code === 0 && required.every((e) => e.ok),
    passed: by.pass.length + required.filter((e) => e.ok).length,
    failed: by.fail.length + by.missing.length + by.stale.length +
      required.filter((e) => !e.ok).length,
  };
}

async function singleRun(scenario, rev, runtime, baseline) {
  const dir = join(OUT, `single-${rev}-${runtime}`);
  rmSync(join(ROOT, dir), { recursive: true, force: true });
  console.log(`\n=== ${scenario} at ${rev} · adapter under ${runtime}`);
  const { code } = await runRunner([
    "client",
    "--command",
    ADAPTERS[runtime],
    "--scenario",
    scenario,
    "--spec-version",
    rev,
    "-o",
    dir,
    ...args.timeout,
  ], { inherit: true });
  const result = readResults(join(ROOT, dir)).get(scenario);
  if (!result) {
    console.log(`${scenario}: no result (skipped at ${rev}?), runner exit ${code}`);
    return { ok: code === 0, passed: 0, failed: code === 0 ? 0 : 1 };
  }
  const v = verdict(scenario, result, baseline);
  console.log(`${scenario} (${runtime}, ${rev}): ${v}, runner exit ${code}`);
  for (const l of v === "pass" ? [] : failureLines(scenario, result)) console.log(l);
  // Judged on the checks, as a --requirements run judges it (the runner's own exit code
  // here also counts the adapter's exit code, and 1 for a listed expected failure).
  const failed = v === "pass" || v === "expected" ? 0 : 1;
  return { ok: failed === 0, passed: v === "pass" ? 1 : 0, failed };
}

/**
 * Fill Deno's module cache once: a --requirements run starts every adapter at the same
 * time (39 processes for 2026-07-28) and they would otherwise all transpile the library
 * at once on a cold cache, pushing slow machines towards the runner's 30 s limit.
 */
function warmDeno() {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, "node_modules/.bin/deno"), ["cache", "conformance/client.ts"], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", () => resolve());
    child.on("close", () => resolve());
  });
}

// --- main --------------------------------------------------------------------------------

const args = parseArgs(process.argv.slice(2));
const baseline = readBaseline();
const runs = [];
const started = Date.now();
if (args.runtimes.includes("deno")) await warmDeno();
if (args.scenario) {
  const revs = args.revSet
    ? args.revs
    : [REVS.find((rev) => readRequirements(rev).scored.includes(args.scenario)) ?? REVS[0]];
  for (const rev of revs) {
    for (const runtime of args.runtimes) {
      runs.push(await singleRun(args.scenario, rev, runtime, baseline));
    }
  }
} else {
  for (const rev of args.revs) {
    for (const runtime of args.runtimes) runs.push(await fullRun(rev, runtime, baseline));
  }
}
const passed = runs.reduce((n, r) => n + r.passed, 0);
const failed = runs.reduce((n, r) => n + r.failed, 0);
const ok = runs.every((r) => r.ok) && failed === 0;
console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s; results in ${OUT}/)`);
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);

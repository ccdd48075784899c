// The benchmark driver: `node bench/run.mjs [stdio|http|peak|soak|cache|tracing|governance|hub|startup|toolsearch|hubscale|spill|floor|cli-keep] [--runtime deno|bun]
// [--runs 3]` (`npm run bench -- …`; `npm run bench:peak` and `npm run soak` name theirs).
// Without a bench name it runs stdio and http; without --runtime, both
// runtimes. Each bench runs every case --runs times (one process per client and case) and
// prints medians and the ratios against the goals. Other flags go to the benches as they
// are: --server minimal|everything, --mode auto|legacy, --quick, --seq N, --par N,
// --connects N, --calls N, --json.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const DENO_FLAGS = [
  "--no-lock",
  "-q",
  "--allow-read",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
  "--allow-net=127.0.0.1",
];

// The cache bench opens a Deno KV file in a temporary directory; the spill bench writes a
// file store in one.
const CACHE_FLAGS = ["--unstable-kv", "--allow-write"];

const argv = process.argv.slice(2);
const benches = [];
const runtimes = [];
let runs = "3";
let report = false; // --report: also write bench/REPORT.md and its charts
let note; // --note TEXT: a line under the machine in the report
const passThrough = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (
    [
      "stdio",
      "http",
      "peak",
      "soak",
      "cache",
      "tracing",
      "governance",
      "hub",
      "startup",
      "toolsearch",
      "hubscale",
      "spill",
      "floor",
      "cli-keep",
    ]
      .includes(arg)
  ) {
    benches.push(arg);
  } else if (arg === "--runtime") runtimes.push(...argv[++i].split(","));
  else if (arg.startsWith("--runtime=")) runtimes.push(...arg.slice(10).split(","));
  else if (arg === "--report") report = true;
  else if (arg === "--note") note = argv[++i];
  else if (arg === "--runs") runs = argv[++i];
  else if (arg.startsWith("--runs=")) runs = arg.slice(7);
  else if (arg === "-h" || arg === "--help") {
    console.log(
      "usage: node bench/run.mjs [stdio|http|peak|soak] [--runtime deno|bun] [--runs 3] " +
        "[--server minimal|everything] [--mode auto|legacy] [--quick] [--json] " +
        "[--report [--note TEXT]]",
    );
    process.exit(0);
  } else passThrough.push(arg);
}
// The report compares the clients: the benches with the official client and the raw floor.
if (benches.length === 0) benches.push("stdio", "http", ...(report ? ["peak", "startup"] : []));
if (runtimes.length === 0) runtimes.push("deno", "bun");
for (const runtime of runtimes) {
  if (runtime !== "deno" && runtime !== "bun") {
    console.error(`unknown runtime: ${runtime} (deno or bun)`);
    process.exit(2);
  }
}

const started = Date.now();
const startedAt = new Date().toISOString().replace(/\.\d+Z$/, "Z");
const loadStart = loadAverage();
const collected = [];
let failed = false;
for (const bench of benches) {
  for (const runtime of runtimes) {
    const script = join(here, `${bench.replace("-", "_")}.ts`);
    const args = ["--runs", runs, ...passThrough, ...(report ? ["--json"] : [])];
    const [command, commandArgs] = runtime === "deno"
      ? [bin("deno"), [
        "run",
        ...DENO_FLAGS,
        ...(bench === "cache" || bench === "hubscale" || bench === "spill" ? CACHE_FLAGS : []),
        // The start-up bench bundles into, and records loads from, temporary folders; the
        // kept-connection bench gives each run a config folder of its own.
        ...(bench === "startup" || bench === "cli-keep" ? ["--allow-write"] : []),
        script,
        ...args,
      ]]
      : [bin("bun"), [script, ...args]];
    console.log(`\n######## ${bench} · ${runtime}`);
    const result = spawnSync(command, commandArgs, {
      cwd: root,
      // With --report the results are read from stdout (and printed as they were).
      stdio: report ? ["inherit", "pipe", "inherit"] : "inherit",
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    });
    if (report) {
      const out = result.stdout?.toString() ?? "";
      const lines = out.split("\n");
      process.stdout.write(lines.filter((l) => !l.startsWith("BENCH_JSON ")).join("\n"));
      const json = lines.find((l) => l.startsWith("BENCH_JSON "));
      if (json !== undefined) {
        const { results } = JSON.parse(json.slice("BENCH_JSON ".length));
        collected.push({ bench, runtime, runs: Number(runs), results });
      }
    }
    if (result.status !== 0) {
      failed = true;
      console.error(`${bench} under ${runtime} exited with ${result.status ?? result.signal}`);
    }
  }
}
console.log(`\nall benchmarks done in ${Math.round((Date.now() - started) / 1000)} s`);
if (report) writeReport();
process.exit(failed ? 1 : 0);

/** The load average (1, 5, 15 min), as `bench/_runtime.ts` prints it. */
function loadAverage() {
  return os.loadavg().map((v) => v.toFixed(2)).join(" / ");
}

/** The first line a command prints, or "?" (for the runtimes' versions). */
function versionOf(command, args) {
  const out = spawnSync(command, args, { encoding: "utf8" });
  return (out.stdout ?? "").split("\n")[0].trim() || "?";
}

/** Writes bench/REPORT.md and its charts (bench/report.ts draws them) from `collected`. */
function writeReport() {
  const cpus = os.cpus();
  const input = {
    command: `node bench/run.mjs ${
      argv.map((a) => /\s/.test(a) ? JSON.stringify(a) : a).join(" ")
    }`,
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model ?? "?",
      memoryGiB: os.totalmem() / 2 ** 30,
      os: `${os.type()} ${os.release().split(".").slice(0, 2).join(".")} ${os.arch()}`,
      versions: {
        deno: versionOf(bin("deno"), ["--version"]).replace(/^deno /, ""),
        bun: versionOf(bin("bun"), ["--version"]),
        node: process.version,
      },
      loadStart,
      loadEnd: loadAverage(),
      date: startedAt,
      ...(note ? { note } : {}),
    },
    benches: collected,
  };
  const dir = mkdtempSync(join(os.tmpdir(), "bench-report-"));
  const file = join(dir, "results.json");
  writeFileSync(file, JSON.stringify(input));
  const written = spawnSync(bin("bun"), [join(here, "report.ts"), file, here], {
    stdio: "inherit",
  });
  if (written.status !== 0) process.exit(1);
  // In the repository's own format (the formatter's check covers markdown and SVG).
  const drawn = readdirSync(here).filter((f) => f === "REPORT.md" || f.endsWith(".svg"));
  spawnSync(bin("deno"), ["fmt", "-q", ...drawn.map((f) => join(here, f))], { stdio: "inherit" });
  console.log(`(the results: ${file}; \`bun bench/report.ts ${file}\` draws the report again)`);
}

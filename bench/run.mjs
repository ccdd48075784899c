// The benchmark driver: `node bench/run.mjs [stdio|http|peak|soak|cache|tracing|governance|hub|startup] [--runtime deno|bun]
// [--runs 3]` (`npm run bench -- …`; `npm run bench:peak` and `npm run soak` name theirs).
// Without a bench name it runs stdio and http; without --runtime, both
// runtimes. Each bench runs every case --runs times (one process per client and case) and
// prints medians and the ratios against the goals. Other flags go to the benches as they
// are: --server minimal|everything, --mode auto|legacy, --quick, --seq N, --par N,
// --connects N, --calls N, --json.
import { spawnSync } from "node:child_process";
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

// The cache bench opens a Deno KV file in a temporary directory.
const CACHE_FLAGS = ["--unstable-kv", "--allow-write"];

const argv = process.argv.slice(2);
const benches = [];
const runtimes = [];
let runs = "3";
const passThrough = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (
    ["stdio", "http", "peak", "soak", "cache", "tracing", "governance", "hub", "startup"].includes(
      arg,
    )
  ) {
    benches.push(arg);
  } else if (arg === "--runtime") runtimes.push(...argv[++i].split(","));
  else if (arg.startsWith("--runtime=")) runtimes.push(...arg.slice(10).split(","));
  else if (arg === "--runs") runs = argv[++i];
  else if (arg.startsWith("--runs=")) runs = arg.slice(7);
  else if (arg === "-h" || arg === "--help") {
    console.log(
      "usage: node bench/run.mjs [stdio|http|peak|soak] [--runtime deno|bun] [--runs 3] " +
        "[--server minimal|everything] [--mode auto|legacy] [--quick] [--json]",
    );
    process.exit(0);
  } else passThrough.push(arg);
}
if (benches.length === 0) benches.push("stdio", "http");
if (runtimes.length === 0) runtimes.push("deno", "bun");
for (const runtime of runtimes) {
  if (runtime !== "deno" && runtime !== "bun") {
    console.error(`unknown runtime: ${runtime} (deno or bun)`);
    process.exit(2);
  }
}

const started = Date.now();
let failed = false;
for (const bench of benches) {
  for (const runtime of runtimes) {
    const script = join(here, `${bench}.ts`);
    const args = ["--runs", runs, ...passThrough];
    const [command, commandArgs] = runtime === "deno"
      ? [bin("deno"), [
        "run",
        ...DENO_FLAGS,
        ...(bench === "cache" ? CACHE_FLAGS : []),
        // The start-up bench bundles into, and records loads from, temporary folders.
        ...(bench === "startup" ? ["--allow-write"] : []),
        script,
        ...args,
      ]]
      : [bin("bun"), [script, ...args]];
    console.log(`\n######## ${bench} · ${runtime}`);
    const result = spawnSync(command, commandArgs, {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    });
    if (result.status !== 0) {
      failed = true;
      console.error(`${bench} under ${runtime} exited with ${result.status ?? result.signal}`);
    }
  }
}
console.log(`\nall benchmarks done in ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(failed ? 1 : 0);

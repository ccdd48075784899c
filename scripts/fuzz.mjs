// `npm run fuzz`: the property tests of tests/fuzz with many inputs each, under Deno and
// under Bun, and the number of inputs they ran ("fuzz: N inputs"). FUZZ_RUNS sets the
// inputs per property (default 32 000: over 1 000 000 in all); FUZZ_SEED replays a failure;
// `--deno` or `--bun` runs one runtime alone.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const MINIMUM = 1_000_000;
const runs = process.env.FUZZ_RUNS ?? "32000";
const only = process.argv.slice(2).find((arg) => arg === "--deno" || arg === "--bun");
const files = readdirSync(join("tests", "fuzz"))
  .filter((name) => name.endsWith("_test.ts"))
  .map((name) => join("tests", "fuzz", name));
const bin = (name) => join("node_modules", ".bin", name);
const runtimes = [
  ["deno", bin("deno"), ["test", "--allow-read", "--allow-env", ...files]],
  ["bun", bin("bun"), ["test", "--timeout", "3600000", ...files.map((f) => `./${f}`)]],
].filter(([name]) => only === undefined || only === `--${name}`);

const env = { ...process.env, FUZZ_RUNS: runs, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
let total = 0;
let failed = false;
for (const [name, command, args] of runtimes) {
  const started = Date.now();
  const result = spawnSync(command, args, { env, encoding: "utf8", maxBuffer: 64 << 20 });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  const counted = [...output.matchAll(/^fuzz-count (\d+) /gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
  total += counted;
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (result.status !== 0) {
    failed = true;
    process.stdout.write(output);
  }
  console.log(
    `${name}: ${counted} inputs in ${seconds} s: ${result.status === 0 ? "ok" : "FAILED"}`,
  );
}
console.log(`fuzz: ${total} inputs`);
if (failed) process.exit(1);
if (only === undefined && total < MINIMUM) {
  console.error(`fewer than ${MINIMUM} inputs: raise FUZZ_RUNS`);
  process.exit(1);
}

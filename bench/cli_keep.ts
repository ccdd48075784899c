/**
 * The kept-connection benchmark: the wall time of one `conduit-mcp call` (a whole CLI
 * process, from start to exit) through a kept session (`conduit-mcp connect`) against a
 * fresh one that starts the server and shakes hands itself, side by side, on the minimal
 * stdio server and on server-everything (both under Node). Fresh and kept calls take turns
 * (`--rounds` of each per run, `--runs` runs, each run with a new session); the figures are
 * medians over all of them, and each kept call's output is checked against the fresh one's.
 * The CLI runs under the runtime of this file (`deno run -A cli.ts`, or `bun cli.ts`).
 *
 * Goal: none fixed; the speed-up is reported. The machine is shared: figures are noisy.
 * Usage: node bench/run.mjs cli-keep [--runtime deno|bun] [--runs 3] [--rounds 5]
 *        [--server minimal|everything] [--json]
 *
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  contextLine,
  execPath,
  exit,
  fmt,
  loadAverage,
  median,
  numberFlag,
  parseFlags,
  printTable,
  readText,
  runtime,
  scriptArgs,
  spawn,
} from "./_lib.ts";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CLI = here("../cli.ts");
const SERVERS: Record<string, string[]> = {
  minimal: ["node", here("./_servers/stdio_server.mjs")],
  everything: [
    "node",
    here("../node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
  ],
};
const MESSAGES: Record<string, string> = { minimal: "hello", everything: "hello" };

const flags = parseFlags(scriptArgs());
const runs = numberFlag(flags, "runs", 3);
const rounds = numberFlag(flags, "rounds", 5);
const servers = flags.has("server") ? [flags.get("server")!] : ["minimal", "everything"];
for (const server of servers) {
  if (!(server in SERVERS)) {
    console.error(`unknown --server ${server} (minimal or everything)`);
    exit(2);
  }
}

/** Runs the CLI once; resolves with its wall time (ms), exit code and output. */
async function cli(args: string[], configDir: string) {
  const argv = runtime === "bun"
    ? [execPath(), CLI, ...args]
    : [execPath(), "run", "-A", "--no-lock", "-q", CLI, ...args];
  const started = performance.now();
  const child = spawn(argv, {
    stderr: "pipe",
    env: { CONDUIT_MCP_CONFIG_DIR: configDir, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  child.endInput();
  const [stdout, stderr, code] = await Promise.all([
    readText(child.stdout),
    readText(child.stderr!),
    child.exited,
  ]);
  return { ms: performance.now() - started, code, stdout, stderr };
}

console.log(`cli-keep · ${runtime} · load ${await loadAverage()}`);
const rows: string[][] = [];
const results: Record<string, unknown>[] = [];
for (const server of servers) {
  const target = ["--", ...SERVERS[server]];
  const call = ["call", "echo", `message=${MESSAGES[server]}`, ...target];
  const fresh: number[] = [];
  const kept: number[] = [];
  let connects: number[] = [];
  for (let run = 0; run < runs; run++) {
    const keptDir = mkdtempSync(join(tmpdir(), "conduit-bench-keep-"));
    const freshDir = mkdtempSync(join(tmpdir(), "conduit-bench-fresh-"));
    try {
      const connect = await cli(["connect", ...target], keptDir);
      if (connect.code !== 0) {
        throw new Error(`connect failed (${connect.code}): ${connect.stderr}`);
      }
      connects = [...connects, connect.ms];
      for (let round = 0; round < rounds; round++) {
        // Taking turns, the order alternating, so drifting load falls on both.
        const order = round % 2 === 0 ? ["fresh", "kept"] : ["kept", "fresh"];
        const outputs: Record<string, string> = {};
        for (const which of order) {
          const result = await cli(call, which === "kept" ? keptDir : freshDir);
          if (result.code !== 0) {
            throw new Error(`${which} call failed (${result.code}): ${result.stderr}`);
          }
          (which === "kept" ? kept : fresh).push(result.ms);
          outputs[which] = result.stdout;
        }
        if (outputs.kept !== outputs.fresh) {
          throw new Error(
            `the kept call printed ${JSON.stringify(outputs.kept)}, not ` +
              JSON.stringify(outputs.fresh),
          );
        }
      }
      await cli(["disconnect", ...target], keptDir);
    } finally {
      rmSync(keptDir, { recursive: true, force: true });
      rmSync(freshDir, { recursive: true, force: true });
    }
  }
  const f = median(fresh);
  const k = median(kept);
  rows.push([
    server,
    fmt(f, 0),
    fmt(k, 0),
    fmt(f / k),
    fmt(median(connects), 0),
    String(kept.length),
  ]);
  results.push({
    server,
    runtime,
    freshMs: f,
    keptMs: k,
    speedup: f / k,
    connectMs: median(connects),
    samples: kept.length,
  });
}
printTable(
  ["server", "fresh call ms", "kept call ms", "fresh / kept", "connect ms", "samples each"],
  rows,
);
for (const r of results) {
  console.log(
    contextLine(`${r.server}: a fresh call takes this many kept calls' time`, r.speedup as number),
  );
}
if (flags.has("json")) console.log("BENCH_JSON " + JSON.stringify({ runtime, results }));

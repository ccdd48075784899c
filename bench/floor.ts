/**
 * bench/floor: our stdio client against the raw NDJSON loop over the same pipe, with the
 * server in a session of its own (how our transport starts it, `setsid`) and in the
 * benchmark's session (ours with `processGroup: false`), all four in one process taking
 * turns, so that the machine's drift falls on all of them alike.
 *
 *   node bench/run.mjs floor [--runtime deno|bun] [--runs 3] [--rounds 8] [--calls 20000]
 *
 * One worker process per run connects the four (each with its own minimal server), warms
 * each up, then runs `--rounds` rounds in rotating order; in each round every contestant
 * makes `--calls` calls with 32 in flight (calls/s, and this process's CPU time per call:
 * the client's own work, which the scheduler's delays do not move) and 200 sequential calls
 * (the mean round trip). A run reports the medians over its rounds; the driver prints the
 * medians over runs and the per-run ratios' medians:
 *
 * - ours ÷ raw with both servers started the same way (the goal: ≥ 0.95×), in either session;
 * - each contestant's own session over the same session: what the scheduling group costs.
 *
 * @module
 */

import process from "node:process";
import {
  concurrent,
  emitResult,
  exit,
  fmt,
  goalLine,
  median,
  numberFlag,
  parseFlags,
  pick,
  printTable,
  type Row,
  runtime,
  runtimeArgv,
  runWorker,
  scriptArgs,
  sequential,
} from "./_lib.ts";
import { finishDriver, printContext, startDriver } from "./_driver.ts";
import { connectStdio, type Mode, serverCommand, type Session } from "./_stdio_clients.ts";

/** The four contestants: who, and where its server runs. */
const VARIANTS = [
  { name: "raw-own", client: "raw", session: "own" },
  { name: "raw-same", client: "raw", session: "same" },
  { name: "ours-own", client: "ours", session: "own" },
  { name: "ours-same", client: "ours", session: "same" },
] as const;
const IN_FLIGHT = 32;
const SEQUENTIAL = 200;
const flags = parseFlags(scriptArgs());

if (flags.has("worker")) await worker();
else await driver();

/** This process's CPU time so far, in µs (user + system). */
function cpu(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function worker(): Promise<void> {
  const calls = numberFlag(flags, "calls", 20000);
  const rounds = numberFlag(flags, "rounds", 8);
  const mode = (flags.get("mode") ?? "auto") as Mode;
  const sessions: Session[] = [];
  for (const variant of VARIANTS) {
    const server = { ...serverCommand("minimal"), session: variant.session };
    sessions.push(await connectStdio(variant.client, server, mode));
  }
  // Warm up every one with both call patterns, twice (as the other benches do).
  for (let i = 0; i < 2; i++) {
    for (const session of sessions) {
      await sequential(session.call, 200);
      await concurrent(session.call, 2000, IN_FLIGHT);
    }
  }
  const perRound = VARIANTS.map(() => ({
    rate: [] as number[],
    cpu: [] as number[],
    rtt: [] as number[],
  }));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const i = (k + round) % VARIANTS.length;
      const session = sessions[i];
      const before = cpu();
      const { callsPerSec } = await concurrent(session.call, calls, IN_FLIGHT);
      perRound[i].cpu.push((cpu() - before) / calls);
      perRound[i].rate.push(callsPerSec);
      perRound[i].rtt.push((await sequential(session.call, SEQUENTIAL)).mean * 1000);
    }
  }
  for (const session of sessions) await session.close();
  const result: Record<string, number> = {};
  VARIANTS.forEach((variant, i) => {
    result[`${variant.name}.rate`] = median(perRound[i].rate);
    result[`${variant.name}.cpu`] = median(perRound[i].cpu);
    result[`${variant.name}.rtt`] = median(perRound[i].rtt);
    // Per-round ratios (taken side by side in one round) hold better than the medians'.
    if (variant.client === "ours") {
      const raw = VARIANTS.findIndex((v) => v.client === "raw" && v.session === variant.session);
      result[`${variant.session}.ratio`] = median(
        perRound[i].rate.map((rate, r) => rate / perRound[raw].rate[r]),
      );
    }
  });
  emitResult(result);
  exit(0);
}

async function driver(): Promise<void> {
  flags.set("server", "minimal");
  const setup = await startDriver(
    flags,
    "bench/floor",
    (mode) =>
      `${mode} mode, ${IN_FLIGHT} in flight, ours and raw with the server in its own session and in ours`,
  );
  const script = decodeURIComponent(new URL(import.meta.url).pathname);
  const args = ["--worker", "--mode", setup.mode];
  for (const name of ["calls", "rounds"]) {
    if (flags.has(name)) args.push(`--${name}`, flags.get(name)!);
  }
  const rows: Row[] = [];
  for (let run = 0; run < setup.runs; run++) {
    const t = performance.now();
    const result = await runWorker(runtimeArgv(script, args), 900_000);
    rows.push({ run, ...result });
    const note = "error" in result ? `ERROR ${result.error}` : "ok";
    console.error(
      `  run ${run + 1}/${setup.runs}: ${note} (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );
  }
  const m = (metric: string) => median(pick(rows, {}, metric));
  console.log(`\n== stdio floor, minimal server, ${runtime} — medians of ${setup.runs} run(s)`);
  printTable(
    ["contestant", "server's session", "calls/s @32", "CPU µs/call", "round trip µs"],
    VARIANTS.map((v) => [
      v.client,
      v.session === "own" ? "its own (setsid)" : "the client's",
      fmt(m(`${v.name}.rate`), 0),
      fmt(m(`${v.name}.cpu`), 1),
      fmt(m(`${v.name}.rtt`), 0),
    ]),
  );
  for (const e of rows.filter((r) => "error" in r)) {
    console.log(`  ! run ${Number(e.run) + 1}: ${e.error}`);
  }
  console.log("\n  goals (median over runs of the per-round ratios):");
  console.log(goalLine(
    "calls/s @32, ours / raw, both servers in their own session",
    m("own.ratio"),
    (v) => v >= 0.95,
    "≥ 0.95×",
  ));
  console.log("  context:");
  printContext("calls/s @32, ours / raw, both servers in the client's session", m("same.ratio"));
  printContext("CPU per call, ours / raw (own session)", m("ours-own.cpu") / m("raw-own.cpu"));
  for (const client of ["raw", "ours"]) {
    printContext(
      `calls/s @32, ${client}: server in its own session / in the client's`,
      median(
        rows.filter((r) => !("error" in r)).map((r) =>
          Number(r[`${client}-own.rate`]) / Number(r[`${client}-same.rate`])
        ),
      ),
    );
  }
  await finishDriver(flags, setup, rows);
}

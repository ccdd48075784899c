/**
 * bench/soak: 100 000 `tools/call`s with 32 in flight through one client of ours, over stdio
 * and over Streamable HTTP (the minimal server), checking that nothing accumulates: the
 * resident set after warm-up, at 10 000 and at 100 000 calls (each after forced
 * collections), the client's bookkeeping back to empty (through the census in
 * `transports/census.ts`), and no growth of `abort` listeners (`_listeners.ts`) or of open
 * file descriptors (`/proc/<pid>/fd`).
 *
 *   node bench/run.mjs soak [--runtime deno|bun] [--calls 100000]       (npm run soak)
 *
 *   node bench/run.mjs soak --runtime deno --transport=stdio --calls 300000
 *
 * One worker process per (transport, client): ours, and the raw floor of `_stdio_clients.ts`
 * / `_http_clients.ts` in the same run. A runtime's own resident set can drift: Deno's grows
 * by about 60 MB over its first 100 000 calls over stdio even under the raw loop (its JS heap
 * stays flat) and then levels off, so the RSS check is on what ours grows beyond the floor's
 * growth (see bench/README.md); the readings every 10 000 calls are printed. The warm-up is
 * 20 000 calls (`--warmup`). Exits with 1 when a check fails.
 *
 * @module
 */

import { installListenerCounter, snapshot } from "./_listeners.ts";
import {
  concurrent,
  emitResult,
  exit,
  fmt,
  goalLine,
  numberFlag,
  parseFlags,
  printTable,
  type Row,
  runtime,
  runtimeArgv,
  runWorker,
  scriptArgs,
} from "./_lib.ts";
import { finishDriver, printContext, startDriver } from "./_driver.ts";
import { type RunningServer, startServer } from "./_http_servers.ts";
import { heapUsed, openFds, settle } from "./_memory.ts";
import { connectHttp } from "./_http_clients.ts";
import { type ClientName, connectStdio, type Mode, serverCommand } from "./_stdio_clients.ts";

const TRANSPORTS = ["stdio", "http"] as const;
type TransportName = typeof TRANSPORTS[number];
const MiB = 2 ** 20;
/** Calls between two readings of the resident set. */
const STEP = 10_000;
const flags = parseFlags(scriptArgs());

if (flags.has("worker")) await worker();
else await driver();

async function worker(): Promise<void> {
  installListenerCounter();
  const { watchCensus, census } = await import("../transports/census.ts");
  watchCensus();
  const client = flags.get("client") as ClientName;
  const transport = flags.get("transport") as TransportName;
  const mode = (flags.get("mode") ?? "auto") as Mode;
  const calls = numberFlag(flags, "calls", 100_000);
  const warmup = numberFlag(flags, "warmup", 20_000);
  const inFlight = numberFlag(flags, "inflight", 32);
  const session = transport === "stdio"
    ? await connectStdio(client, serverCommand("minimal"), mode)
    : await connectHttp(client, flags.get("url")!, mode);
  const started = performance.now();
  await concurrent(session.call, warmup, inFlight);
  const reading = async () => ({ rss: await settle(), heap: heapUsed() });
  const warm = { ...await reading(), fds: await openFds(), listeners: (await snapshot()).live };
  // Readings every 10 000 calls: the RSS curve shows whether a drift levels off.
  const curve: number[] = [];
  let at10k: { rss: number; heap: number } = warm;
  let atEnd: { rss: number; heap: number } = warm;
  for (let done = 0; done < calls;) {
    const step = Math.min(STEP, calls - done);
    await concurrent(session.call, step, inFlight);
    done += step;
    atEnd = await reading();
    if (done <= STEP) at10k = atEnd;
    curve.push(atEnd.rss / MiB);
  }
  const fds = await openFds();
  const listeners = (await snapshot()).live;
  const held = census();
  const elapsed = (performance.now() - started) / 1000;
  await session.close();
  const drift = (value: number, from: number) => value / from - 1;
  emitResult({
    client,
    transport,
    era: session.era,
    calls,
    warmMB: warm.rss / MiB,
    at10kMB: at10k.rss / MiB,
    atEndMB: atEnd.rss / MiB,
    drift10k: drift(at10k.rss, warm.rss),
    driftEnd: drift(atEnd.rss, warm.rss),
    heapDrift: Math.max(drift(at10k.heap, warm.heap), drift(atEnd.heap, warm.heap)),
    fdGrowth: fds - warm.fds,
    listenerGrowth: listeners - warm.listeners,
    held: Object.values(held).reduce((a, b) => a + b, 0),
    census: held,
    callsPerSec: (calls + warmup) / elapsed,
    curveMB: curve,
  });
  exit(0);
}

async function driver(): Promise<void> {
  flags.set("server", "minimal"); // the only server this bench uses
  const setup = await startDriver(
    flags,
    "bench/soak",
    (mode) => `${mode} mode, ${numberFlag(flags, "calls", 100_000)} calls with 32 in flight`,
  );
  const script = decodeURIComponent(new URL(import.meta.url).pathname);
  const deno = ["--v8-flags=--expose-gc"];
  const rows: Row[] = [];
  const transports = (flags.get("transport")?.split(",") ?? TRANSPORTS) as TransportName[];
  for (const transport of transports) {
    // The raw floor first: the runtime's own drift over the same calls, for context.
    for (const client of ["raw", "ours"] as const) {
      const t = performance.now();
      let running: RunningServer | undefined;
      let result: Record<string, unknown>;
      try {
        if (transport === "http") running = await startServer("minimal");
        const args = ["--worker", "--client", client, "--transport", transport];
        args.push("--mode", setup.mode, "--url", running?.url ?? "");
        for (const name of ["calls", "warmup"]) {
          if (flags.has(name)) args.push(`--${name}`, flags.get(name)!);
        }
        result = await runWorker(runtimeArgv(script, args, deno), 900_000);
      } catch (error) {
        result = { error: String(error) };
      } finally {
        await running?.stop();
      }
      rows.push({ ...result, client, transport });
      const note = "error" in result ? `ERROR ${result.error}` : "ok";
      const took = ((performance.now() - t) / 1000).toFixed(1);
      console.error(`  ${transport} ${client}: ${note} (${took} s)`);
    }
  }
  const failed = report(rows);
  await finishDriver(flags, setup, rows);
  if (failed) exit(1);
}

/**
 * What `ours` grew after warm-up beyond what the raw floor grew in the same run, at 10 000
 * calls and at the end (the larger), over ours' warm RSS. Growth is in MB from each one's own
 * warm reading; a fall counts as none. Without a floor, ours' own largest growth.
 */
function excess(ours: Row, raw: Row | undefined): number {
  const grew = (r: Row, at: "at10kMB" | "atEndMB") => Math.max(0, Number(r[at]) - Number(r.warmMB));
  const over = (at: "at10kMB" | "atEndMB") => grew(ours, at) - (raw ? grew(raw, at) : 0);
  return Math.max(over("at10kMB"), over("atEndMB"), 0) / Number(ours.warmMB);
}

/** Prints the table and the checks (ours only; the raw floor is context); whether any failed. */
function report(rows: Row[]): boolean {
  console.log(`\n== soak, ${runtime} (RSS and JS heap after forced collections)`);
  const pct = (v: unknown) => typeof v === "number" ? `${(v * 100).toFixed(1)} %` : "–";
  printTable(
    [
      "transport",
      "client",
      "era",
      "calls",
      "RSS warm MB",
      "at 10k MB",
      "at end MB",
      "drift 10k",
      "drift end",
      "heap drift",
      "fds +",
      "listeners +",
      "held",
      "calls/s",
    ],
    rows.map((r) => [
      String(r.transport),
      String(r.client),
      String(r.era ?? "–"),
      fmt(r.calls, 0),
      fmt(r.warmMB, 1),
      fmt(r.at10kMB, 1),
      fmt(r.atEndMB, 1),
      pct(r.drift10k),
      pct(r.driftEnd),
      pct(r.heapDrift),
      fmt(r.fdGrowth, 0),
      fmt(r.listenerGrowth, 0),
      r.client === "ours" ? fmt(r.held, 0) : "–",
      fmt(r.callsPerSec, 0),
    ]),
  );
  for (const r of rows.filter((r) => Array.isArray(r.curveMB))) {
    const curve = (r.curveMB as number[]).map((v) => v.toFixed(0)).join(" ");
    console.log(`  ${r.transport} ${r.client}: RSS MB every ${STEP} calls: ${curve}`);
  }
  let failed = false;
  const check = (label: string, value: unknown, pass: (v: number) => boolean, goal: string) => {
    const v = typeof value === "number" ? value : NaN;
    if (!Number.isFinite(v) || !pass(v)) failed = true;
    console.log(goalLine(label, v, pass, goal, goal.endsWith("%") ? " %" : ""));
  };
  const largest = (r: Row) => Math.max(Math.abs(Number(r.drift10k)), Math.abs(Number(r.driftEnd)));
  console.log("\n  checks (ours):");
  for (const r of rows) {
    if ("error" in r) {
      failed = true;
      console.log(`  ! ${r.transport} ${r.client}: ${r.error}`);
    }
    if (r.client !== "ours" || "error" in r) continue;
    const t = r.transport;
    const raw = rows.find((f) => f.client === "raw" && f.transport === t && !("error" in f));
    check(`${t}: RSS growth over the raw floor's`, excess(r, raw) * 100, (v) => v <= 10, "≤ 10 %");
    check(`${t}: JS heap drift after warm-up`, Number(r.heapDrift) * 100, (v) => v <= 10, "≤ 10 %");
    check(`${t}: held after the run`, r.held, (v) => v === 0, "0");
    check(`${t}: file descriptor growth`, r.fdGrowth, (v) => v <= 0, "0");
    check(`${t}: abort-listener growth`, r.listenerGrowth, (v) => v <= 0, "0");
    console.log(`          ${JSON.stringify(r.census)}`);
  }
  console.log("  context (raw floor):");
  for (const r of rows.filter((r) => r.client === "raw" && !("error" in r))) {
    printContext(`${r.transport}: raw RSS drift after warm-up (largest)`, largest(r) * 100, " %");
  }
  for (const r of rows.filter((r) => r.client === "ours" && !("error" in r))) {
    printContext(`${r.transport}: ours RSS drift after warm-up (largest)`, largest(r) * 100, " %");
  }
  return failed;
}

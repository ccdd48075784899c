/**
 * bench/stdio: our client vs `@modelcontextprotocol/client` 2.x vs a raw NDJSON loop, over
 * stdio, against the same server and runtime, in one run.
 *
 *   node bench/run.mjs stdio [--runtime deno|bun] [--runs 3]    (the usual way)
 *   deno run -A bench/stdio.ts [--runs 3] [--server minimal|everything|both] [--mode auto|legacy]
 *   bun bench/stdio.ts [same flags]
 *
 * The driver spawns one worker process per (client, server, case) so each client's RSS is
 * its own: case `calls` measures sequential latency (p50/p99), calls/s with 32 in flight
 * and RSS after the run; case `connect` measures the median connect time (spawn to ready)
 * in `auto` and in `legacy` mode; case `latency` runs all three clients (each with its own
 * server process) in one worker, taking turns with rounds of sequential calls (the p50 the
 * goal reads). Each run repeats every case; the report shows medians
 * over runs and the per-run ratios' medians against the goals of issue 3.
 *
 * @module
 */

import {
  emitResult,
  exit,
  fmt,
  goalLine,
  median,
  numberFlag,
  parseFlags,
  printTable,
  ratio,
  type Row,
  runtime,
  runtimeArgv,
  runWorker,
  scriptArgs,
} from "./_lib.ts";
import {
  checkEcho,
  finishDriver,
  LEAD_COLUMNS,
  leadCells,
  measureCalls,
  printContext,
  printErrors,
  runMatrix,
  startDriver,
} from "./_driver.ts";
import { measureTurns, runTurns } from "./_turns.ts";
import {
  type ClientName,
  connectStdio,
  type Mode,
  serverCommand,
  type ServerName,
} from "./_stdio_clients.ts";

const CLIENTS: ClientName[] = ["raw", "ours", "official"];
const flags = parseFlags(scriptArgs());

if (flags.has("worker")) await worker();
else await driver();

// ---- worker: one client, one server, one case --------------------------------------------

async function worker(): Promise<void> {
  const client = flags.get("client") as ClientName;
  const serverName = flags.get("server") as ServerName;
  const kase = flags.get("case");
  const server = serverCommand(serverName, flags.get("server-runtime"));
  const base = { client, server: serverName, case: kase };
  if (kase === "calls") {
    const mode = (flags.get("mode") ?? "auto") as Mode;
    const seqN = numberFlag(flags, "seq", 2000);
    const parN = numberFlag(flags, "par", 20000);
    const inFlight = numberFlag(flags, "inflight", 32);
    const session = await connectStdio(client, server, mode);
    await checkEcho(session);
    await measureCalls(session, { seqN, parN, inFlight, warmSeq: 500, warmPar: 4000 }, base);
  } else if (kase === "latency") {
    const mode = (flags.get("mode") ?? "auto") as Mode;
    const connect = (name: ClientName) => connectStdio(name, server, mode);
    await measureTurns(flags, CLIENTS, connect, { seq: 500, par: 4000 });
  } else if (kase === "connect") {
    const n = numberFlag(flags, "connects", 10);
    const times: Record<Mode, number[]> = { auto: [], legacy: [] };
    const eras: Record<Mode, string> = { auto: "", legacy: "" };
    const once = async (mode: Mode) => {
      const start = performance.now();
      const session = await connectStdio(client, server, mode);
      const elapsed = performance.now() - start;
      eras[mode] = session.era;
      await session.close();
      return elapsed;
    };
    await once("auto");
    await once("legacy");
    for (let i = 0; i < n; i++) {
      const order: Mode[] = i % 2 === 0 ? ["auto", "legacy"] : ["legacy", "auto"];
      for (const mode of order) times[mode].push(await once(mode));
    }
    emitResult({
      ...base,
      autoEra: eras.auto,
      connectAutoMs: median(times.auto),
      connectLegacyMs: median(times.legacy),
    });
  } else {
    throw new Error(`unknown --case ${kase}`);
  }
  exit(0);
}

// ---- driver ------------------------------------------------------------------------------

async function driver(): Promise<void> {
  const setup = await startDriver(
    flags,
    "bench/stdio",
    (mode) => `calls in ${mode} mode, 32 in flight`,
  );
  const { runs, servers, mode, quick } = setup;
  const sizes = (server: ServerName) => ({
    seq: flags.get("seq") ?? (quick ? "500" : "2000"),
    par: flags.get("par") ?? (quick ? "4000" : server === "minimal" ? "20000" : "10000"),
    connects: flags.get("connects") ?? (quick ? "4" : server === "minimal" ? "10" : "4"),
  });
  const script = decodeURIComponent(new URL(import.meta.url).pathname);
  const results = await runMatrix(
    setup,
    CLIENTS,
    () => ["calls", "connect"],
    (client, server, kase) => {
      const size = sizes(server);
      const args = [
        "--worker",
        "--client",
        client,
        "--server",
        server,
        "--case",
        kase,
        "--mode",
        mode,
        "--seq",
        size.seq,
        "--par",
        size.par,
        "--connects",
        size.connects,
      ];
      return runWorker(runtimeArgv(script, args), 180_000);
    },
  );
  // The latency case: one worker per run and server, every client (each with its own server
  // process) inside it.
  results.push(
    ...await runTurns(setup, CLIENTS, (server) => {
      const args = ["--worker", "--server", server, "--case", "latency", "--mode", mode];
      args.push("--rounds", flags.get("rounds") ?? (quick ? "10" : "40"));
      args.push("--block", flags.get("block") ?? (quick ? "30" : "50"));
      return runWorker(runtimeArgv(script, args), 300_000);
    }),
  );
  report(results, servers, runs);
  await finishDriver(flags, setup, results);
}

function report(rows: Row[], servers: ServerName[], runs: number): void {
  for (const server of servers) {
    const label = server === "minimal"
      ? "minimal server (answers at once)"
      : "server-everything (node)";
    console.log(`\n== stdio, ${runtime}, ${label} — medians of ${runs} run(s)`);
    const table = CLIENTS.map((client) => {
      const { cells, m } = leadCells(rows, server, client, "raw NDJSON");
      const auto = m("connect", "connectAutoMs");
      const legacy = m("connect", "connectLegacyMs");
      return [
        ...cells,
        fmt(auto, 1),
        fmt(legacy, 1),
        fmt(ratio(rows, runs, [{ client, server, case: "connect" }, "connectAutoMs"], [
          { client, server, case: "connect" },
          "connectLegacyMs",
        ])),
        fmt(m("calls", "rssMB"), 1),
      ];
    });
    printTable(
      [
        ...LEAD_COLUMNS,
        "connect auto ms",
        "connect legacy ms",
        "auto/legacy",
        "RSS MB",
      ],
      table,
    );
    printErrors(rows, server);
    const calls = (client: string): Row => ({ client, server, case: "calls" });
    const turns = (client: string): Row => ({ client, server, case: "latency" });
    const conn = { client: "ours", server, case: "connect" };
    console.log("\n  goals (median of per-run ratios):");
    console.log(goalLine(
      "calls/s @32: ours / official",
      ratio(rows, runs, [calls("ours"), "callsPerSec"], [calls("official"), "callsPerSec"]),
      (v) => v >= 1.5,
      "≥ 1.5×",
    ));
    console.log(goalLine(
      "sequential p50 (taking turns): ours / raw",
      ratio(rows, runs, [turns("ours"), "seqP50"], [turns("raw"), "seqP50"]),
      (v) => v <= 1.2,
      "≤ 1.2×",
    ));
    console.log(goalLine(
      "connect: ours auto / ours legacy",
      ratio(rows, runs, [conn, "connectAutoMs"], [conn, "connectLegacyMs"]),
      (v) => v <= 1.05,
      "≤ 1.05×",
    ));
    console.log("  context:");
    const context = printContext;
    const off = { client: "official", server, case: "connect" };
    context(
      "calls/s @32: ours / raw",
      ratio(rows, runs, [calls("ours"), "callsPerSec"], [calls("raw"), "callsPerSec"]),
    );
    context(
      "sequential p50 (taking turns): official / raw",
      ratio(rows, runs, [turns("official"), "seqP50"], [turns("raw"), "seqP50"]),
    );
    context(
      "sequential p50 (own process each): ours / raw",
      ratio(rows, runs, [calls("ours"), "seqP50"], [calls("raw"), "seqP50"]),
    );
    context(
      "RSS: ours / official",
      ratio(rows, runs, [calls("ours"), "rssMB"], [calls("official"), "rssMB"]),
    );
    context(
      "connect auto: ours / official auto",
      ratio(rows, runs, [conn, "connectAutoMs"], [off, "connectAutoMs"]),
    );
    context(
      "connect auto/legacy: official",
      ratio(rows, runs, [off, "connectAutoMs"], [off, "connectLegacyMs"]),
    );
  }
}

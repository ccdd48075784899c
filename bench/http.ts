/**
 * bench/http: our client vs `@modelcontextprotocol/client` 2.x vs raw `fetch` (the floor),
 * over Streamable HTTP, against the same server and runtime, in one run.
 *
 *   node bench/run.mjs http [--runtime deno|bun] [--runs 3]     (the usual way)
 *   deno run -A bench/http.ts [--runs 3] [--server minimal|everything|both] [--mode auto|legacy]
 *   bun bench/http.ts [same flags]
 *
 * The driver starts a fresh server on 127.0.0.1 for every worker process (one per client,
 * server and case): the minimal server (`_servers/http_server.mjs`, same runtime, JSON
 * responses) or server-everything in `streamableHttp` mode (Node, SSE responses, bound to
 * 127.0.0.1 by `tests/interop/_loopback_preload.mjs`). Case `calls`: sequential p50/p99,
 * calls/s with 32 in flight, RSS after the run. Case `latency`: all three clients in one
 * worker against one server, taking turns with rounds of sequential calls (the p50 the goal
 * reads). Case `listeners`: `abort` listeners live
 * on AbortSignals before and after 10 000 calls (see `_listeners.ts`; first run only, it
 * is a count). The report shows medians over runs and the per-run comparisons' medians
 * against the goals of issue 4.
 *
 * @module
 */

import { connectHttp } from "./_http_clients.ts";
import { type RunningServer, startServer } from "./_http_servers.ts";
import { installListenerCounter, snapshot } from "./_listeners.ts";
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
  measureTurns,
  printContext,
  printErrors,
  runMatrix,
  runTurns,
  startDriver,
} from "./_driver.ts";
import type { ClientName, Mode, ServerName } from "./_stdio_clients.ts";

const flags = parseFlags(scriptArgs());
// --link: also our Streamable HTTP transport alone, driven like the raw floor (its RSS shows
// what the client core adds beside the transport).
const CLIENTS: ClientName[] = [
  "raw",
  "ours",
  "official",
  ...(flags.has("link") ? ["link" as const] : []),
];
const here = (path: string) => decodeURIComponent(new URL(path, import.meta.url).pathname);

if (flags.has("worker")) await worker();
else await driver();

// ---- worker: one client, one server, one case --------------------------------------------

async function worker(): Promise<void> {
  const client = flags.get("client") as ClientName;
  const url = flags.get("url")!;
  const kase = flags.get("case");
  const mode = (flags.get("mode") ?? "auto") as Mode;
  const inFlight = numberFlag(flags, "inflight", 32);
  if (kase === "latency") {
    // All three against one server, taking turns.
    const connect = (name: ClientName) => connectHttp(name, url, mode);
    await measureTurns(flags, CLIENTS, connect, { seq: 300, par: 1000 });
    exit(0);
  }
  const base = { client, server: flags.get("server"), case: kase };
  if (kase === "listeners") installListenerCounter();
  const session = await connectHttp(client, url, mode);
  await checkEcho(session);
  if (kase === "calls") {
    const seqN = numberFlag(flags, "seq", 2000);
    const parN = numberFlag(flags, "par", 10000);
    await measureCalls(session, { seqN, parN, inFlight, warmSeq: 300, warmPar: 2000 }, base);
  } else if (kase === "listeners") {
    const n = numberFlag(flags, "calls", 10000);
    await concurrent(session.call, 100, inFlight);
    const before = await snapshot();
    await concurrent(session.call, n, inFlight);
    const after = await snapshot();
    await session.close();
    emitResult({
      ...base,
      era: session.era,
      listenersBefore: before.live,
      listenersAfter: after.live,
      listenerGrowth: after.live - before.live,
      listenerCalls: n,
      maxPerSignal: after.maxPerSignal,
      listenerAdds: after.adds - before.adds,
      listenerRemoves: after.removes - before.removes,
      collected: after.collected ? 1 : 0,
      fetchesPerSignal: after.maxFetchesPerSignal,
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
    "bench/http",
    (mode) => `${mode} mode, 32 in flight`,
  );
  const { runs, servers, mode, quick } = setup;
  const sizes = (server: ServerName) => ({
    seq: flags.get("seq") ?? (quick ? "300" : server === "minimal" ? "2000" : "500"),
    par: flags.get("par") ?? (quick ? "2000" : server === "minimal" ? "10000" : "2000"),
    // server-everything answers ~1k calls/s: 2 000 calls show a shared signal just as well.
    calls: flags.get("calls") ?? (quick ? "2000" : server === "minimal" ? "10000" : "2000"),
  });
  const script = here("./http.ts");
  // The listener census is a count, not a timing: the first run is enough.
  const cases = (run: number) => run === 0 ? ["calls", "listeners"] : ["calls"];
  const results = await runMatrix(setup, CLIENTS, cases, async (client, server, kase) => {
    const size = sizes(server);
    let running: RunningServer | undefined;
    try {
      running = await startServer(server);
      const args = [
        "--worker",
        "--client",
        client,
        "--server",
        server,
        "--url",
        running.url,
        "--case",
        kase,
        "--mode",
        mode,
        "--seq",
        size.seq,
        "--par",
        size.par,
        "--calls",
        size.calls,
      ];
      // Collections for the census, and for the calls' RSS after one.
      const deno = ["--v8-flags=--expose-gc"];
      return await runWorker(runtimeArgv(script, args, deno), 180_000);
    } catch (error) {
      return { error: String(error) };
    } finally {
      await running?.stop();
    }
  });
  // The latency case: one worker per run and server, every client inside it.
  results.push(
    ...await runTurns(setup, CLIENTS, async (server) => {
      const [rounds, block] = quick
        ? ["10", "30"]
        : server === "minimal"
        ? ["40", "50"]
        : ["20", "25"];
      const running = await startServer(server);
      try {
        const args = ["--worker", "--case", "latency", "--url", running.url, "--mode", mode];
        if (CLIENTS.includes("link")) args.push("--link");
        args.push("--rounds", flags.get("rounds") ?? rounds);
        args.push("--block", flags.get("block") ?? block);
        return await runWorker(runtimeArgv(script, args), 300_000);
      } finally {
        await running.stop();
      }
    }),
  );
  report(results, servers, runs);
  await finishDriver(flags, setup, results);
}

function report(rows: Row[], servers: ServerName[], runs: number): void {
  for (const server of servers) {
    const label = server === "minimal"
      ? "minimal server (JSON responses)"
      : "server-everything (node, SSE responses)";
    console.log(`\n== Streamable HTTP, ${runtime}, ${label} — medians of ${runs} run(s)`);
    const table = CLIENTS.map((client) => {
      const { cells, m } = leadCells(rows, server, client, "raw fetch");
      return [
        ...cells,
        fmt(m("calls", "rssMB"), 1),
        fmt(m("calls", "rssGcMB"), 1),
        fmt(m("listeners", "listenersBefore"), 0),
        fmt(m("listeners", "listenersAfter"), 0),
        fmt(m("listeners", "maxPerSignal"), 0),
        fmt(m("listeners", "listenerAdds"), 0),
        fmt(m("listeners", "fetchesPerSignal"), 0),
      ];
    });
    printTable(
      [
        ...LEAD_COLUMNS,
        "RSS MB",
        "after GC",
        "listeners before",
        "after N calls",
        "max/signal",
        "adds",
        "fetches/signal",
      ],
      table,
    );
    printErrors(rows, server);
    const calls = (client: string): Row => ({ client, server, case: "calls" });
    const turns = (client: string): Row => ({ client, server, case: "latency" });
    const lis = (client: string): Row => ({ client, server, case: "listeners" });
    const callsLabel = fmt(median(pick(rows, { server, case: "listeners" }, "listenerCalls")), 0);
    console.log("\n  goals (median of per-run comparisons):");
    console.log(goalLine(
      "sequential p50 (taking turns): ours − raw fetch",
      ratio(rows, runs, [turns("ours"), "seqP50"], [turns("raw"), "seqP50"], (x, y) => x - y),
      (v) => v <= 0.1,
      "≤ 0.1 ms",
      " ms",
    ));
    console.log(goalLine(
      "calls/s @32: ours / official",
      ratio(rows, runs, [calls("ours"), "callsPerSec"], [calls("official"), "callsPerSec"]),
      (v) => v >= 1,
      "≥ 1×",
    ));
    console.log(goalLine(
      "RSS: ours / official",
      ratio(rows, runs, [calls("ours"), "rssMB"], [calls("official"), "rssMB"]),
      (v) => v <= 0.6,
      "≤ 0.6×",
    ));
    console.log(goalLine(
      `abort-listener growth over ${callsLabel} calls: ours`,
      median(pick(rows, lis("ours"), "listenerGrowth")),
      (v) => v <= 0,
      "0",
      "",
    ));
    console.log("  context:");
    const context = printContext;
    context(
      `abort-listener growth over ${callsLabel} calls: official`,
      median(pick(rows, lis("official"), "listenerGrowth")),
      "",
    );
    context(
      "sequential p50 (taking turns): official − raw fetch",
      ratio(rows, runs, [turns("official"), "seqP50"], [turns("raw"), "seqP50"], (x, y) => x - y),
      " ms",
    );
    context(
      "sequential p50 (own process each): ours − raw fetch",
      ratio(rows, runs, [calls("ours"), "seqP50"], [calls("raw"), "seqP50"], (x, y) => x - y),
      " ms",
    );
    context(
      "calls/s @32: ours / raw fetch",
      ratio(rows, runs, [calls("ours"), "callsPerSec"], [calls("raw"), "callsPerSec"]),
    );
    context(
      "RSS: ours / raw fetch",
      ratio(rows, runs, [calls("ours"), "rssMB"], [calls("raw"), "rssMB"]),
    );
    // Whole-process RSS includes the runtime and its fetch, which no client goes below.
    context(
      "RSS: raw fetch / official (the floor of the goal above)",
      ratio(rows, runs, [calls("raw"), "rssMB"], [calls("official"), "rssMB"]),
    );
    context("RSS above raw fetch: ours / official", overFloor(rows, runs, server, "rssMB"));
    context(
      "RSS after a collection, above raw fetch: ours / official",
      overFloor(rows, runs, server, "rssGcMB"),
    );
    if (CLIENTS.includes("link")) {
      context(
        "RSS above raw fetch: our transport alone / official",
        overFloor(rows, runs, server, "rssMB", "link"),
      );
      context(
        "RSS after a collection, above raw fetch: our transport alone / official",
        overFloor(rows, runs, server, "rssGcMB", "link"),
      );
    }
  }
}

/** Per run, what ours adds over the raw floor against what the official client adds; the median. */
function overFloor(
  rows: Row[],
  runs: number,
  server: ServerName,
  metric: string,
  mine: ClientName = "ours",
): number {
  const per: number[] = [];
  for (let run = 0; run < runs; run++) {
    const [ours, official, raw] = ([mine, "official", "raw"] as const).map((client) =>
      pick(rows, { client, server, case: "calls", run }, metric)[0]
    );
    if (ours !== undefined && official !== undefined && raw !== undefined && official > raw) {
      per.push((ours - raw) / (official - raw));
    }
  }
  return median(per);
}

/**
 * The driver side both benchmarks share: the flags every driver reads, the run × server ×
 * case × client matrix (the client order rotates each run so none always goes first), the
 * report's error and context lines, and the closing lines (total time, load, JSON).
 *
 * @module
 */

import { numberFlag } from "./_flags.ts";
import { contextLine, fmt } from "./_report.ts";
import { loadAverage, runtime } from "./_runtime.ts";
import { median, pick, type Row } from "./_stats.ts";
import type { ClientName, ServerName } from "./_stdio_clients.ts";

// The worker side of the shared cases, re-exported for the benchmarks that import it here.
export { type CallSession, checkEcho, measureCalls, measureTurns } from "./_measure.ts";

/** What every driver reads from its flags, and when it started. */
export interface DriverSetup {
  /** How many runs. */
  runs: number;
  /** The servers to measure against. */
  servers: ServerName[];
  /** The era mode of the calls (`auto` or `legacy`). */
  mode: string;
  /** Smaller sizes (`--quick`). */
  quick: boolean;
  /** `performance.now()` at the start. */
  started: number;
}

/**
 * Reads the common flags and prints the opening lines.
 *
 * @param flags The parsed flags.
 * @param title E.g. `bench/http`.
 * @param what What the first line says after the servers (e.g. `auto mode, 32 in flight`).
 */
export async function startDriver(
  flags: Map<string, string>,
  title: string,
  what: (mode: string) => string,
): Promise<DriverSetup> {
  const runs = numberFlag(flags, "runs", 1);
  const which = flags.get("server") ?? "both";
  const servers: ServerName[] = which === "both"
    ? ["minimal", "everything"]
    : [which as ServerName];
  const mode = flags.get("mode") ?? "auto";
  const quick = flags.has("quick");
  console.log(
    `${title} under ${runtime}: ${runs} run(s), servers ${servers.join(", ")}, ${what(mode)}`,
  );
  console.log(`load average at start: ${await loadAverage()}`);
  return { runs, servers, mode, quick, started: performance.now() };
}

/**
 * Runs every (run, server, case, client) worker in order, logging each on stderr.
 *
 * @param setup The runs and servers.
 * @param clients The clients, in their first run's order.
 * @param cases The cases of a run (counted from 0).
 * @param runCase Runs one worker and returns its result.
 * @returns The results, tagged with run, client, server and case.
 */
export async function runMatrix(
  setup: DriverSetup,
  clients: ClientName[],
  cases: (run: number) => string[],
  runCase: (
    client: ClientName,
    server: ServerName,
    kase: string,
  ) => Promise<Record<string, unknown>>,
): Promise<Row[]> {
  const { runs, servers } = setup;
  const results: Row[] = [];
  for (let run = 0; run < runs; run++) {
    for (const server of servers) {
      for (const kase of cases(run)) {
        const order = clients.map((_, i) => clients[(i + run) % clients.length]);
        for (const client of order) {
          const t = performance.now();
          const result = await runCase(client, server, kase);
          results.push({ run, client, server, case: kase, ...result });
          const note = "error" in result ? `ERROR ${result.error}` : "ok";
          console.error(
            `  run ${run + 1}/${runs} ${server} ${kase} ${client}: ${note} ` +
              `(${((performance.now() - t) / 1000).toFixed(1)} s)`,
          );
        }
      }
    }
  }
  return results;
}

/**
 * Prints the closing lines: total time, load average, and the results as JSON with `--json`.
 *
 * @param flags The parsed flags.
 * @param setup When the driver started.
 * @param results The results.
 */
export async function finishDriver(
  flags: Map<string, string>,
  setup: DriverSetup,
  results: Row[],
): Promise<void> {
  console.log(
    `\n(total ${((performance.now() - setup.started) / 1000).toFixed(0)} s; ` +
      `load average at end: ${await loadAverage()})`,
  );
  if (flags.has("json")) console.log("BENCH_JSON " + JSON.stringify({ runtime, results }));
}

/** The columns every report's table starts with (see {@linkcode leadCells}). */
export const LEAD_COLUMNS = ["client", "era", "p50 ms", "p99 ms", "own-process p50", "calls/s @32"];

/**
 * The start of a client's row (name, era, the taking-turns p50/p99, the own-process p50 and
 * calls/s), and the median of any other metric of that client and server.
 *
 * @param raw How the raw floor is named in this report.
 */
export function leadCells(
  rows: Row[],
  server: ServerName,
  client: ClientName,
  raw: string,
): { cells: string[]; m(kase: string, metric: string): number } {
  const m = (kase: string, metric: string) =>
    median(pick(rows, { client, server, case: kase }, metric));
  const era = rows.find((r) => r.client === client && r.server === server && r.case === "calls")
    ?.era;
  const cells = [
    client === "official"
      ? "official v2"
      : client === "raw"
      ? raw
      : client === "link"
      ? "our transport alone"
      : "ours",
    String(era ?? "–"),
    fmt(m("latency", "seqP50"), 3),
    fmt(m("latency", "seqP99"), 3),
    fmt(m("calls", "seqP50"), 3),
    fmt(m("calls", "callsPerSec"), 0),
  ];
  return { cells, m };
}

/** Prints the failed workers of `server`. */
export function printErrors(rows: Row[], server: ServerName): void {
  const errors = rows.filter((r) => r.server === server && "error" in r);
  for (const e of errors) {
    console.log(`  ! ${e.client} ${e.case} run ${Number(e.run) + 1}: ${e.error}`);
  }
}

/** Prints a context line (see `contextLine`). */
export function printContext(label: string, value: number, unit = "×"): void {
  console.log(contextLine(label, value, unit));
}

/**
 * Runs one "latency" worker per run and server (`runOne` starts it) and returns a row per
 * client (case `latency`, with `seqP50`/`seqP99`), logging each worker on stderr.
 */
export async function runTurns(
  setup: DriverSetup,
  clients: ClientName[],
  runOne: (server: ServerName) => Promise<Record<string, unknown>>,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (let run = 0; run < setup.runs; run++) {
    for (const server of setup.servers) {
      const t = performance.now();
      let result: Record<string, unknown>;
      try {
        result = await runOne(server);
      } catch (error) {
        result = { error: String(error) };
      }
      const latency = result.latency as Record<string, Record<string, unknown>> | undefined;
      for (const client of clients) {
        const { p50, p99, ...rest } = latency?.[client] ?? { error: result.error ?? "no result" };
        rows.push({ run, client, server, case: "latency", ...rest, seqP50: p50, seqP99: p99 });
      }
      const note = latency === undefined ? `ERROR ${result.error}` : "ok";
      console.error(
        `  run ${run + 1}/${setup.runs} ${server} latency (all clients, taking turns): ${note} ` +
          `(${((performance.now() - t) / 1000).toFixed(1)} s)`,
      );
    }
  }
  return rows;
}

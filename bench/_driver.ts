/**
 * The driver side both benchmarks share: the flags every driver reads, the run × server ×
 * case × client matrix (the client order rotates each run so none always goes first), the
 * report's error and context lines, the closing lines (total time, load, JSON), and the
 * "calls" case (the "latency" case is in `_turns.ts`).
 *
 * @module
 */

import {
  concurrent,
  contextLine,
  emitResult,
  fmt,
  loadAverage,
  median,
  numberFlag,
  pick,
  type Row,
  rss,
  runtime,
  sequential,
} from "./_lib.ts";
import type { ClientName, ServerName } from "./_stdio_clients.ts";

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
    client === "official" ? "official v2" : client === "raw" ? raw : "ours",
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

/** A connected contestant, as the call cases drive it. */
export interface CallSession {
  /** One `tools/call` of `echo`. */
  call(): Promise<unknown>;
  /** Ends the session. */
  close(): Promise<void>;
  /** The era the client settled on. */
  era: string;
}

/** Checks the first echo answer, so a broken contestant never produces figures. */
export async function checkEcho(session: CallSession): Promise<void> {
  const first = await session.call() as { content?: { text?: string }[] };
  if (first?.content?.[0]?.text !== "Echo: hello") {
    throw new Error(`unexpected echo result: ${JSON.stringify(first)}`);
  }
}

/**
 * The "calls" case both benchmarks share: warm up, then sequential p50/p99 over `seqN`
 * calls and calls/s with `inFlight` in flight over `parN`, then RSS; emits one result.
 *
 * The warm-up runs both patterns twice (sequential, concurrent, sequential, concurrent):
 * a JIT re-optimizes a client's code when the call pattern first switches, and a client
 * with more code than the raw loop is still settling right after one switch (its
 * sequential p50 then reads ~1.7× its steady state under Deno). Every contestant gets the
 * same warm-up.
 */
export async function measureCalls(
  session: CallSession,
  sizes: { seqN: number; parN: number; inFlight: number; warmSeq: number; warmPar: number },
  base: Record<string, unknown>,
): Promise<void> {
  const { seqN, parN, inFlight } = sizes;
  for (let round = 0; round < 2; round++) {
    await sequential(session.call, Math.min(sizes.warmSeq, Math.ceil(seqN / 4)));
    await concurrent(session.call, Math.min(sizes.warmPar, Math.ceil(parN / 4)), inFlight);
  }
  const seq = await sequential(session.call, seqN);
  const par = await concurrent(session.call, parN, inFlight);
  const rssMB = rss() / 2 ** 20;
  await session.close();
  emitResult({
    ...base,
    era: session.era,
    seqP50: seq.p50,
    seqP99: seq.p99,
    seqMean: seq.mean,
    callsPerSec: par.callsPerSec,
    rssMB,
  });
}

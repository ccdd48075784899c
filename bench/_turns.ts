/**
 * The "latency" case both benchmarks share: every contestant in one worker, taking turns
 * ({@linkcode measureTurns}), and the driver side that runs one such worker per run and server
 * ({@linkcode runTurns}).
 *
 * @module
 */

import { concurrent, emitResult, numberFlag, quantile, type Row, sequential } from "./_lib.ts";
import { type CallSession, checkEcho, type DriverSetup } from "./_driver.ts";
import type { ClientName, ServerName } from "./_stdio_clients.ts";

/**
 * The "latency" case both benchmarks share: every contestant in one worker, taking turns.
 * After the same warm-up each, `--rounds` rounds give every client `--block` sequential calls
 * in turn (the order rotating each round), so that the machine's load and drift, and a shared
 * server's own warm-up, fall on all of them alike; a process per client cannot give that on
 * two shared cores. Emits `{ latency: { [client]: { p50, p99, era } } }` and closes them all.
 */
export async function measureTurns(
  flags: Map<string, string>,
  clients: ClientName[],
  connect: (client: ClientName) => Promise<CallSession>,
  warm: { seq: number; par: number },
): Promise<void> {
  const rounds = numberFlag(flags, "rounds", 40);
  const block = numberFlag(flags, "block", 50);
  const inFlight = numberFlag(flags, "inflight", 32);
  const sessions = new Map<ClientName, CallSession>();
  for (const client of clients) {
    const session = await connect(client);
    await checkEcho(session);
    sessions.set(client, session);
  }
  for (let round = 0; round < 2; round++) {
    for (const session of sessions.values()) {
      await sequential(session.call, warm.seq);
      await concurrent(session.call, warm.par, inFlight);
    }
  }
  const times = new Map<ClientName, number[]>(clients.map((client) => [client, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < clients.length; i++) {
      const client = clients[(i + round) % clients.length];
      const call = sessions.get(client)!.call;
      const into = times.get(client)!;
      for (let n = 0; n < block; n++) {
        const start = performance.now();
        await call();
        into.push(performance.now() - start);
      }
    }
  }
  const latency: Record<string, { p50: number; p99: number; era: string }> = {};
  for (const [client, samples] of times) {
    const sorted = Float64Array.from(samples).sort();
    latency[client] = {
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      era: sessions.get(client)!.era,
    };
  }
  await Promise.all([...sessions.values()].map((session) => session.close()));
  emitResult({ latency });
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

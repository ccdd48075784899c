/**
 * The worker side of the cases both benchmarks share: a connected contestant's shape, the
 * first-answer check, the "calls" case (sequential latency, concurrent throughput, RSS) and
 * the "latency" case (every contestant in one worker, taking turns).
 *
 * @module
 */

import { numberFlag } from "./_flags.ts";
import { gc, rss } from "./_runtime.ts";
import { quantile } from "./_stats.ts";
import { concurrent, sequential } from "./_timing.ts";
import { emitResult } from "./_worker.ts";
import type { ClientName } from "./_stdio_clients.ts";

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
  // After collections (where the runtime allows one): what the client holds, without the
  // garbage its last calls left (which moves with the moment of the last collection).
  let rssGcMB = NaN;
  if (gc()) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    rssGcMB = rss() / 2 ** 20;
  }
  await session.close();
  emitResult({
    ...base,
    era: session.era,
    seqP50: seq.p50,
    seqP99: seq.p99,
    seqMean: seq.mean,
    callsPerSec: par.callsPerSec,
    rssMB,
    rssGcMB,
  });
}

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

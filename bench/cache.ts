// The cache benchmark: what a cache hit costs, from each store, beside a server round trip.
//
//   cachedTools()            the in-process copy (synchronous)
//   listAllTools() memory    a fresh listing from the memory store (the default)
//   listAllTools() Deno KV   a fresh listing from a Deno KV file (Deno only: Bun has no KV)
//   listAllTools() Redis     a fresh listing from a real redis-server on 127.0.0.1
//   round trip               listAllTools({ refresh: true }) against the in-process server,
//                            and over Streamable HTTP to the fixture on 127.0.0.1
//
// Goal: cachedTools() and a memory-store listAllTools() at most 5 µs median each.
// Usage: node bench/run.mjs cache [--runtime deno|bun] [--runs 3]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CacheKvLike, denoKvStore } from "../cache/deno_kv.ts";
import { memoryStore } from "../cache/memory.ts";
import { redisStore } from "../cache/redis.ts";
import type { CacheStore } from "../cache/store.ts";
import { createClient } from "../client/client.ts";
import type { McpClient } from "../client/types.ts";
import { inProcess } from "../transports/in_process.ts";
import { createFixtureServer } from "../tests/fixtures/server.ts";
import { startRedis } from "../tests/cache/_redis.ts";
import { startHttpFixture } from "../tests/fixtures/http_server.ts";
import { streamableHttp } from "../transports/streamable_http.ts";
import {
  contextLine,
  exit,
  fmt,
  goalLine,
  median,
  numberFlag,
  parseFlags,
  printTable,
  runtime,
  scriptArgs,
} from "./_lib.ts";

const flags = parseFlags(scriptArgs());
const runs = numberFlag(flags, "runs", 3);
const quick = flags.has("quick");
const ITERATIONS = quick ? 2_000 : 20_000;
const SLOW_ITERATIONS = quick ? 200 : 2_000;

/** Median µs per call of `fn` over `n` calls, in batches (the clock's resolution is coarse). */
async function timeAsync(n: number, fn: () => Promise<unknown>): Promise<number> {
  const batch = 50;
  const samples: number[] = [];
  for (let i = 0; i < n / batch; i++) {
    const start = performance.now();
    for (let j = 0; j < batch; j++) await fn();
    samples.push(((performance.now() - start) * 1000) / batch);
  }
  return median(samples);
}

function timeSync(n: number, fn: () => unknown): number {
  const batch = 200;
  const samples: number[] = [];
  for (let i = 0; i < n / batch; i++) {
    const start = performance.now();
    for (let j = 0; j < batch; j++) fn();
    samples.push(((performance.now() - start) * 1000) / batch);
  }
  return median(samples);
}

/** A ready client over a fresh fixture (modern, public pages of 60 s), listed once. */
async function client(store: CacheStore): Promise<McpClient> {
  const server = createFixtureServer({ mode: "modern-only", extraTools: 13 });
  const c = createClient({ transport: inProcess(server), cache: store });
  await c.ready();
  await c.listAllTools();
  return c;
}

interface Figures {
  cachedTools: number;
  memory: number;
  kv?: number;
  redis: number;
  roundTrip: number;
  httpRoundTrip: number;
}

async function once(redisCommand: (args: string[]) => Promise<unknown>): Promise<Figures> {
  const memory = await client(memoryStore());
  const figures: Figures = {
    cachedTools: timeSync(ITERATIONS * 5, () => memory.cachedTools()),
    memory: await timeAsync(ITERATIONS, () => memory.listAllTools()),
    roundTrip: await timeAsync(SLOW_ITERATIONS, () => memory.listAllTools({ refresh: true })),
    redis: 0,
    httpRoundTrip: 0,
  };
  await memory.close();
  {
    await using fixture = await startHttpFixture({ core: { mode: "modern-only", extraTools: 13 } });
    const h = createClient({ transport: streamableHttp(fixture.url), cache: memoryStore() });
    await h.ready();
    figures.httpRoundTrip = await timeAsync(
      SLOW_ITERATIONS / 4,
      () => h.listAllTools({ refresh: true }),
    );
    await h.close();
  }
  const deno = (globalThis as { Deno?: { openKv?(path: string): Promise<unknown> } }).Deno;
  if (runtime === "deno" && deno?.openKv) {
    const dir = mkdtempSync(join(tmpdir(), "conduit-bench-kv-"));
    const kv = await deno.openKv(join(dir, "cache.db")) as CacheKvLike & { close(): void };
    const c = await client(denoKvStore(kv));
    figures.kv = await timeAsync(SLOW_ITERATIONS, () => c.listAllTools());
    await c.close();
    kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const r = await client(redisStore(redisCommand, { prefix: `bench:${Math.random()}` }));
  figures.redis = await timeAsync(SLOW_ITERATIONS, () => r.listAllTools());
  await r.close();
  return figures;
}

const redis = await startRedis();
const connection = await redis.client();
const all: Figures[] = [];
try {
  await once(connection.command); // warm-up
  for (let run = 0; run < runs; run++) all.push(await once(connection.command));
} finally {
  await redis.close();
}
const med = (pick: (f: Figures) => number | undefined) => {
  const values = all.map(pick).filter((v): v is number => v !== undefined);
  return values.length === 0 ? NaN : median(values);
};
const rows: [string, number][] = [
  ["cachedTools()", med((f) => f.cachedTools)],
  ["listAllTools() · memory store", med((f) => f.memory)],
  ["listAllTools() · Deno KV file", med((f) => f.kv)],
  ["listAllTools() · Redis (127.0.0.1)", med((f) => f.redis)],
  ["server round trip (in-process, refresh)", med((f) => f.roundTrip)],
  ["server round trip (HTTP 127.0.0.1, refresh)", med((f) => f.httpRoundTrip)],
];
console.log(`cache · ${runtime} · ${runs} runs · 20 tools, one page`);
printTable(["case", "µs (median)"], rows.map(([name, us]) => [name, fmt(us)]));
console.log(goalLine("cachedTools() µs", rows[0][1], (v) => v <= 5, "≤ 5", " µs"));
console.log(goalLine("listAllTools() memory µs", rows[1][1], (v) => v <= 5, "≤ 5", " µs"));
console.log(contextLine("Redis hit / HTTP round trip", rows[3][1] / rows[5][1]));
exit(0);

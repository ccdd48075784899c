// The hub's connect benchmark: a hub over 5 stdio servers against the slowest of 5 single
// connects to the same servers, one after another. Each round starts 5 fresh server processes
// for the single connects (the slowest counts), then 5 more for one hub, timed until
// hub.ready() (every server ready); servers connect in parallel, so the hub should take
// about as long as its slowest server.
//
//   single (slowest of 5)   connect(server) → ready, each alone; the slowest of the round
//   5 at once               Promise.all of 5 connect(): the floor of a parallel start here
//   hub of 5                hub({ 5 servers }) → ready()
//
// Goal: hub of 5 ≤ 1.3 × the slowest single connect, medians. Process start-up needs CPU, so
// on a machine with fewer cores than servers the parallel starts share it: the figure is
// read with the load average printed beside it.
// Usage: node bench/run.mjs hub [--runtime deno|bun] [--runs 3] [--server minimal|everything]
//        [--server-runtime deno|bun|node] [--start-delay MS] [--rounds 5] [--servers 5] [--quick]
import { connect } from "../client/connect.ts";
import { hub } from "../hub/hub.ts";
import {
  contextLine,
  exit,
  fmt,
  goalLine,
  loadAverage,
  median,
  numberFlag,
  parseFlags,
  printTable,
  runtime,
  scriptArgs,
} from "./_lib.ts";
import { serverCommand, type ServerName } from "./_stdio_clients.ts";

const flags = parseFlags(scriptArgs());
const runs = numberFlag(flags, "runs", 3);
const quick = flags.has("quick");
const rounds = numberFlag(flags, "rounds", quick ? 2 : 5);
const count = numberFlag(flags, "servers", 5);
const serverName = (flags.get("server") ?? "minimal") as ServerName;
const serverRuntime = flags.get("server-runtime");
// `--start-delay MS`: each server first waits (a shell's `sleep`, no CPU), as servers fetched
// by `npx` or `uvx`, or that open a database, do before they answer.
const startDelay = flags.has("start-delay") ? numberFlag(flags, "start-delay", 1) : 0;
const base = serverCommand(serverName, serverRuntime);
const server = {
  ...(startDelay === 0 ? base : {
    command: "sh",
    args: ["-c", `sleep ${startDelay / 1000} && exec "$0" "$@"`, base.command, ...base.args],
  }),
  stderr: "ignore" as const,
};
const OPTIONS = { reconnect: false as const, requestTimeout: 30_000 };

async function singleConnect(): Promise<number> {
  const start = performance.now();
  const client = await connect(server, OPTIONS);
  const ms = performance.now() - start;
  await client.close();
  return ms;
}

async function hubConnect(): Promise<number> {
  const servers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`s${i}`, { ...server, ...OPTIONS }]),
  );
  const start = performance.now();
  const h = hub({ servers, reconnect: false });
  await h.ready();
  const ms = performance.now() - start;
  const states = Object.values(h.status().servers).map((s) => s.state);
  await h.close();
  if (states.some((state) => state !== "ready")) throw new Error(`not all ready: ${states}`);
  return ms;
}

/** The floor of any parallel start: 5 plain `connect()` at once, no hub. */
async function parallelConnects(): Promise<number> {
  const start = performance.now();
  const clients = await Promise.all(Array.from({ length: count }, () => connect(server, OPTIONS)));
  const ms = performance.now() - start;
  await Promise.all(clients.map((client) => client.close()));
  return ms;
}

interface Round {
  slowest: number;
  mean: number;
  parallel: number;
  hub: number;
}

async function round(): Promise<Round> {
  const singles: number[] = [];
  for (let i = 0; i < count; i++) singles.push(await singleConnect());
  const mean = singles.reduce((a, b) => a + b, 0) / singles.length;
  const parallel = await parallelConnects();
  return { slowest: Math.max(...singles), mean, parallel, hub: await hubConnect() };
}

await round(); // warm-up: the runtime's module cache, the OS's file cache
const all: Round[] = [];
for (let run = 0; run < runs; run++) {
  for (let i = 0; i < rounds; i++) all.push(await round());
}
const slowest = median(all.map((r) => r.slowest));
const mean = median(all.map((r) => r.mean));
const together = median(all.map((r) => r.hub));
const parallel = median(all.map((r) => r.parallel));
console.log(
  `hub connect · ${runtime} · ${serverName} server` +
    `${serverRuntime === undefined ? "" : ` (${serverRuntime})`}` +
    `${startDelay === 0 ? "" : ` · start delay ${startDelay} ms`} · ${count} servers · ` +
    `${all.length} rounds · load ${await loadAverage()}`,
);
printTable(["case", "ms (median)"], [
  ["single connect, mean of the round", fmt(mean)],
  [`single connect, slowest of ${count}`, fmt(slowest)],
  [`${count} connect() at once (Promise.all, no hub)`, fmt(parallel)],
  [`hub of ${count}, until ready()`, fmt(together)],
]);
console.log(
  goalLine(
    `hub of ${count} / slowest single connect`,
    together / slowest,
    (v) => v <= 1.3,
    "≤ 1.30",
  ),
);
console.log(contextLine(`hub of ${count} / ${count} connect() at once`, together / parallel));
console.log(
  contextLine(`hub of ${count} / ${count} single connects in a row`, together / (mean * count)),
);
exit(0);

/**
 * bench/tracing: what tracing costs a call. Our client three ways in one process, taking
 * turns: `off` (no tracer: the default), `noop` (the `@opentelemetry/api` tracer with no SDK
 * registered: spans that record nothing, the trace context still built) and `sdk` (a real
 * `sdk-trace-base` provider sampling every span into an exporter that drops them).
 *
 *   node bench/run.mjs tracing [--runtime deno|bun] [--runs 3] [--quick]
 *
 * With `--base DIR` a fourth variant, `base`, is the client of another checkout (the branch
 * point) without a tracer, taking the same turns: `off` against `base` shows what the hooks
 * cost a client with no tracer.
 *
 * Over stdio each variant has its own server process (the minimal one); over HTTP they share
 * one minimal server. Each round makes `--block` sequential calls per variant (p50 over all
 * rounds), then `--par` calls with 32 in flight (calls/s, median of rounds). The report
 * gives the cost per call over `off`: the p50 difference and the difference of 1/(calls/s).
 *
 * @module
 */

import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import {
  concurrent,
  contextLine,
  exit,
  fmt,
  loadAverage,
  median,
  numberFlag,
  parseFlags,
  printTable,
  quantile,
  runtime,
  scriptArgs,
} from "./_lib.ts";
import { startServer } from "./_http_servers.ts";
import { serverCommand } from "./_stdio_clients.ts";

type Variant = "base" | "off" | "noop" | "sdk";
const ARGS = { message: "hello" };

interface Client {
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}
interface OurModule {
  connectClient(options: Record<string, unknown>): Promise<Client>;
  stdio(options: Record<string, unknown>): unknown;
  streamableHttp(url: string): unknown;
}

/** An exporter that drops what it is given (the cost measured is the client's and the SDK's). */
const dropping: SpanExporter = {
  export: (_spans: ReadableSpan[], done) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
};
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropping)] });

function tracerOf(variant: Variant): Record<string, unknown> {
  if (variant === "noop") return { tracer: trace.getTracer("bench") };
  if (variant === "sdk") return { tracer: provider.getTracer("bench") };
  return {};
}

/** Latencies of `n` sequential calls, in milliseconds, appended to `into`. */
async function block(call: () => Promise<unknown>, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call();
    into.push(performance.now() - start);
  }
}

interface Figures {
  p50: number;
  callsPerSec: number;
}

/** Rounds of turns between the variants' clients: the p50 and calls/s of each. */
async function turns(
  clients: Map<Variant, Client>,
  rounds: number,
  size: number,
  par: number,
): Promise<Map<Variant, Figures>> {
  const times = new Map(VARIANTS.map((v) => [v, [] as number[]]));
  const rates = new Map(VARIANTS.map((v) => [v, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    // Rotate who goes first, so no variant always meets a warm or a cold moment.
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
    for (const variant of order) {
      const client = clients.get(variant)!;
      await block(() => client.callTool("echo", ARGS), size, times.get(variant)!);
      const { callsPerSec } = await concurrent(() => client.callTool("echo", ARGS), par, 32);
      rates.get(variant)!.push(callsPerSec);
    }
  }
  const out = new Map<Variant, Figures>();
  for (const variant of VARIANTS) {
    const sorted = Float64Array.from(times.get(variant)!).sort();
    out.set(variant, { p50: quantile(sorted, 0.5), callsPerSec: median(rates.get(variant)!) });
  }
  return out;
}

async function connectAll(
  transport: (mod: OurModule) => unknown,
): Promise<Map<Variant, Client>> {
  const clients = new Map<Variant, Client>();
  for (const variant of VARIANTS) {
    const mod = variant === "base" ? baseModule! : ours;
    const client = await mod.connectClient({
      transport: transport(mod),
      reconnect: false,
      ...tracerOf(variant),
    });
    // Warm-up: sequential then concurrent, twice (the JIT settles on both patterns).
    for (let i = 0; i < 2; i++) {
      await block(() => client.callTool("echo", ARGS), 300, []);
      await concurrent(() => client.callTool("echo", ARGS), 2_000, 32);
    }
    clients.set(variant, client);
  }
  return clients;
}

function report(label: string, figures: Map<Variant, Figures>): void {
  const off = figures.get("off")!;
  console.log(`\n${label}`);
  printTable(
    ["variant", "p50 ms", "calls/s @32", "+µs/call (p50)", "+µs/call (1/rate)"],
    VARIANTS.map((variant) => {
      const f = figures.get(variant)!;
      return [
        variant,
        fmt(f.p50, 3),
        fmt(f.callsPerSec, 0),
        variant === "off" ? "–" : fmt((f.p50 - off.p50) * 1000, 1),
        variant === "off" ? "–" : fmt((1 / f.callsPerSec - 1 / off.callsPerSec) * 1e6, 1),
      ];
    }),
  );
  const base = figures.get("base");
  if (base !== undefined) {
    console.log(
      contextLine(
        "off calls/s over base (no tracer, hooks vs none)",
        off.callsPerSec / base.callsPerSec,
      ),
    );
    console.log(contextLine("off p50 over base", off.p50 / base.p50));
  }
  console.log(
    contextLine("noop calls/s over off", figures.get("noop")!.callsPerSec / off.callsPerSec),
  );
  console.log(
    contextLine("sdk calls/s over off", figures.get("sdk")!.callsPerSec / off.callsPerSec),
  );
}

const flags = parseFlags(scriptArgs());
const quick = flags.has("quick");
const runs = numberFlag(flags, "runs", 3);
const rounds = numberFlag(flags, "rounds", quick ? 6 : 20);
const size = numberFlag(flags, "block", quick ? 100 : 250);
const par = numberFlag(flags, "par", quick ? 1_000 : 3_000);

console.log(`bench/tracing · ${runtime} · ${runs} run(s) × ${rounds} rounds`);
console.log(`load average at start: ${await loadAverage()}`);
const ours = await import("../mod.ts") as unknown as OurModule;
const baseDir = flags.get("base");
const baseModule = baseDir === undefined
  ? undefined
  : await import(new URL(`file://${baseDir.replace(/\/$/, "")}/mod.ts`).href) as OurModule;
const VARIANTS: readonly Variant[] = baseModule === undefined
  ? ["off", "noop", "sdk"]
  : ["base", "off", "noop", "sdk"];
for (let run = 1; run <= runs; run++) {
  const server = serverCommand("minimal");
  const stdioClients = await connectAll(
    (mod) => mod.stdio({ command: server.command, args: server.args, stderr: "ignore" }),
  );
  report(`run ${run} · stdio`, await turns(stdioClients, rounds, size, par));
  for (const client of stdioClients.values()) await client.close();

  const http = await startServer("minimal");
  const httpClients = await connectAll((mod) => mod.streamableHttp(http.url));
  report(`run ${run} · http`, await turns(httpClients, rounds, size, Math.round(par / 2)));
  for (const client of httpClients.values()) await client.close();
  await http.stop();
}
await provider.shutdown();
console.log(`\nload average at end: ${await loadAverage()}`);
exit(0);

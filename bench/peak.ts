/**
 * bench/peak: the resident memory one message at the size limit costs, for our client, the
 * official `@modelcontextprotocol/client` 2.x and a raw floor, over stdio (a line at
 * `maxMessageBytes`), an HTTP JSON body (at `maxResponseBytes`) and one SSE event (at
 * `maxEventBytes`), against the minimal server, in one run.
 *
 *   node bench/run.mjs peak [--runtime deno|bun] [--runs 3] [--mib 32]    (npm run bench:peak)
 *
 * One worker process per (path, client, run): it connects, warms up with smaller messages,
 * forces collections and reads its idle resident set, resets the kernel's high-water mark
 * (see `_memory.ts`), makes the one call whose answer is `--mib` MiB, and reads the mark.
 * The figure is the peak above idle over the message size: the decoded text and the parsed
 * result (which the caller keeps) are one size each, so 2× is the floor of a reader that
 * holds nothing else at once.
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
  pick,
  printTable,
  type Row,
  runtime,
  runtimeArgv,
  runWorker,
  scriptArgs,
} from "./_lib.ts";
import { finishDriver, printContext, startDriver } from "./_driver.ts";
import { type RunningServer, startServer } from "./_http_servers.ts";
import { resetPeak, settle } from "./_memory.ts";
import { connectPeak, type PeakPath, textLength } from "./_peak_clients.ts";
import type { ClientName, Mode } from "./_stdio_clients.ts";

const CLIENTS: ClientName[] = ["raw", "ours", "official"];
const PATHS: PeakPath[] = ["stdio", "json", "chunked", "sse"];
const MiB = 2 ** 20;
const flags = parseFlags(scriptArgs());
const LABELS: Record<PeakPath, string> = {
  stdio: "stdio line (maxMessageBytes)",
  json: "JSON body (maxResponseBytes)",
  chunked: "chunked JSON body (maxResponseBytes)",
  sse: "SSE event (maxEventBytes)",
};

if (flags.has("worker")) await worker();
else await driver();

async function worker(): Promise<void> {
  const client = flags.get("client") as ClientName;
  const path = flags.get("path") as PeakPath;
  const bytes = Math.round(numberFlag(flags, "mib", 32) * MiB);
  const mode = (flags.get("mode") ?? "auto") as Mode;
  const session = await connectPeak(client, path, flags.get("url") ?? "", bytes, mode);
  // Warm up every step of the path (and load what loads lazily) with smaller messages.
  for (const size of [1024, 256 * 1024, 1024 * 1024]) {
    if (textLength(await session.big(size)) <= 0) throw new Error("no text in the result");
  }
  const idle = await settle();
  const watch = await resetPeak();
  const result = await session.big(bytes);
  const peak = await watch.peak();
  const length = textLength(result);
  if (length < bytes * 0.99) throw new Error(`short result: ${length} of ${bytes}`);
  // The result is still held: what stays is the parsed value.
  const kept = await settle();
  await session.close();
  emitResult({
    client,
    path,
    how: watch.how,
    idleMB: idle / MiB,
    peakMB: (peak - idle) / MiB,
    peakRatio: (peak - idle) / bytes,
    keptRatio: (kept - idle) / bytes,
  });
  exit(0);
}

async function driver(): Promise<void> {
  flags.set("server", "minimal"); // the only server this bench uses
  const setup = await startDriver(
    flags,
    "bench/peak",
    (mode) => `${mode} mode, one ${numberFlag(flags, "mib", 32)} MiB message per worker`,
  );
  const mib = String(numberFlag(flags, "mib", 32));
  const paths = (flags.get("path")?.split(",") ?? PATHS) as PeakPath[];
  const clients = (flags.get("clients")?.split(",") ?? CLIENTS) as ClientName[];
  const script = decodeURIComponent(new URL(import.meta.url).pathname);
  const deno = ["--v8-flags=--expose-gc"];
  const rows: Row[] = [];
  for (let run = 0; run < setup.runs; run++) {
    for (const path of paths) {
      for (let i = 0; i < clients.length; i++) {
        const client = clients[(i + run) % clients.length];
        const t = performance.now();
        let running: RunningServer | undefined;
        let result: Record<string, unknown>;
        try {
          if (path !== "stdio") {
            running = await startServer("minimal", {
              sse: path === "sse",
              chunked: path === "chunked",
            });
          }
          const args = ["--worker", "--client", client, "--path", path, "--mib", mib];
          args.push("--mode", setup.mode, "--url", running?.url ?? "");
          result = await runWorker(runtimeArgv(script, args, deno), 300_000);
        } catch (error) {
          result = { error: String(error) };
        } finally {
          await running?.stop();
        }
        rows.push({ run, ...result, client, path });
        const note = "error" in result ? `ERROR ${result.error}` : "ok";
        const took = ((performance.now() - t) / 1000).toFixed(1);
        console.error(`  run ${run + 1}/${setup.runs} ${path} ${client}: ${note} (${took} s)`);
      }
    }
  }
  report(rows, paths, setup.runs, mib);
  await finishDriver(flags, setup, rows);
}

function report(rows: Row[], paths: PeakPath[], runs: number, mib: string): void {
  console.log(
    `\n== peak RSS above idle for one ${mib} MiB message, ${runtime} — medians of ${runs} run(s)`,
  );
  const m = (client: string, path: string, metric: string) =>
    median(pick(rows, { client, path }, metric));
  const table: string[][] = [];
  for (const path of paths) {
    for (const client of CLIENTS) {
      table.push([
        path,
        client === "official" ? "official v2" : client,
        fmt(m(client, path, "idleMB"), 1),
        fmt(m(client, path, "peakMB"), 1),
        fmt(m(client, path, "peakRatio")),
        fmt(m(client, path, "keptRatio")),
      ]);
    }
  }
  printTable(["path", "client", "idle MB", "peak above idle MB", "× message", "kept ×"], table);
  const how = [...new Set(rows.map((r) => r.how).filter((h) => h !== undefined))].join(", ");
  console.log(`  (peak read by ${how || "–"})`);
  for (const e of rows.filter((r) => "error" in r)) {
    console.log(`  ! ${e.path} ${e.client} run ${Number(e.run) + 1}: ${e.error}`);
  }
  console.log("\n  goals (median over runs):");
  for (const path of paths) {
    console.log(goalLine(
      `peak above idle / size, ours: ${LABELS[path]}`,
      m("ours", path, "peakRatio"),
      (v) => v <= 2,
      "≤ 2×",
    ));
  }
  console.log("  context:");
  for (const path of paths) {
    for (const client of ["raw", "official"]) {
      printContext(
        `peak above idle / size, ${client}: ${LABELS[path]}`,
        m(client, path, "peakRatio"),
      );
    }
  }
}

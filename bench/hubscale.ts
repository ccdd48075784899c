// A hub for hundreds of servers: a lazy hub over the 70 LiveMCPBench servers (527 tools),
// each served by `mockStdio` from the catalogue (a child process per server started).
//
//   warm()                     the first process learns every catalogue (70 starts), stored
//                              in a file store (the CLI's: the store contract, both runtimes),
//                              and searches once (the built index is stored beside them)
//   hub() → first search       a fresh process with the store: ms from the hub() call to the
//                              first search_tools answer (the modules the hub loads on first
//                              use imported before; and beside it, a process that imports
//                              them inside the measured time), its CPU time, and processes
//                              spawned
//   up-front listing           approxTokens of the lazy hub's listAllTools (and of the whole
//                              catalogue beside it)
//   search                     ms per search_tools over the warm index
//   idle RSS                   the process after the searches, no server running
//   first call, lazy server    its start and the call; beside connect() + one call alone
//
// Goals: hub() → first search ≤ 50 ms with 0 processes spawned; the lazy listing ≤ 2.5k
// tokens; a first call costs its start and the call (≈ connect() + call alone).
// Usage: node bench/run.mjs hubscale [--runtime deno|bun] [--runs 3] [--data DIR]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hub } from "../hub/hub.ts";
import { SEARCH_TOOLS } from "../hub/lazy.ts";
import { catalogueFile } from "../cli/_catalogue_file.ts";
import { dataDir, loadServers } from "./_livemcpbench.ts";
import { serverEntries } from "./_hubscale_servers.ts";
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
  readText,
  runtime,
  runtimeArgv,
  scriptArgs,
  sleep,
  spawn,
} from "./_lib.ts";

const flags = parseFlags(scriptArgs());
const runs = numberFlag(flags, "runs", 3);
const servers = loadServers(dataDir(flags.get("data")));
const dir = mkdtempSync(join(tmpdir(), "conduit-hubscale-"));
const catalogue = join(dir, "catalogue.json");
const store = join(dir, "store.json");
const startsFile = join(dir, "starts");
writeFileSync(catalogue, JSON.stringify(servers));
writeFileSync(startsFile, "");
const target = `${servers[0].name}__${servers[0].tools[0].name}`;

try {
  const w0 = performance.now();
  const warm = hub({
    servers: serverEntries(catalogue, startsFile),
    lazy: true,
    cache: catalogueFile(store),
    reconnect: false,
    idleMs: 100,
  });
  await warm.warm();
  const warmMs = performance.now() - w0;
  // An earlier session's search: the built index is stored beside the catalogues too.
  await warm.callTool(SEARCH_TOOLS, { query: "weather" });
  await warm.close();
  // The 70 servers it started are gone before the measured processes start: their exits
  // are not taken into the first runs' figures.
  await sleep(1_000);

  // Each run: a process with the first-use modules imported before the clock starts, and one
  // that imports them inside the measured time.
  const measure = async (imports: "preloaded" | "cold") => {
    const child = spawn(
      runtimeArgv(
        new URL("./_hubscale_child.ts", import.meta.url).pathname,
        [catalogue, store, startsFile, target, imports],
        ["--allow-write"],
      ),
      { stderr: "pipe" },
    );
    child.endInput();
    const [out, err, code] = await Promise.all([
      readText(child.stdout),
      child.stderr ? readText(child.stderr) : "",
      child.exited,
    ]);
    if (code !== 0) throw new Error(`the measured process failed: ${err}`);
    return JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, number>;
  };
  const rows: Record<string, number>[] = [];
  const colds: Record<string, number>[] = [];
  for (let run = 0; run < runs; run++) {
    rows.push(await measure("preloaded"));
    colds.push(await measure("cold"));
  }
  const load = await loadAverage();
  const m = (key: string) => median(rows.map((r) => r[key]));
  const c = (key: string) => median(colds.map((r) => r[key]));
  const tools = servers.reduce((n, s) => n + s.tools.length, 0);
  console.log(
    `hubscale · ${runtime} · ${servers.length} servers, ${tools} tools · ${runs} runs · load ${load}`,
  );
  printTable(["case", "median"], [
    ["warm(): learn every catalogue (70 starts), ms", fmt(warmMs)],
    ["hub() → first search_tools answer, ms", fmt(m("firstSearchMs"))],
    ["  the same, CPU time of the process, ms", fmt(m("firstSearchCpuMs"))],
    ["  with the first-use imports inside, ms", fmt(c("firstSearchMs"))],
    ["  the same, CPU time of the process, ms", fmt(c("firstSearchCpuMs"))],
    ["processes spawned to answer it", fmt(m("spawnedToSearch"), 0)],
    ["search_tools on the warm index, ms", fmt(m("searchMs"), 3)],
    ["lazy hub's up-front listing, tokens", fmt(m("lazyTokens"), 0)],
    [`the whole catalogue (${m("catalogueTools")} tools), tokens`, fmt(m("fullTokens"), 0)],
    ["idle hub RSS, MiB", fmt(m("idleRss") / 1048576, 1)],
    ["first call to a lazy server (start + call), ms", fmt(m("firstCallMs"))],
    ["second call to it, ms", fmt(m("secondCallMs"))],
    ["connect() + one call, the server alone, ms", fmt(m("aloneMs"))],
  ]);
  console.log(
    goalLine("hub() → first search (ms)", m("firstSearchMs"), (v) => v <= 50, "≤ 50 ms", " ms"),
  );
  console.log(
    goalLine("processes spawned to search", m("spawnedToSearch"), (v) => v === 0, "0", ""),
  );
  console.log(goalLine("lazy listing (tokens)", m("lazyTokens"), (v) => v <= 2500, "≤ 2 500", ""));
  console.log(
    contextLine("first lazy call / connect() + call alone", m("firstCallMs") / m("aloneMs")),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
exit(0);

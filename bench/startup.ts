/**
 * The start-up benchmark: what a plain client costs before its first call, beside the
 * official client, in one run.
 *
 *   import     a cold import in a fresh process (`_startup/probe.ts`), timed inside the
 *              process: ours `mod.ts` and `http.ts`, the official `@modelcontextprotocol/client`
 *              with its stdio transport; with `--base DIR` also the entries of another checkout.
 *              Every round runs each contestant once, in a rotating order; a run is `--reps`
 *              rounds after two rounds of warm-up, and the ratio of a run is the ratio of its
 *              medians. The whole process (spawn to exit) is printed too.
 *   modules    the local modules a plain stdio connect + calls loads (a Bun process recording
 *              every load, dynamic imports included) and what each entry loads statically
 *              (`deno info --json`), from `tests/edge/_budget.ts`.
 *   bundle     what a plain `http.ts` connect + call ships at start, bundled and minified
 *              (`bun build --minify --splitting --target=browser`: the entry and the chunks it
 *              imports statically), beside the official client with its HTTP transport.
 *
 * Goals: cold import of mod.ts ≤ 0.15× the official client + stdio transport, http.ts ≤ 0.12×;
 * modules ≤ 90; at start ≤ 100 KB minified, ≤ 30 KB gzip.
 * Usage: node bench/run.mjs startup [--runtime deno|bun] [--runs 3] [--reps 10] [--base DIR]
 *
 * @module
 */

import { readFileSync } from "node:fs";
import {
  bundleSize,
  loadedModules,
  ROOT_PATH,
  startBundle,
  staticModules,
} from "../tests/edge/_budget.ts";
import { buildDist, bundleFile } from "../tests/edge/_dist.ts";
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
  spawn,
} from "./_lib.ts";

const flags = parseFlags(scriptArgs());
const runs = numberFlag(flags, "runs", 3);
const reps = numberFlag(flags, "reps", 10);
const base = flags.get("base");
const here = (path: string) => decodeURIComponent(new URL(path, import.meta.url).pathname);
const probe = here("./_startup/probe.ts");
const fileUrl = (root: string, path: string) =>
  new URL(path, `file://${root.endsWith("/") ? root : `${root}/`}`).href;

interface Contestant {
  name: string;
  specifiers: string[];
}

// What is published (`npm run build`): the entries bundled, typed by the sources.
const dist = buildDist();
const contestants: Contestant[] = [
  { name: "ours mod.ts", specifiers: [fileUrl(ROOT_PATH, "mod.ts")] },
  { name: "ours http.ts", specifiers: [fileUrl(ROOT_PATH, "http.ts")] },
  { name: "published mod", specifiers: [fileUrl(dist.dir, bundleFile("."))] },
  { name: "published http", specifiers: [fileUrl(dist.dir, bundleFile("./http"))] },
  {
    name: "official",
    specifiers: ["@modelcontextprotocol/client", "@modelcontextprotocol/client/stdio"],
  },
];
if (base !== undefined) {
  contestants.push(
    { name: "base mod.ts", specifiers: [fileUrl(base, "mod.ts")] },
    { name: "base http.ts", specifiers: [fileUrl(base, "http.ts")] },
  );
}

/** One cold import: the import's own milliseconds and the whole process's. */
async function once(contestant: Contestant): Promise<{ importMs: number; processMs: number }> {
  const started = performance.now();
  const child = spawn(runtimeArgv(probe, contestant.specifiers), { stderr: "pipe" });
  child.endInput();
  const [out, err, code] = await Promise.all([
    readText(child.stdout),
    readText(child.stderr!),
    child.exited,
  ]);
  const processMs = performance.now() - started;
  const match = /IMPORT_MS (\S+)/.exec(out);
  if (code !== 0 || match === null) {
    throw new Error(`${contestant.name}: exit ${code}\n${out}\n${err}`);
  }
  return { importMs: Number(match[1]), processMs };
}

console.log(`# startup · ${runtime} · runs ${runs} × ${reps} · load ${await loadAverage()}`);

// ---- cold import --------------------------------------------------------------------------
const perRun: Map<string, { importMs: number; processMs: number }>[] = [];
for (let run = 0; run < runs; run++) {
  const samples = new Map(
    contestants.map((c) => [c.name, { i: [] as number[], p: [] as number[] }]),
  );
  for (let round = -2; round < reps; round++) {
    const shift = (round + 2 + run) % contestants.length;
    const order = [...contestants.slice(shift), ...contestants.slice(0, shift)];
    for (const contestant of order) {
      const { importMs, processMs } = await once(contestant);
      if (round < 0) continue; // warm-up: the runtime's caches of each module graph
      samples.get(contestant.name)!.i.push(importMs);
      samples.get(contestant.name)!.p.push(processMs);
    }
  }
  perRun.push(
    new Map(
      [...samples].map(([name, s]) => [name, { importMs: median(s.i), processMs: median(s.p) }]),
    ),
  );
}
// With --json (the report's way), every figure as a row: the import of each contestant in each
// run beside the official client's of the same run, then the modules and the bundles.
const results: Record<string, unknown>[] = perRun.flatMap((run, index) =>
  contestants.map((c) => ({
    case: "import",
    client: c.name,
    run: index,
    importMs: run.get(c.name)!.importMs,
    processMs: run.get(c.name)!.processMs,
    importRatio: run.get(c.name)!.importMs / run.get("official")!.importMs,
  }))
);
const med = (name: string, key: "importMs" | "processMs") =>
  median(perRun.map((r) => r.get(name)![key]));
const ratioOf = (name: string, key: "importMs" | "processMs") =>
  median(perRun.map((r) => r.get(name)![key] / r.get("official")![key]));

console.log("\ncold import (medians; ratio = median of per-run ratios to official)");
printTable(
  ["contestant", "import ms", "× official", "process ms", "× official"],
  contestants.map((c) => [
    c.name,
    fmt(med(c.name, "importMs")),
    fmt(ratioOf(c.name, "importMs")),
    fmt(med(c.name, "processMs")),
    fmt(ratioOf(c.name, "processMs")),
  ]),
);

// ---- modules and bundle (deterministic) ------------------------------------------------------
const roots: [string, string][] = [["ours", ROOT_PATH]];
if (base !== undefined) roots.push(["base", base]);
const moduleRows: string[][] = [];
const bundleRows: string[][] = [];
let oursLoaded = Infinity;
let oursBundle = { start: Infinity, startGzip: Infinity, startGzipOne: Infinity };
let oursNoPreload = { startGzip: Infinity, startGzipOne: Infinity };
for (const [name, root] of roots) {
  const loaded = loadedModules("mod.ts", root).length;
  const loadedHttp = loadedModules("http.ts", root).length;
  moduleRows.push([
    name,
    String(loaded),
    String(loadedHttp),
    String(staticModules("mod.ts", root).length),
    String(staticModules("http.ts", root).length),
  ]);
  const bundle = startBundle(root);
  bundleRows.push([
    `${name} http.ts`,
    fmt(bundle.start / 1024, 1),
    fmt(bundle.startGzip / 1024, 1),
    fmt(bundle.all / 1024, 1),
  ]);
  if (name === "ours") {
    oursLoaded = Math.max(loaded, loadedHttp);
    oursBundle = bundle;
    // Where the gzip figure goes: the bytes as one stream, and without Bun's preloading of
    // the lazy chunks (a runtime chunk, and a table of every chunk in the entry).
    oursNoPreload = startBundle(root, ["--no-module-preload"]);
    results.push(
      { case: "modules", client: "sources", loaded, loadedHttp },
      {
        case: "bundle",
        client: "ours",
        start: bundle.start,
        gzip: bundle.startGzip,
        gzipOne: bundle.startGzipOne,
        gzipNoPreload: oursNoPreload.startGzip,
        gzipOneNoPreload: oursNoPreload.startGzipOne,
      },
    );
  }
}
const publishedLoaded = loadedModules(`${dist.path}/${bundleFile(".")}`).length;
moduleRows.push(["published", String(publishedLoaded), "", "", ""]);
results.push({ case: "modules", client: "published", loaded: publishedLoaded });
dist.remove();
const official = bundleSize(readFileSync(here("./_startup/official_http.ts"), "utf8"));
results.push({
  case: "bundle",
  client: "official",
  start: official.start,
  gzip: official.startGzip,
  gzipOne: official.startGzipOne,
});
bundleRows.push([
  "official + HTTP transport",
  fmt(official.start / 1024, 1),
  fmt(official.startGzip / 1024, 1),
  fmt(official.all / 1024, 1),
]);

console.log("\nmodules of a plain stdio connect + calls (loaded: recorded under Bun)");
printTable(
  ["checkout", "loaded mod.ts", "loaded http.ts", "static mod.ts", "static http.ts"],
  moduleRows,
);
console.log("\nplain http.ts connect + call, bundled (KB)");
printTable(["bundle", "at start", "gzip", "all chunks"], bundleRows);

// The goals are what a user loads: the published bundles. The sources' figures (what a
// checkout of this repository loads) are printed beside them.
console.log("");
console.log(
  goalLine(
    "cold import mod (published) / official",
    ratioOf("published mod", "importMs"),
    (v) => v <= 0.15,
    "≤ 0.15×",
  ),
);
console.log(
  goalLine(
    "cold import http (published) / official",
    ratioOf("published http", "importMs"),
    (v) => v <= 0.12,
    "≤ 0.12×",
  ),
);
console.log(
  goalLine(
    "files, plain stdio connect + calls (published)",
    publishedLoaded,
    (v) => v <= 90,
    "≤ 90",
    "",
  ),
);
console.log(
  contextLine("cold import mod.ts (source) / official", ratioOf("ours mod.ts", "importMs")),
);
console.log(
  contextLine("cold import http.ts (source) / official", ratioOf("ours http.ts", "importMs")),
);
console.log(contextLine("modules, plain stdio connect + calls (source)", oursLoaded, ""));
console.log(
  goalLine(
    "http.ts at start, KB minified",
    oursBundle.start / 1024,
    (v) => v <= 100,
    "≤ 100",
    " KB",
  ),
);
console.log(
  goalLine("http.ts at start, KB gzip", oursBundle.startGzip / 1024, (v) => v <= 30, "≤ 30", " KB"),
);
console.log(
  contextLine("http.ts at start, KB gzip as one stream", oursBundle.startGzipOne / 1024, " KB"),
);
console.log(
  contextLine(
    "http.ts at start, KB gzip, without Bun's module preload",
    oursNoPreload.startGzip / 1024,
    " KB",
  ),
);
console.log(
  contextLine(
    "http.ts at start, KB gzip as one stream, without Bun's module preload",
    oursNoPreload.startGzipOne / 1024,
    " KB",
  ),
);
console.log(contextLine("whole process mod.ts / official", ratioOf("ours mod.ts", "processMs")));
if (base !== undefined) {
  console.log(
    contextLine(
      "cold import mod.ts / base",
      med("ours mod.ts", "importMs") / med("base mod.ts", "importMs"),
    ),
  );
}
if (flags.has("json")) console.log("BENCH_JSON " + JSON.stringify({ runtime, results }));
exit(0);

// The report writer of the benchmarks (bench/_report_writer.ts): the markdown carries the
// run's figures beside the official client and the raw floor, with the machine and load, and
// each chart is drawn from those same numbers (bar lengths in proportion, text escaped).
import { assert, assertEquals, test } from "../_harness.ts";
import { barChart, type ReportInput, writeReport, xmlEscape } from "../../bench/_report_writer.ts";

const MACHINE = {
  cores: 2,
  cpu: "Test CPU <x>",
  memoryGiB: 8,
  os: "Linux test x64",
  versions: { deno: "2.0.0", bun: "1.2.3" },
  loadStart: "1.00 / 1.00 / 1.00",
  loadEnd: "2.00 / 2.00 / 2.00",
  date: "2026-01-01T00:00:00Z",
  note: "shared machine",
};

/** Two runs of the stdio calls and latency cases, one of http and one of peak. */
function input(): ReportInput {
  const stdio = [];
  for (const run of [0, 1]) {
    for (
      const [client, cps, p50, rss] of [
        ["raw", 1000, 0.1, 50],
        ["ours", 900 + run * 200, 0.12, 60],
        ["official", 400, 0.3, 150],
      ] as const
    ) {
      stdio.push({ run, client, server: "minimal", case: "calls", callsPerSec: cps, rssMB: rss });
      stdio.push({ run, client, server: "minimal", case: "latency", seqP50: p50, seqP99: p50 * 2 });
    }
  }
  const http = [
    { run: 0, client: "raw", server: "minimal", case: "calls", callsPerSec: 500, rssMB: 40 },
    { run: 0, client: "ours", server: "minimal", case: "calls", callsPerSec: 450, rssMB: 46 },
    { run: 0, client: "official", server: "minimal", case: "calls", callsPerSec: 300, rssMB: 70 },
  ];
  const peak = [
    { run: 0, client: "raw", path: "chunked", idleMB: 25, peakMB: 64.5, peakRatio: 2.02 },
    { run: 0, client: "ours", path: "chunked", idleMB: 36, peakMB: 66.8, peakRatio: 2.09 },
    { run: 0, client: "official", path: "chunked", error: "timed out" },
  ];
  return {
    command: "node bench/run.mjs --report",
    machine: MACHINE,
    benches: [
      { bench: "stdio", runtime: "bun", runs: 2, results: stdio },
      { bench: "http", runtime: "deno", runs: 1, results: http },
      { bench: "peak", runtime: "bun", runs: 1, results: peak },
    ],
  };
}

test("report: the markdown has the machine, the load, every figure and its ratios", () => {
  const { markdown, svgs } = writeReport(input());
  for (
    const text of [
      "2 cores, Test CPU <x>",
      "8.0 GiB",
      "deno 2.0.0, bun 1.2.3",
      "at start 1.00 / 1.00 / 1.00; at end 2.00 / 2.00 / 2.00",
      "> shared machine",
      "`node bench/run.mjs --report`",
    ]
  ) assert(markdown.includes(text), `missing ${text}`);
  // stdio, bun: medians over the two runs (ours 900 and 1100 → 1,000), p50 in µs.
  assert(markdown.includes("| bun | minimal | ours | 1,000 | 120 | 240 | 60.0 |"), markdown);
  assert(markdown.includes("| bun | minimal | official v2 | 400 | 300 | 600 | 150 |"));
  // Per-run ratios' medians: ours/raw 0.9 and 1.1 → 1.00; ours/official 2.25 and 2.75 → 2.50.
  assert(markdown.includes("| bun | minimal | 1.00× | 2.50× | 1.20× | 0.40× | – |"), markdown);
  // http: RSS above the raw floor, ours / official: (46 − 40) / (70 − 40) = 0.20.
  assert(markdown.includes("| deno | minimal | 0.90× | 1.50× | – | 0.66× | 0.20× |"), markdown);
  // peak, and the failed worker listed rather than drawn.
  assert(markdown.includes("| bun | chunked | ours | 36.0 | 66.8 | 2.09× |"), markdown);
  assert(markdown.includes("- peak · bun: official chunked run 1: timed out"), markdown);
  assertEquals(
    Object.keys(svgs).sort(),
    [
      "http_calls.svg",
      "http_p50.svg",
      "http_rss.svg",
      "peak.svg",
      "stdio_calls.svg",
      "stdio_p50.svg",
      "stdio_rss.svg",
    ],
  );
  for (const [name, svg] of Object.entries(svgs)) {
    assert(markdown.includes(`(${name})`), `${name} is not linked`);
    assert(svg.startsWith("<svg ") && svg.trimEnd().endsWith("</svg>"), name);
  }
});

test("report: a chart's bars are in proportion to its numbers, text escaped", () => {
  const svg = barChart({
    file: "x",
    title: "A <title> & more",
    unit: "calls/s",
    groups: [{
      label: "bun · minimal",
      bars: [{ name: "raw", value: 1000 }, { name: "ours", value: 500 }, {
        name: "official",
        value: NaN,
      }],
    }],
    mark: { value: 750, label: "goal" },
  });
  assert(svg.includes("A &#60;title&#62; &#38; more"), svg);
  assert(!svg.includes("<title> &"), "raw text in the SVG");
  const widths = [...svg.matchAll(/<rect x="170" y="\d+" width="([\d.]+)" height="16"/g)].map((m) =>
    Number(m[1])
  );
  assertEquals(widths.length, 2, "no bar for a missing value");
  assertEquals(widths[0], 2 * widths[1]);
  assert(svg.includes(">–</text>"), "a missing value is shown as –");
  assert(svg.includes('stroke-dasharray="5,4"') && svg.includes(">goal</text>"));
  assertEquals(xmlEscape(`"'`), "&#34;&#39;");
});

test("report: the start-up section has the published and the sources' cold import, files and bundle", () => {
  const imports = [];
  for (const run of [0, 1, 2]) {
    for (
      const [client, ms] of [
        ["published mod", 10 + run],
        ["published http", 8],
        ["ours mod.ts", 40],
        ["ours http.ts", 30],
        ["official", 100],
      ] as const
    ) {
      imports.push({ case: "import", client, run, importMs: ms, importRatio: ms / 100 });
    }
  }
  const results = [
    ...imports,
    { case: "modules", client: "sources", loaded: 114, loadedHttp: 113 },
    { case: "bundle", client: "ours", start: 100 * 1024, gzip: 38 * 1024 },
    { case: "modules", client: "published", loaded: 47 },
    { case: "bundle", client: "official", start: 313 * 1024, gzip: 85 * 1024 },
  ];
  const { markdown, svgs } = writeReport({
    ...input(),
    benches: [{ bench: "startup", runtime: "deno", runs: 3, results }],
  });
  for (
    const row of [
      "| deno | mod | 11.0 | 0.11× | 40.0 | 0.40× | 100.0 | ≤ 0.15× |",
      "| deno | http | 8.0 | 0.08× | 30.0 | 0.30× | 100.0 | ≤ 0.12× |",
      "| deno | 47 | 114 | 113 |",
      "| ours (`http` entry) | 100.0 | 38.0 |",
      "| official + HTTP transport | 313.0 | 85.0 |",
    ]
  ) {
    assert(markdown.includes(row), `the report has ${row}`);
  }
  const cold = svgs["startup_import.svg"];
  assert(cold !== undefined, "a chart of the cold import");
  assert(cold.includes(">0.11×<") && cold.includes(">1.00×<"), "the bars carry the ratios");
  assert(svgs["startup_bundle.svg"]?.includes(">313<"), "a chart of the bundles, in KB");
  assertEquals(writeReport(input()).svgs["startup_import.svg"], undefined);
});

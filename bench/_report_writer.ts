/**
 * The report people can look at: `bench/REPORT.md` and one SVG chart per bench figure, drawn
 * here from the results the benches printed (`--json`), never by hand. Pure: text in, text
 * out (`bench/report.ts` reads the results and writes the files).
 *
 * @module
 */

import type { BarGroup, BenchResult, Chart, ReportInput } from "./_report_types.ts";
import { startupSection } from "./_report_startup.ts";
import { median, pick, ratio, type Row } from "./_stats.ts";

export type { Bar, BarGroup, BenchResult, Chart, Machine, ReportInput } from "./_report_types.ts";

/** The colour of each contestant's bars. */
const COLOURS: Record<string, string> = {
  raw: "#9e9e9e",
  ours: "#1f6feb",
  official: "#e36209",
};
const CLIENTS = ["raw", "ours", "official"];
const NAMES: Record<string, string> = { raw: "raw floor", ours: "ours", official: "official v2" };

/** Escapes text for XML content and attributes. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A number as a chart or table shows it. */
export function show(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return "–";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return value.toFixed(digits);
}

/** A ratio as a table shows it (`1.23×`, or `–` when missing). */
function times(value: number): string {
  return Number.isFinite(value) ? `${show(value)}×` : "–";
}

/** A round axis maximum at or above `max`. */
function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

/**
 * Draws `chart` as SVG text: one row per bar, grouped, a value after each bar, a legend, an
 * axis with five ticks and the mark (if any). Missing values (not finite) get no bar and `–`.
 *
 * @param chart The chart.
 * @returns The SVG document.
 */
export function barChart(chart: Chart): string {
  const width = 720;
  const left = 170;
  const right = 90;
  const bar = 16;
  const gap = 4;
  const groupGap = 14;
  const top = 56;
  const values = chart.groups.flatMap((g) => g.bars.map((b) => b.value)).filter(Number.isFinite);
  const max = niceMax(Math.max(...values, chart.mark?.value ?? 0, 0));
  const plot = width - left - right;
  const x = (v: number) => left + (plot * Math.max(0, v)) / max;
  const out: string[] = [];
  let y = top;
  for (const group of chart.groups) {
    const height = group.bars.length * (bar + gap) - gap;
    out.push(
      `<text x="${left - 10}" y="${y + height / 2 + 4}" text-anchor="end" font-weight="bold">` +
        `${xmlEscape(group.label)}</text>`,
    );
    for (const b of group.bars) {
      const colour = COLOURS[b.name] ?? "#6e7781";
      const ok = Number.isFinite(b.value);
      const end = ok ? x(b.value) : left;
      if (ok) {
        out.push(
          `<rect x="${left}" y="${y}" width="${(end - left).toFixed(1)}" height="${bar}" ` +
            `fill="${colour}"><title>${xmlEscape(`${NAMES[b.name] ?? b.name}: ${show(b.value)}`)}` +
            `</title></rect>`,
        );
      }
      out.push(
        `<text x="${(end + 4).toFixed(1)}" y="${y + bar - 4}">${
          xmlEscape(ok ? `${show(b.value)}${chart.unit === "×" ? "×" : ""}` : "–")
        }</text>`,
      );
      y += bar + gap;
    }
    y += groupGap - gap;
  }
  const bottom = y;
  const axis: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    axis.push(
      `<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${bottom}" stroke="#d0d7de"/>`,
      `<text x="${x(v)}" y="${bottom + 16}" text-anchor="middle" fill="#57606a">${
        xmlEscape(show(v))
      }</text>`,
    );
  }
  if (chart.mark !== undefined && Number.isFinite(chart.mark.value)) {
    const mx = x(chart.mark.value);
    axis.push(
      `<line x1="${mx}" y1="${top - 10}" x2="${mx}" y2="${bottom}" stroke="#cf222e" ` +
        `stroke-dasharray="5,4"/>`,
      `<text x="${mx + 4}" y="${bottom + 30}" fill="#cf222e">${xmlEscape(chart.mark.label)}</text>`,
    );
  }
  const legend = CLIENTS.filter((c) => chart.groups.some((g) => g.bars.some((b) => b.name === c)))
    .map((c, i) =>
      `<rect x="${left + i * 130}" y="30" width="12" height="12" fill="${COLOURS[c]}"/>` +
      `<text x="${left + i * 130 + 16}" y="40">${xmlEscape(NAMES[c])}</text>`
    );
  const height = bottom + (chart.mark === undefined ? 30 : 44);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">${xmlEscape(chart.title)}</text>`,
    `<text x="${width - 10}" y="20" text-anchor="end" fill="#57606a">${
      xmlEscape(chart.unit)
    }</text>`,
    ...axis,
    ...legend,
    ...out,
    "</svg>",
    "",
  ].join("\n");
}

/** A markdown table. */
export function mdTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

const SERVERS = ["minimal", "everything"];

/** The median of one client's metric in one case of a bench (per server or path). */
function med(rows: Row[], filter: Row, metric: string): number {
  return median(pick(rows, filter, metric));
}

/** What ours adds over the raw floor against what the official client adds, per run; the median. */
function overFloor(rows: Row[], runs: number, server: string, metric: string): number {
  const per: number[] = [];
  for (let run = 0; run < runs; run++) {
    const o = pick(rows, { client: "ours", server, case: "calls", run }, metric)[0];
    const f = pick(rows, { client: "official", server, case: "calls", run }, metric)[0];
    const r = pick(rows, { client: "raw", server, case: "calls", run }, metric)[0];
    if (o !== undefined && f !== undefined && r !== undefined && f > r) per.push((o - r) / (f - r));
  }
  return median(per);
}

/** The sections, charts and figures of the call benches (stdio, http). */
function callBench(
  bench: string,
  results: BenchResult[],
): { text: string; charts: Chart[] } {
  const rowsOf = results.filter((r) => r.bench === bench);
  if (rowsOf.length === 0) return { text: "", charts: [] };
  const calls: BarGroup[] = [];
  const p50: BarGroup[] = [];
  const rss: BarGroup[] = [];
  const table: string[][] = [];
  const ratios: string[][] = [];
  for (const { runtime, results: rows, runs } of rowsOf) {
    for (const server of SERVERS) {
      if (!rows.some((r) => r.server === server)) continue;
      const label = `${runtime} · ${server}`;
      const m = (client: string, kase: string, metric: string) =>
        med(rows, { client, server, case: kase }, metric);
      calls.push({
        label,
        bars: CLIENTS.map((name) => ({ name, value: m(name, "calls", "callsPerSec") })),
      });
      p50.push({
        label,
        bars: CLIENTS.map((name) => ({ name, value: m(name, "latency", "seqP50") * 1000 })),
      });
      rss.push({
        label,
        bars: CLIENTS.map((name) => ({ name, value: m(name, "calls", "rssMB") })),
      });
      for (const client of CLIENTS) {
        table.push([
          runtime,
          server,
          NAMES[client],
          show(m(client, "calls", "callsPerSec"), 0),
          show(m(client, "latency", "seqP50") * 1000, 0),
          show(m(client, "latency", "seqP99") * 1000, 0),
          show(m(client, "calls", "rssMB"), 1),
        ]);
      }
      const c = (
        client: string,
      ): [Row, string] => [{ client, server, case: "calls" }, "callsPerSec"];
      const t = (client: string): [Row, string] => [{ client, server, case: "latency" }, "seqP50"];
      const mem = (client: string): [Row, string] => [{ client, server, case: "calls" }, "rssMB"];
      ratios.push([
        runtime,
        server,
        times(ratio(rows, runs, c("ours"), c("raw"))),
        times(ratio(rows, runs, c("ours"), c("official"))),
        times(ratio(rows, runs, t("ours"), t("raw"))),
        times(ratio(rows, runs, mem("ours"), mem("official"))),
        bench === "http" ? times(overFloor(rows, runs, server, "rssMB")) : "–",
      ]);
    }
  }
  const transport = bench === "stdio" ? "stdio" : "Streamable HTTP";
  const charts: Chart[] = [
    {
      file: `${bench}_calls`,
      title: `${transport}: calls/s with 32 in flight`,
      unit: "calls/s",
      groups: calls,
    },
    {
      file: `${bench}_p50`,
      title: `${transport}: sequential p50, clients taking turns`,
      unit: "µs",
      groups: p50,
    },
    {
      file: `${bench}_rss`,
      title: `${transport}: RSS of the client process after the calls`,
      unit: "MB",
      groups: rss,
    },
  ];
  const text = [
    `## ${bench === "stdio" ? "stdio" : "HTTP"} (\`node bench/run.mjs ${bench}\`)`,
    "",
    ...charts.map((c) => `![${c.title}](${c.file}.svg)`),
    "",
    mdTable(
      ["runtime", "server", "client", "calls/s @32", "p50 µs (turns)", "p99 µs (turns)", "RSS MB"],
      table,
    ),
    "",
    "Medians of per-run ratios:",
    "",
    mdTable(
      [
        "runtime",
        "server",
        "calls/s ours / raw",
        "calls/s ours / official",
        "p50 ours / raw",
        "RSS ours / official",
        "RSS above raw: ours / official",
      ],
      ratios,
    ),
    "",
  ].join("\n");
  return { text, charts };
}

const PATHS = ["stdio", "json", "chunked", "sse"];

function peakBench(results: BenchResult[]): { text: string; charts: Chart[] } {
  const rowsOf = results.filter((r) => r.bench === "peak");
  if (rowsOf.length === 0) return { text: "", charts: [] };
  const groups: BarGroup[] = [];
  const table: string[][] = [];
  let mib = "";
  for (const { runtime, results: rows } of rowsOf) {
    for (const path of PATHS) {
      if (!rows.some((r) => r.path === path)) continue;
      const m = (client: string, metric: string) => med(rows, { client, path }, metric);
      groups.push({
        label: `${runtime} · ${path}`,
        bars: CLIENTS.map((name) => ({ name, value: m(name, "peakRatio") })),
      });
      for (const client of CLIENTS) {
        const peak = m(client, "peakMB");
        const ratioValue = m(client, "peakRatio");
        if (mib === "" && peak > 0 && ratioValue > 0) mib = show(peak / ratioValue, 0);
        table.push([
          runtime,
          path,
          NAMES[client],
          show(m(client, "idleMB"), 1),
          show(peak, 1),
          times(ratioValue),
          times(m(client, "keptRatio")),
        ]);
      }
    }
  }
  const chart: Chart = {
    file: "peak",
    title: `Peak RSS above idle for one message at the limit${mib ? ` (${mib} MiB)` : ""}`,
    unit: "×",
    groups,
    mark: { value: 2, label: "goal ≤ 2×" },
  };
  const text = [
    "## Peak memory (`node bench/run.mjs peak`)",
    "",
    `![${chart.title}](peak.svg)`,
    "",
    mdTable(
      ["runtime", "path", "client", "idle MB", "peak above idle MB", "× message", "kept ×"],
      table,
    ),
    "",
  ].join("\n");
  return { text, charts: [chart] };
}

/**
 * The report: its markdown and the SVG charts it links (each `file.svg` beside it).
 *
 * @param input The machine and the benches' results.
 * @returns `REPORT.md`'s text and the charts, drawn.
 */
export function writeReport(
  input: ReportInput,
): { markdown: string; svgs: Record<string, string> } {
  const { machine } = input;
  const parts = [
    callBench("stdio", input.benches),
    callBench("http", input.benches),
    peakBench(input.benches),
    startupSection(input.benches),
  ];
  const runs = [...new Set(input.benches.map((b) => b.runs))].join(", ");
  const versions = Object.entries(machine.versions).map(([k, v]) => `${k} ${v}`).join(", ");
  const errors = input.benches.flatMap((b) =>
    b.results.filter((r) => "error" in r).map((r) =>
      `- ${b.bench} · ${b.runtime}: ${r.client ?? ""} ${r.case ?? r.path ?? ""} run ${
        Number(r.run ?? 0) + 1
      }: ${String(r.error).slice(0, 200)}`
    )
  );
  const markdown = [
    "# Benchmark report",
    "",
    "`@conduit/mcp` beside the official `@modelcontextprotocol/client` 2.x and a raw floor (no",
    "client library) on the same server and runtime, in one run. Written by",
    `\`${input.command}\`; every figure and chart below comes from that run (see`,
    "`bench/README.md` for what each case measures).",
    "",
    "| machine | |",
    "| --- | --- |",
    `| date | ${machine.date} |`,
    `| CPU | ${machine.cores} cores, ${machine.cpu} |`,
    `| memory | ${show(machine.memoryGiB, 1)} GiB |`,
    `| OS | ${machine.os} |`,
    `| runtimes | ${versions} |`,
    `| load average (1/5/15 min) | at start ${machine.loadStart}; at end ${machine.loadEnd} |`,
    `| runs per case | ${runs} (figures are medians over runs; ratios are medians of per-run ratios) |`,
    ...(machine.note ? ["", `> ${machine.note}`] : []),
    "",
    ...parts.map((p) => p.text).filter((t) => t !== ""),
    ...(errors.length > 0 ? ["## Workers that failed", "", ...errors, ""] : []),
  ].join("\n");
  const svgs: Record<string, string> = {};
  for (const chart of parts.flatMap((p) => p.charts)) svgs[`${chart.file}.svg`] = barChart(chart);
  return { markdown, svgs };
}

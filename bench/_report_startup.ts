/**
 * The report's start-up section (`node bench/run.mjs startup`): the cold import of the
 * published entries and of the sources beside the official client's, the modules a plain
 * client loads, and what a plain `http` client ships at start. Pure, like `_report_writer.ts`.
 *
 * @module
 */

import type { BarGroup, BenchResult, Chart } from "./_report_types.ts";
import { median, type Row } from "./_stats.ts";

/** A number as the report shows it. */
function show(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "–";
}

/** A markdown table. */
function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The median of `metric` over the rows of `filter`. */
function med(rows: Row[], filter: Row, metric: string): number {
  const values = rows
    .filter((row) => Object.entries(filter).every(([key, value]) => row[key] === value))
    .map((row) => Number(row[metric]))
    .filter(Number.isFinite);
  return values.length === 0 ? NaN : median(values);
}

/** The contestants of the import case: what each entry is, published and as sources. */
const ENTRIES = [
  { entry: "mod", published: "published mod", sources: "ours mod.ts", goal: 0.15 },
  { entry: "http", published: "published http", sources: "ours http.ts", goal: 0.12 },
];

/**
 * The start-up section and its charts, or nothing when the run had no start-up bench.
 *
 * @param results Every bench's results.
 * @returns The section's markdown and its charts.
 */
export function startupSection(results: BenchResult[]): { text: string; charts: Chart[] } {
  const runs = results.filter((r) => r.bench === "startup");
  if (runs.length === 0) return { text: "", charts: [] };
  const groups: BarGroup[] = [];
  const importRows: string[][] = [];
  const loadRows: string[][] = [];
  let bundleRows: string[][] = [];
  const sizes: BarGroup[] = [];
  for (const { runtime, results: rows } of runs) {
    const official = med(rows, { case: "import", client: "official" }, "importMs");
    for (const { entry, published, sources, goal } of ENTRIES) {
      const ratio = (client: string) => med(rows, { case: "import", client }, "importRatio");
      groups.push({
        label: `${runtime} · ${entry}`,
        bars: [{ name: "ours", value: ratio(published) }, { name: "official", value: 1 }],
      });
      importRows.push([
        runtime,
        entry,
        show(med(rows, { case: "import", client: published }, "importMs"), 1),
        `${show(ratio(published))}×`,
        show(med(rows, { case: "import", client: sources }, "importMs"), 1),
        `${show(ratio(sources))}×`,
        show(official, 1),
        `≤ ${goal}×`,
      ]);
    }
    const loaded = (client: string, metric = "loaded") =>
      med(rows, { case: "modules", client }, metric);
    loadRows.push([
      runtime,
      show(loaded("published"), 0),
      show(loaded("sources"), 0),
      show(loaded("sources", "loadedHttp"), 0),
    ]);
    if (bundleRows.length === 0) {
      const kb = (client: string, metric: string) =>
        med(rows, { case: "bundle", client }, metric) / 1024;
      // Older results carry no split of the gzip figure: a dash.
      const maybe = (client: string, metric: string) => {
        const value = kb(client, metric);
        return Number.isFinite(value) ? show(value, 1) : "–";
      };
      bundleRows = ["ours", "official"].map((client) => [
        client === "ours" ? "ours (`http` entry)" : "official + HTTP transport",
        show(kb(client, "start"), 1),
        show(kb(client, "gzip"), 1),
        maybe(client, "gzipOne"),
        maybe(client, "gzipNoPreload"),
        maybe(client, "gzipOneNoPreload"),
      ]);
      for (const metric of ["start", "gzip"]) {
        sizes.push({
          label: metric === "start" ? "minified" : "gzip",
          bars: ["ours", "official"].map((name) => ({ name, value: kb(name, metric) })),
        });
      }
    }
  }
  const coldChart: Chart = {
    file: "startup_import",
    title: "Cold import of the published entry, × the official client + its transport",
    unit: "×",
    groups,
    mark: { value: 0.15, label: "goal ≤ 0.15× (mod), ≤ 0.12× (http)" },
  };
  const sizeChart: Chart = {
    file: "startup_bundle",
    title: "A plain HTTP connect + call, bundled: what ships at start",
    unit: "KB",
    groups: sizes,
    mark: { value: 100, label: "goal ≤ 100 KB minified, ≤ 30 KB gzip" },
  };
  const text = [
    "## Start-up (`node bench/run.mjs startup`)",
    "",
    `![${coldChart.title}](${coldChart.file}.svg)`,
    `![${sizeChart.title}](${sizeChart.file}.svg)`,
    "",
    "The published entries are the bundles `npm run build` writes (what a user of the package",
    "imports); the sources are this repository's TypeScript modules, imported as they are.",
    "",
    table(
      [
        "runtime",
        "entry",
        "published ms",
        "× official",
        "sources ms",
        "× official",
        "official ms",
        "goal",
      ],
      importRows,
    ),
    "",
    table(
      ["runtime", "files, published", "modules, sources (mod)", "modules, sources (http)"],
      loadRows,
    ),
    "",
    table(
      [
        "plain HTTP connect + call",
        "KB at start, minified",
        "KB gzip",
        "gzip as one stream",
        "gzip, no module preload",
        "one stream, no preload",
      ],
      bundleRows,
    ),
    "",
    "Gzip is summed over the files that load at start, each gzipped on its own (each is its own",
    "response). Beside it: the same bytes gzipped as one stream, and both without Bun's preloading",
    "of the lazy chunks (`--no-module-preload`: a runtime chunk, and a table in the entry naming",
    "every chunk and what it imports, which grows with each chunk loaded on first use).",
    "",
  ].join("\n");
  return { text, charts: [coldChart, sizeChart] };
}

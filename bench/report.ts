/**
 * Writes the report of a run: `bench/run.mjs --report` gathers every bench's results into a
 * JSON file ({@linkcode ReportInput}) and runs this with its path and the output directory:
 *
 *   bun bench/report.ts <results.json> [bench]
 *
 * It writes `REPORT.md` and the SVG charts it links into that directory.
 *
 * @module
 */

import { type ReportInput, writeReport } from "./_report_writer.ts";
import { scriptArgs } from "./_runtime.ts";

const [input, dir = decodeURIComponent(new URL(".", import.meta.url).pathname)] = scriptArgs();
const { readFile, writeFile } = await import("node:fs/promises");
const { join } = await import("node:path");
const report = writeReport(JSON.parse(await readFile(input, "utf8")) as ReportInput);
await writeFile(join(dir, "REPORT.md"), report.markdown);
for (const [name, svg] of Object.entries(report.svgs)) await writeFile(join(dir, name), svg);
console.log(`wrote ${join(dir, "REPORT.md")} and ${Object.keys(report.svgs).length} charts`);

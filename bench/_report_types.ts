/**
 * The shapes of the benchmark report: the machine, the benches' results and the charts
 * (`_report_writer.ts` draws them; `_report_startup.ts` makes the start-up section's).
 *
 * @module
 */

import type { Row } from "./_stats.ts";

/** Where and under what a report's benches ran. */
export interface Machine {
  /** Logical cores. */
  cores: number;
  /** The CPU model. */
  cpu: string;
  /** Total memory in GiB. */
  memoryGiB: number;
  /** E.g. `Linux 6.1.0 x64`. */
  os: string;
  /** Runtime name → version. */
  versions: Record<string, string>;
  /** The load average (1, 5, 15 min) before the first bench and after the last. */
  loadStart: string;
  loadEnd: string;
  /** When the run started (ISO). */
  date: string;
  /** A note printed under the machine (e.g. that it was shared). */
  note?: string;
}

/** One bench under one runtime: the rows it printed with `--json`. */
export interface BenchResult {
  bench: string;
  runtime: string;
  /** How many runs (the medians are over these). */
  runs: number;
  results: Row[];
}

/** What the report is made of. */
export interface ReportInput {
  machine: Machine;
  benches: BenchResult[];
  /** The command that produced it. */
  command: string;
}

/** One bar of a chart. */
export interface Bar {
  name: string;
  value: number;
}

/** A group of bars (e.g. one runtime and server), one bar per client. */
export interface BarGroup {
  label: string;
  bars: Bar[];
}

/** A horizontal grouped bar chart. */
export interface Chart {
  /** The file name (without `.svg`). */
  file: string;
  title: string;
  /** The unit of the values (shown on the axis and after each value). */
  unit: string;
  groups: BarGroup[];
  /** A goal or reference line, if any (drawn as a dashed vertical line). */
  mark?: { value: number; label: string };
}

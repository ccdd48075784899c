/**
 * Printing the report: number cells, aligned tables, goal lines and context lines.
 *
 * @module
 */

/** Formats a number for a table cell. */
export function fmt(value: unknown, digits = 2): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return "–";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(digits);
}

/** Prints rows as an aligned text table. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}

/** One goal line: `label  value  goal  PASS/FAIL`. */
export function goalLine(
  label: string,
  value: number,
  pass: (v: number) => boolean,
  goal: string,
  unit = "×",
): string {
  const digits = unit === "×" ? 2 : unit === "" ? 0 : 3;
  const shown = Number.isFinite(value) ? `${value.toFixed(digits)}${unit}` : "–";
  const verdict = Number.isFinite(value) ? (pass(value) ? "PASS" : "FAIL") : "n/a";
  return `  ${verdict.padEnd(4)}  ${label.padEnd(58)} ${shown.padStart(9)}   (goal ${goal})`;
}

/** A context line: like a goal line, without a verdict. */
export function contextLine(label: string, value: number, unit = "×"): string {
  return goalLine(label, value, () => true, "–", unit).replace("PASS", "    ").replace(
    "   (goal –)",
    "",
  );
}

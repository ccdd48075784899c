/**
 * Statistics over measurements and over the rows of many runs: quantiles, medians, and the
 * median of per-run comparisons.
 *
 * @module
 */

/** The `p` quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index];
}

/** The median of values (NaN-free values only; NaN when there are none). */
export function median(values: readonly number[]): number {
  const clean = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (clean.length === 0) return NaN;
  const mid = clean.length >> 1;
  return clean.length % 2 === 1 ? clean[mid] : (clean[mid - 1] + clean[mid]) / 2;
}

/** One worker result, tagged with its run, client, server and case. */
export type Row = Record<string, unknown>;

/** The numeric `metric` of the rows matching every key of `filter`. */
export function pick(rows: Row[], filter: Row, metric: string): number[] {
  return rows
    .filter((r) => Object.entries(filter).every(([k, v]) => r[k] === v))
    .map((r) => r[metric])
    .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
}

/** The median over runs of a per-run comparison of `a` with `b` (default: the ratio a/b). */
export function ratio(
  rows: Row[],
  runs: number,
  a: [Row, string],
  b: [Row, string],
  compare: (x: number, y: number) => number = (x, y) => x / y,
): number {
  const per: number[] = [];
  for (let run = 0; run < runs; run++) {
    const x = pick(rows, { ...a[0], run }, a[1])[0];
    const y = pick(rows, { ...b[0], run }, b[1])[0];
    if (x !== undefined && y !== undefined) per.push(compare(x, y));
  }
  return median(per);
}

/**
 * A census of what the client holds per request (pending calls, queued requests,
 * writes waiting, request controllers), for the soak benchmark, which checks that every
 * count is back to zero after a long run. Off unless {@linkcode watchCensus} ran before the
 * client was made: until then {@linkcode counted} only returns. Not exported by the package.
 *
 * @module
 */

/** Reads the current size of one collection. */
export type Counter = () => number;

let counters: Map<string, Counter[]> | undefined;

/**
 * Starts the census: collections made from now on are counted (and kept reachable by it,
 * so only a benchmark turns it on).
 */
export function watchCensus(): void {
  counters ??= new Map();
}

/**
 * Counts a collection under `name` while the census is on.
 *
 * @param name E.g. `session.pending`.
 * @param counter Its current size.
 */
export function counted(name: string, counter: Counter): void {
  if (counters === undefined) return;
  const list = counters.get(name);
  if (list === undefined) counters.set(name, [counter]);
  else list.push(counter);
}

/**
 * The census: for each name, the sum over every collection counted under it.
 *
 * @returns Name → size.
 *
 * @example
 * ```ts
 * import { census, counted, watchCensus } from "./census.ts";
 *
 * watchCensus();
 * const pending = new Map([[1, "a"]]);
 * counted("example.pending", () => pending.size);
 * pending.clear();
 * if (census()["example.pending"] !== 0) throw new Error("not empty");
 * ```
 */
export function census(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, list] of counters ?? []) {
    out[name] = list.reduce((sum, counter) => sum + counter(), 0);
  }
  return out;
}

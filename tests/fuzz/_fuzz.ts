// The fuzz profile every tests/fuzz file shares: a few hundred inputs per property in the
// test suite; FUZZ_RUNS (inputs per property) raises it for `npm run fuzz`, and FUZZ_SEED
// replays a reported failure. With FUZZ_RUNS set, each property prints how many inputs it
// ran ("fuzz-count N name"), which the fuzz script adds up.
import fc from "fast-check";
import { test } from "../_harness.ts";

const env: Record<string, string | undefined> =
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};

function integer(text: string | undefined): number | undefined {
  const n = Number(text);
  return text !== undefined && text !== "" && Number.isSafeInteger(n) ? n : undefined;
}

const requested = integer(env.FUZZ_RUNS);
const seed = integer(env.FUZZ_SEED);

/** Inputs per property: `FUZZ_RUNS`, else the small profile of the test suite. */
export const RUNS: number = requested !== undefined && requested > 0 ? requested : 200;

/**
 * Registers a property as a test and checks it with {@linkcode RUNS} inputs (times
 * `weight`, for properties whose inputs cost more), failing with fast-check's report (the
 * seed and the shrunk counterexample).
 */
export function fuzz<Ts>(
  name: string,
  property: () => fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  weight = 1,
): void {
  const numRuns = Math.max(1, Math.round(RUNS * weight));
  test(`fuzz: ${name}`, async () => {
    const details = await fc.check(property() as fc.IRawProperty<Ts>, { numRuns, seed });
    if (details.failed) {
      const report = fc.defaultReportMessage(details) ?? name;
      throw new Error(`${report}\n${String(details.errorInstance)}`);
    }
    if (requested !== undefined) console.log(`fuzz-count ${details.numRuns} ${name}`);
  }, { timeout: 20_000 + numRuns * 10 });
}

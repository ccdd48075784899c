import { assert, assertEquals, test } from "../_harness.ts";
import {
  MAX_TIMER_DELAY,
  serverDelay,
  startTimer,
  timeoutSignal,
  timerDelay,
} from "../../clock/timer.ts";

// deno-lint-ignore no-explicit-any
const g = globalThis as any;

/**
 * Runs `body` with `setTimeout` and `Date.now` replaced by a fake clock: every timer fires
 * on the next microtask (unless cleared), and the clock jumps by the delay it was armed with.
 */
async function withFakeClock(body: (armed: number[]) => Promise<void>): Promise<void> {
  const realSetTimeout = g.setTimeout;
  const realClearTimeout = g.clearTimeout;
  const realNow = Date.now;
  let now = 1_000_000;
  let ids = 0;
  const armed: number[] = [];
  const cleared = new Set<number>();
  g.setTimeout = (callback: () => void, delay: number) => {
    const id = ++ids;
    armed.push(delay);
    queueMicrotask(() => {
      if (cleared.has(id)) return;
      now += delay;
      callback();
    });
    return id;
  };
  g.clearTimeout = (id: number) => cleared.add(id);
  Date.now = () => now;
  try {
    await body(armed);
  } finally {
    g.setTimeout = realSetTimeout;
    g.clearTimeout = realClearTimeout;
    Date.now = realNow;
  }
}

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

test("timerDelay: NaN and negatives are 0, delays past 2^31-1 ms are 2^31-1", () => {
  const cases: [number, number][] = [
    [NaN, 0],
    [-5, 0],
    [0, 0],
    [10, 10],
    [MAX_TIMER_DELAY, MAX_TIMER_DELAY],
    [MAX_TIMER_DELAY + 1, MAX_TIMER_DELAY],
    [1e10, MAX_TIMER_DELAY],
    [Infinity, MAX_TIMER_DELAY],
  ];
  for (const [ms, expected] of cases) assertEquals(timerDelay(ms), expected, `timerDelay(${ms})`);
  assertEquals(MAX_TIMER_DELAY, 2_147_483_647);
});

test("serverDelay: a server's delay is held between the floor and the ceiling", () => {
  const cases: [number, number, number, number][] = [
    [0, 100, 60_000, 100],
    [-1, 100, 60_000, 100],
    [NaN, 100, 60_000, 100],
    [5_000, 100, 60_000, 5_000],
    [3_600_000, 100, 60_000, 60_000],
    [3_000_000_000, 100, 60_000, 60_000],
    [500, 100, 0, 100], // a ceiling under the floor: the floor wins
  ];
  for (const [ms, floor, ceiling, expected] of cases) {
    assertEquals(
      serverDelay(ms, floor, ceiling),
      expected,
      `serverDelay(${ms}, ${floor}, ${ceiling})`,
    );
  }
});

test("startTimer: a delay past 2^31-1 ms waits in steps and fires once, when due", async () => {
  await withFakeClock(async (armed) => {
    let fired = 0;
    const start = Date.now();
    let firedAt = 0;
    startTimer(() => {
      fired++;
      firedAt = Date.now();
    }, 3 * MAX_TIMER_DELAY + 5);
    await ticks(20);
    assertEquals(armed, [MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY, 5]);
    assertEquals(fired, 1);
    assertEquals(firedAt - start, 3 * MAX_TIMER_DELAY + 5);
  });
});

test("startTimer: an infinite delay arms nothing, NaN and negatives arm 0 ms, clear() stops a stepped wait", async () => {
  await withFakeClock(async (armed) => {
    let fired = 0;
    const never = startTimer(() => fired++, Infinity);
    never.clear();
    assertEquals(armed, []);
    startTimer(() => fired++, NaN);
    startTimer(() => fired++, -10);
    await ticks(5);
    assertEquals(armed, [0, 0]);
    assertEquals(fired, 2);
    armed.length = 0;
    const stepped = startTimer(() => fired++, 2 * MAX_TIMER_DELAY);
    stepped.clear();
    await ticks(5);
    assertEquals(fired, 2);
  });
});

test("startTimer: a real 1e10 ms timer arms no delay a runtime would overflow, and does not fire", async () => {
  const realSetTimeout = g.setTimeout;
  const delays: number[] = [];
  g.setTimeout = (callback: () => void, delay: number) => {
    delays.push(delay);
    return realSetTimeout(callback, delay);
  };
  let fired = false;
  let timer;
  try {
    timer = startTimer(() => fired = true, 1e10);
  } finally {
    g.setTimeout = realSetTimeout;
  }
  assertEquals(delays, [MAX_TIMER_DELAY]);
  assert(timer.unref(), "Deno and Bun timers can be unreferenced");
  // Unpatched setTimeout(…, 1e10) fires after about 1 ms; this one must not.
  await new Promise((resolve) => setTimeout(resolve, 20));
  timer.clear();
  assertEquals(fired, false);
});

test("timeoutSignal: short delays abort with TimeoutError, 1e10 ms and Infinity do not abort early", async () => {
  const short = timeoutSignal(0);
  const long = timeoutSignal(1e10);
  const infinite = timeoutSignal(Infinity);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assertEquals(short.aborted, true);
  assertEquals((short.reason as DOMException).name, "TimeoutError");
  assertEquals(long.aborted, false);
  assertEquals(infinite.aborted, false);
});

/**
 * Memory and descriptor readings for the peak and soak benchmarks (Linux `/proc`): the
 * resident set, its high-water mark since the last reset (`VmHWM`, reset by writing `5` to
 * `/proc/self/clear_refs`: the kernel catches a peak that no sampling timer on a busy
 * thread could), a settled reading after forced collections, and the open descriptors.
 * Deno needs `--allow-run` for these (and `--v8-flags=--expose-gc` for
 * {@linkcode settle} to collect).
 *
 * @module
 */

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { gc, readText, rss, runtime, sleep, spawn } from "./_lib.ts";

const PROC = "/proc/self";

/** A field of `/proc/<pid>/status` in bytes (`VmHWM`, `VmRSS`), or `NaN`. */
function fieldBytes(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  return match === null ? NaN : Number(match[1]) * 1024;
}

/**
 * Runs a shell command about this process (`$P` is its `/proc` directory) and returns its
 * output: Deno allows `/proc/self` only with `--allow-all`, so a child process reads and
 * writes it for us (a child's memory is its own).
 */
async function aboutMe(script: string): Promise<string> {
  const child = spawn(["sh", "-c", script], { env: { P: `/proc/${pid()}` } });
  child.endInput();
  const [out] = await Promise.all([readText(child.stdout), child.exited]);
  return out;
}

/** Watches the resident set's peak from {@linkcode resetPeak} to {@linkcode PeakWatch.peak}. */
export interface PeakWatch {
  /** The highest resident set size since the watch began, in bytes. */
  peak(): Promise<number>;
  /** How it was read: the kernel's high-water mark, or sampling every millisecond. */
  readonly how: "VmHWM" | "sampled";
}

/**
 * Starts watching the peak: resets the kernel's high-water mark (`VmHWM`) when it can (Bun
 * writes `/proc/self/clear_refs` itself, Deno through a child), else samples `rss()` on a
 * 1 ms timer (which misses what happens inside one long synchronous step).
 */
export async function resetPeak(): Promise<PeakWatch> {
  try {
    if (runtime === "bun") {
      writeFileSync(`${PROC}/clear_refs`, "5");
      const read = () => fieldBytes(readFileSync(`${PROC}/status`, "utf8"), "VmHWM");
      if (Number.isFinite(read())) return { how: "VmHWM", peak: () => Promise.resolve(read()) };
    } else {
      const out = await aboutMe('echo 5 > "$P/clear_refs" && cat "$P/status"');
      if (Number.isFinite(fieldBytes(out, "VmHWM"))) {
        return {
          how: "VmHWM",
          peak: async () => fieldBytes(await aboutMe('cat "$P/status"'), "VmHWM"),
        };
      }
    }
  } catch {
    // No /proc, or not allowed: sample instead.
  }
  let highest = rss();
  const timer = setInterval(() => highest = Math.max(highest, rss()), 1);
  return {
    how: "sampled",
    peak() {
      clearInterval(timer);
      return Promise.resolve(Math.max(highest, rss()));
    },
  };
}

/** The JavaScript heap in use, in bytes (after {@linkcode settle}: what stays reachable). */
export function heapUsed(): number {
  const g = globalThis as {
    Deno?: { memoryUsage(): { heapUsed: number } };
    process?: { memoryUsage(): { heapUsed: number } };
  };
  return (g.Deno ?? g.process!).memoryUsage().heapUsed;
}

/** Forces a few full collections with pauses between them, then reads the resident set. */
export async function settle(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await sleep(20);
  }
  return rss();
}

/** How many descriptors the process has open (`/proc/<pid>/fd`), or `NaN`. */
export async function openFds(): Promise<number> {
  try {
    if (runtime === "bun") return readdirSync(`${PROC}/fd`).length;
    // The child's own descriptors are not in its parent's list.
    const out = await aboutMe('ls "$P/fd" | wc -l');
    return out.trim() === "" ? NaN : Number(out.trim());
  } catch {
    return NaN;
  }
}

/** This process's id. */
function pid(): number {
  const g = globalThis as { Deno?: { pid: number }; process?: { pid: number } };
  return g.Deno?.pid ?? g.process!.pid;
}

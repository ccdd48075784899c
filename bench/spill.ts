/**
 * The spill benchmark: the cost of shaping and spilling a result of 10 KB, 1 MB and 10 MiB
 * (a log of text lines, and JSON structured content of rows), into the memory store and
 * into a file store. Each case runs in a fresh process: the result is built, collections
 * settle, the peak is reset (the kernel's `VmHWM`), then `spillResult` shapes it within
 * 8 000 characters and keeps it whole; the process reports the time and the resident set's
 * peak above the settled reading with the result already in memory (what spilling added).
 * Figures are medians over `--runs`.
 *
 * Goal: for 10 MiB, the added peak ≤ 2× the result's size (issue "Results of any size").
 * The parsed result itself (already in memory when the peak is reset) is the 1× baseline and
 * is not counted; "its size" is the length of the uncut text a model would have seen (the
 * JSON text of the structured content, or the log's text), which `spilled.chars` reports.
 * Usage: node bench/run.mjs spill [--runtime deno|bun] [--runs 3] [--quick]
 *
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spillResult, spillStoreOf } from "../client/spill.ts";
import { ownMemoryStore } from "../client/spill.ts";
import type { ToolResult } from "../client/types.ts";
import { fileStore } from "../mod.ts";
import { resetPeak, settle } from "./_memory.ts";
import {
  exit,
  fmt,
  goalLine,
  median,
  numberFlag,
  parseFlags,
  printTable,
  readText,
  runtime,
  runtimeArgv,
  scriptArgs,
  spawn,
} from "./_lib.ts";

const MIB = 1024 * 1024;
const SIZES: [string, number][] = [["10 KB", 10_000], ["1 MB", 1_000_000], ["10 MiB", 10 * MIB]];

/**
 * A result of about `bytes` characters, a log (text) or rows (JSON), as a client holds it:
 * its strings flat, as the parser makes them (a string built by concatenation is a rope the
 * engine would flatten, and copy, the first time it is written: a cost of the benchmark,
 * not of spilling). Each row is parsed on its own, so no whole JSON text is ever written
 * before the measure (its freed pages would flatter the reading).
 */
function makeResult(kind: string, bytes: number): ToolResult {
  if (kind === "text") {
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < bytes; i++) {
      const line = `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}Z request ${i} served ok`;
      lines.push(line);
      size += line.length + 1;
    }
    return { content: [{ type: "text", text: lines.join("\n") }], isError: false };
  }
  const rows: { id: number; name: string; ok: boolean }[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    rows.push(JSON.parse(`{"id":${i},"name":"row number ${i}","ok":${i % 2 === 0}}`));
    size += 40;
  }
  return { content: [], structuredContent: { rows }, isError: false };
}

async function one(kind: string, bytes: number, store: string): Promise<void> {
  const dir = store === "file" ? mkdtempSync(join(tmpdir(), "spill-bench-")) : undefined;
  try {
    const config = {
      store: dir === undefined ? ownMemoryStore() : fileStore(dir),
      ttlMs: 60_000,
      maxBytes: 64 * MIB,
    };
    const spill = spillStoreOf(config);
    // Warm up: the store's and the shaping's code loaded, a small result spilled.
    await spillResult(makeResult(kind, 20_000), 8_000, spill, "warm", 60_000);
    let result: ToolResult | undefined = makeResult(kind, bytes);
    const base = await settle();
    const watch = await resetPeak();
    const started = performance.now();
    const shaped = await spillResult(result, 8_000, spill, "bench", 60_000);
    const ms = performance.now() - started;
    const peak = await watch.peak();
    if (shaped.spilled === undefined && bytes > 8_000) throw new Error("not spilled");
    result = undefined;
    const chars = shaped.spilled?.chars ?? bytes;
    console.log(JSON.stringify({ ms, added: Math.max(0, peak - base), chars, how: watch.how }));
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

const flags = parseFlags(scriptArgs());
const single = flags.get("one");
if (typeof single === "string") {
  const [kind, bytes, store] = single.split(",");
  await one(kind, Number(bytes), store);
  exit(0);
}

const runs = numberFlag(flags, "runs", 3);
const quick = flags.has("quick");
const script = fileURLToPath(import.meta.url);
const rows: string[][] = [];
let worst10 = 0;
for (const store of ["memory", "file"]) {
  for (const kind of ["text", "json"]) {
    for (const [label, bytes] of SIZES) {
      if (quick && bytes > MIB) continue;
      const times: number[] = [];
      const added: number[] = [];
      const sizes: number[] = [];
      let how = "";
      for (let run = 0; run < runs; run++) {
        const argv = runtimeArgv(script, [`--one=${kind},${bytes},${store}`], [
          "--allow-write",
          "--v8-flags=--expose-gc",
        ]);
        const child = spawn(argv);
        child.endInput();
        const [out] = await Promise.all([readText(child.stdout), child.exited]);
        const line = out.trim().split("\n").pop() ?? "";
        const figures = JSON.parse(line) as {
          ms: number;
          added: number;
          chars: number;
          how: string;
        };
        times.push(figures.ms);
        added.push(figures.added);
        sizes.push(figures.chars);
        how = figures.how;
      }
      const peak = median(added);
      const size = median(sizes);
      if (bytes === 10 * MIB) worst10 = Math.max(worst10, peak / size);
      rows.push([
        `${store} · ${kind} · ${label}`,
        fmt(median(times), 1),
        fmt(peak / MIB, 1),
        fmt(size / MIB, 1),
        fmt(peak / size, 2),
        how,
      ]);
    }
  }
}
console.log(`spill · ${runtime} · medians of ${runs} runs, one process per run`);
printTable(["case", "ms", "added peak MiB", "size MiB", "× size", "peak read by"], rows);
if (!quick) {
  console.log(
    goalLine("10 MiB: added peak ÷ size (worst case)", worst10, (v) => v <= 2, "≤ 2×"),
  );
}

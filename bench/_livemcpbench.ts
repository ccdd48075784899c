/**
 * The LiveMCPBench data (70 real servers, 527 tools, tasks with annotated steps and tools;
 * Apache-2.0): its catalogue as hub tools (`server__tool`) and its tasks as queries. The
 * data directory is `--data DIR`, else `$LIVEMCPBENCH_DIR`, else the first `livemcpbench`
 * folder found under `data/` or `shared/data/` of the repository or a folder above it.
 *
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Tool } from "../client/types.ts";

/** One server of the catalogue and its tools (its own names). */
export interface BenchServer {
  /** The server's name (its config key). */
  name: string;
  /** Its tools as the server lists them. */
  tools: Tool[];
}

/** One task: its question, its annotated steps and the tools a person used. */
export interface BenchTask {
  /** The question. */
  question: string;
  /** The steps, one query each. */
  steps: string[];
  /** The tools' own names. */
  tools: string[];
}

/** Finds the data directory (see the module's documentation). */
export function dataDir(flag?: string): string {
  const given = flag ?? process.env.LIVEMCPBENCH_DIR;
  if (given !== undefined && given !== "") return resolve(given);
  let dir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  for (;;) {
    for (const sub of ["data/livemcpbench", "shared/data/livemcpbench"]) {
      if (existsSync(join(dir, sub, "tools.json"))) return join(dir, sub);
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error("LiveMCPBench data not found: pass --data DIR (or set LIVEMCPBENCH_DIR)");
}

/** The catalogue's servers, in the file's order. */
export function loadServers(dir: string): BenchServer[] {
  const raw = JSON.parse(readFileSync(join(dir, "tools.json"), "utf8")) as {
    tools: Record<string, { tools: Tool[] }>;
  }[];
  return raw.flatMap((entry) =>
    Object.entries(entry.tools).map(([name, listed]) => ({ name, tools: listed.tools }))
  );
}

const lines = (text: string) =>
  text.split("\n").map((line) => line.replace(/^\s*\d+[.)]\s*/, "").trim()).filter((l) => l);

/** The tasks of a split file (`dev_tasks.json`, or another split when the data has one). */
export function loadTasks(dir: string, file = "dev_tasks.json"): BenchTask[] {
  const raw = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
    Question: string;
    "Annotator Metadata": { Steps: string; Tools: string };
  }[];
  return raw.map((task) => ({
    question: task.Question,
    steps: lines(task["Annotator Metadata"].Steps),
    tools: [...new Set(lines(task["Annotator Metadata"].Tools))],
  }));
}

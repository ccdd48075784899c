// The tool search benchmark: how often search_tools finds the tools a person used, on the
// LiveMCPBench tasks (70 servers, 527 tools), beside a plain BM25 baseline, and how long a
// search takes.
//
//   per step, top 5        one query per annotated step; a task's recall is the share of its
//                          annotated tools among the union of its steps' top 5
//   question, top 10       the task's question as one query, its top 10
//
// Recall is averaged over tasks (macro) and, beside it, pooled over all annotated tools
// (micro). Tools are matched by their own names; an annotated tool the catalogue lacks (4 of
// the dev split's 109) is left out, and a task left with none is skipped.
//   ours        the hub's index (hub/search.ts): BM25F over name, title, description,
//               parameter names and descriptions, server name; Porter's stemmer; k1 1.2,
//               b 0.75 (textbook), name weight 3
//   neighbours  the same index with one setting moved (k1, b, the name's weight), recall
//               only: how far the figures move off the chosen setting
//   BM25        a plain BM25 over one text: the tool's name ×3, description and parameter
//               names, cut at non-alphanumerics and camelCase, no stemming (k1 1.2, b 0.75)
//   keyword     the ranking lazy hubs used before (name words 3, prefixes 2, description 1)
// Goals: per step top 5 ≥ 0.80 and question top 10 ≥ 0.45, both above BM25; a search ≤ 1 ms.
// Usage: node bench/run.mjs toolsearch [--runtime deno|bun] [--runs 3] [--data DIR]
//        [--split FILE] (another split of the data, e.g. held-out tasks, when it has one)
import process from "node:process";
import type { Tool } from "../client/types.ts";
import { createToolIndex, SETTINGS, type Settings, type ToolMatch } from "../hub/search.ts";
import { dataDir, loadServers, loadTasks } from "./_livemcpbench.ts";
import { fmt, goalLine, median, numberFlag, parseFlags, printTable, scriptArgs } from "./_lib.ts";

const flags = parseFlags(scriptArgs());
const runs = numberFlag(flags, "runs", 3);
const dir = dataDir(flags.get("data"));
const servers = loadServers(dir);
const splits = [flags.get("split") ?? "dev_tasks.json"];

// Hub names, and each hub name's own tool name.
const own = new Map<string, string>();
const entries = servers.flatMap((server) =>
  server.tools.map((tool) => {
    const name = `${server.name}__${tool.name}`;
    own.set(name, tool.name);
    return { tool: { ...tool, name }, server: server.name, original: tool.name };
  })
);
const tools: Tool[] = entries.map((e) => e.tool);

type Search = (query: string, limit: number) => string[];

// The plain BM25 baseline.
function words(text: string): string[] {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}
function plainBm25(): Search {
  const docs = entries.map(({ tool, original }) => {
    const params = Object.keys(
      (tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {},
    );
    const name = words(original);
    const list = [
      ...name,
      ...name,
      ...name,
      ...words(tool.description ?? ""),
      ...params.flatMap(words),
    ];
    const tf = new Map<string, number>();
    for (const w of list) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { name: tool.name, tf, length: list.length };
  });
  const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length;
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  return (query, limit) => {
    const q = [...new Set(words(query))];
    return docs.map((d) => {
      let score = 0;
      for (const w of q) {
        const f = d.tf.get(w);
        if (f === undefined) continue;
        const n = df.get(w)!;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        score += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * d.length / avg));
      }
      return { name: d.name, score };
    }).filter((d) => d.score > 0).sort((a, b) => b.score - a.score).slice(0, limit)
      .map((d) => d.name);
  };
}

// The keyword ranking lazy hubs had before this index.
function keyword(): Search {
  const docs = tools.map((t) => ({
    name: t.name,
    n: words(t.name),
    d: words(t.description ?? ""),
  }));
  return (query, limit) => {
    const q = [...new Set(words(query))];
    return docs.map((doc) => {
      let score = 0;
      for (const w of q) {
        const begins = (x: string) => w.length >= 2 && x.startsWith(w);
        if (doc.n.includes(w)) score += 3;
        else if (doc.n.some(begins)) score += 2;
        else if (doc.d.some((x) => x === w || begins(x))) score += 1;
      }
      return { name: doc.name, score };
    }).filter((d) => d.score > 0).sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
      .slice(0, limit).map((d) => d.name);
  };
}

const buildStart = performance.now();
const index = createToolIndex(entries);
const buildMs = performance.now() - buildStart;
const ours: Search = (query, limit) => index.search(query, limit).map((m: ToolMatch) => m.name);

function recall(search: Search, file: string) {
  const tasks = loadTasks(dir, file);
  const result = { step: { macro: 0, micro: 0 }, question: { macro: 0, micro: 0 } };
  let annotated = 0, stepHits = 0, questionHits = 0;
  const known = new Set(own.values());
  let counted = 0;
  for (const task of tasks) {
    const wanted = task.tools.filter((t) => known.has(t));
    if (wanted.length === 0) continue;
    counted++;
    const found = new Set(task.steps.flatMap((s) => search(s, 5)).map((n) => own.get(n)));
    const asked = new Set(search(task.question, 10).map((n) => own.get(n)));
    const s = wanted.filter((t) => found.has(t)).length;
    const q = wanted.filter((t) => asked.has(t)).length;
    result.step.macro += s / wanted.length;
    result.question.macro += q / wanted.length;
    annotated += wanted.length;
    stepHits += s;
    questionHits += q;
  }
  result.step.macro /= counted;
  result.question.macro /= counted;
  result.step.micro = stepHits / annotated;
  result.question.micro = questionHits / annotated;
  return { ...result, tasks: counted, queries: tasks.reduce((n, t) => n + t.steps.length + 1, 0) };
}

/** Wall and CPU milliseconds per search (CPU time holds better on a loaded machine). */
function timePerSearch(search: Search, file: string): { wall: number; cpu: number } {
  const tasks = loadTasks(dir, file);
  const queries = tasks.flatMap((t) => [...t.steps, t.question]);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < runs; r++) {
    for (const q of queries) search(q, 10); // warm-up
    const start = performance.now();
    const used = process.cpuUsage();
    let n = 0;
    while (performance.now() - start < 300) {
      for (const q of queries) search(q, 10);
      n += queries.length;
    }
    const spent = process.cpuUsage(used);
    wall.push((performance.now() - start) / n);
    cpu.push((spent.user + spent.system) / 1000 / n);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

const contestants: [string, Search][] = [["ours", ours], ["BM25", plainBm25()], [
  "keyword (before)",
  keyword(),
]];
console.log(
  `catalogue: ${servers.length} servers, ${tools.length} tools; index built in ${fmt(buildMs)} ms`,
);
for (const file of splits) {
  const rows: string[][] = [];
  const figures = new Map<string, ReturnType<typeof recall> & { ms: number; cpu: number }>();
  for (const [label, search] of contestants) {
    const time = timePerSearch(search, file);
    const r = { ...recall(search, file), ms: time.wall, cpu: time.cpu };
    figures.set(label, r);
    rows.push([
      label,
      fmt(r.step.macro, 3),
      fmt(r.step.micro, 3),
      fmt(r.question.macro, 3),
      fmt(r.question.micro, 3),
      fmt(r.ms * 1000, 1),
      fmt(r.cpu * 1000, 1),
    ]);
  }
  const { tasks, queries } = figures.get("ours")!;
  console.log(`\n${file}: ${tasks} tasks, ${queries} queries (time: median of ${runs} runs)`);
  printTable(
    ["ranking", "step top-5", "(micro)", "question top-10", "(micro)", "µs/search", "CPU µs"],
    rows,
  );
  // The chosen setting's neighbourhood: recall with one setting moved at a time.
  const neighbours: [string, Partial<Settings>][] = [
    ["k1 0.9", { k1: 0.9 }],
    ["k1 1.5", { k1: 1.5 }],
    ["k1 2.0", { k1: 2 }],
    ["b 0.6", { b: SETTINGS.b.map(() => 0.6) }],
    ["b 0.9", { b: SETTINGS.b.map(() => 0.9) }],
    ["name weight 2", { weights: [2, ...SETTINGS.weights.slice(1)] }],
    ["name weight 4", { weights: [4, ...SETTINGS.weights.slice(1)] }],
  ];
  const around = neighbours.map(([label, settings]) => {
    const moved = createToolIndex(entries, { settings });
    const r = recall((query, limit) => moved.search(query, limit).map((m) => m.name), file);
    return [
      label,
      fmt(r.step.macro, 3),
      fmt(r.step.micro, 3),
      fmt(r.question.macro, 3),
      fmt(r.question.micro, 3),
    ];
  });
  console.log("\nours, one setting moved (recall only):");
  printTable(["setting", "step top-5", "(micro)", "question top-10", "(micro)"], around);
  const o = figures.get("ours")!, b = figures.get("BM25")!;
  console.log(goalLine("per step top-5 recall", o.step.macro, (v) => v >= 0.8, "≥ 0.80", " "));
  console.log(
    goalLine("question top-10 recall", o.question.macro, (v) => v >= 0.45, "≥ 0.45", " "),
  );
  console.log(
    goalLine("per step: ours over BM25", o.step.macro / b.step.macro, (v) => v > 1, "> 1×"),
  );
  console.log(
    goalLine("question: ours over BM25", o.question.macro / b.question.macro, (v) => v > 1, "> 1×"),
  );
  console.log(goalLine("time per search (ms)", o.ms, (v) => v <= 1, "≤ 1 ms", " ms"));
  console.log(goalLine("CPU time per search (ms)", o.cpu, (v) => v <= 1, "≤ 1 ms", " ms"));
}

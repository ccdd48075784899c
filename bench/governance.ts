/**
 * The governance benchmark: what the pipeline adds to a call. Three clients over the same
 * in-process server (the test fixture, modern era, its `echo` tool), taking turns in one
 * process, batch by batch:
 *
 *   plain      no governance option: the call is sent as given
 *   governed   a `tools` filter (deny list with a glob), `validate: true` and a policy of six
 *              rules whose last allows (no approver is asked)
 *   base       with `--base DIR`, the plain client of another checkout (the branch point)
 *
 * and the pipeline alone (`createGovernance` over a tool list, `send` answering at once), so
 * the added cost shows without the round trip's noise. Figures are medians (p50) of batch
 * means, over `--runs`.
 *
 * Goal: governed − plain ≤ 20 µs at p50; plain within noise of `--base`.
 * Usage: node bench/run.mjs governance [--runtime deno|bun] [--runs 3] [--base DIR] [--quick]
 *
 * @module
 */

import { createClient } from "../client/client.ts";
import type { ClientOptions, McpClient, Tool } from "../client/types.ts";
import { createGovernance } from "../governance/pipeline.ts";
import type { PolicyOptions } from "../governance/options.ts";
import { inProcess } from "../transports/in_process.ts";
import { createFixtureServer } from "../tests/fixtures/server.ts";
import {
  contextLine,
  exit,
  fmt,
  goalLine,
  median,
  numberFlag,
  parseFlags,
  printTable,
  runtime,
  scriptArgs,
} from "./_lib.ts";

const flags = parseFlags(scriptArgs());
const runs = numberFlag(flags, "runs", 3);
const quick = flags.has("quick");
const ROUNDS = quick ? 40 : 200;
const BATCH = 50;

const POLICY: PolicyOptions = {
  rules: [
    { tools: ["admin_*"], decision: "deny" },
    { servers: ["prod-*"], decision: "deny" },
    { principals: ["guest"], decision: "deny" },
    { annotations: { destructiveHint: true }, tools: ["rm*"], decision: "ask" },
    { tools: ["slow"], decision: "ask" },
    { tools: ["*"], decision: "allow" },
  ],
  default: "deny",
};
const GOVERNANCE = { tools: { deny: ["admin_*", "fail"] }, validate: true, policy: POLICY };

type Create = (options: ClientOptions) => McpClient;

async function ready(create: Create, extra: Partial<ClientOptions>): Promise<McpClient> {
  const server = createFixtureServer({ mode: "modern-only" });
  const client = create({ transport: inProcess(server), ...extra } as ClientOptions);
  await client.ready();
  await client.listAllTools();
  return client;
}

async function batch(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < BATCH; i++) await fn();
  return ((performance.now() - start) * 1000) / BATCH;
}

interface Figures {
  plain: number;
  governed: number;
  base?: number;
  pipeline: number;
  pipelineFloor: number;
}

async function once(base: Create | undefined): Promise<Figures> {
  const plain = await ready(createClient, {});
  const governed = await ready(createClient, GOVERNANCE);
  const other = base === undefined ? undefined : await ready(base, {});
  const args = { message: "hi" };
  const samples: Record<"plain" | "governed" | "base", number[]> = {
    plain: [],
    governed: [],
    base: [],
  };
  for (let round = 0; round < ROUNDS; round++) {
    samples.plain.push(await batch(() => plain.callTool("echo", args)));
    samples.governed.push(await batch(() => governed.callTool("echo", args)));
    if (other) samples.base.push(await batch(() => other.callTool("echo", args)));
  }
  const tools = plain.cachedTools() as Tool[];
  await Promise.all([plain.close(), governed.close(), other?.close()]);

  // The pipeline alone, against the same send with no stage.
  const result = { content: [{ type: "text", text: "hi" }], isError: false };
  const send = () => Promise.resolve(result);
  const lookup = (name: string) => tools.find((tool) => tool.name === name);
  const scope = { server: "fixture" };
  const stages = createGovernance(GOVERNANCE);
  const call = { name: "echo", arguments: args, scope, lookup, send };
  const pipeline: number[] = [];
  const floor: number[] = [];
  for (let round = 0; round < ROUNDS * 4; round++) {
    pipeline.push(await batch(() => stages.callTool(call)));
    floor.push(await batch(() => send()));
  }
  const figures: Figures = {
    plain: median(samples.plain),
    governed: median(samples.governed),
    pipeline: median(pipeline),
    pipelineFloor: median(floor),
  };
  if (other) figures.base = median(samples.base);
  return figures;
}

const baseDir = flags.get("base");
const base = baseDir === undefined ? undefined : (await import(
  new URL(`file://${baseDir.replace(/\/$/, "")}/client/client.ts`).href
) as { createClient: Create }).createClient;

await once(base); // warm-up
const all: Figures[] = [];
for (let run = 0; run < runs; run++) all.push(await once(base));
const med = (pick: (f: Figures) => number | undefined) => {
  const values = all.map(pick).filter((v): v is number => v !== undefined);
  return values.length === 0 ? NaN : median(values);
};
const added = med((f) => f.governed - f.plain);
const pipelineAdded = med((f) => f.pipeline - f.pipelineFloor);
const rows: [string, number][] = [
  ["plain callTool (in-process)", med((f) => f.plain)],
  ["governed callTool (filter + validate + policy)", med((f) => f.governed)],
  ["governed − plain", added],
  ["pipeline alone − its send", pipelineAdded],
];
if (base) rows.push(["base checkout, plain callTool", med((f) => f.base)]);
console.log(`governance · ${runtime} · ${runs} runs · ${ROUNDS} rounds × ${BATCH} calls`);
printTable(["case", "µs (p50)"], rows.map(([name, us]) => [name, fmt(us)]));
console.log(goalLine("governed − plain µs", added, (v) => v <= 20, "≤ 20", " µs"));
console.log(goalLine("pipeline alone µs", pipelineAdded, (v) => v <= 20, "≤ 20", " µs"));
if (base) console.log(contextLine("plain over base", med((f) => f.plain / f.base!)));
exit(0);

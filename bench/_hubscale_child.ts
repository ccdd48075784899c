// One measured process of the hubscale bench (see hubscale.ts): a lazy hub over the 70
// LiveMCPBench servers whose catalogues (and search index) are already in the store file;
// prints one JSON line.
import { readFileSync } from "node:fs";
import process from "node:process";
import { hub } from "../hub/hub.ts";
import { CALL_TOOL, SEARCH_TOOLS } from "../hub/lazy.ts";
import { approxTokens } from "../governance/_budget.ts";
import { catalogueFile } from "../cli/_catalogue_file.ts";
import { connect } from "../client/connect.ts";
import { exit, rss, scriptArgs } from "./_lib.ts";
import { serverEntries } from "./_hubscale_servers.ts";

const [catalogue, storePath, startsFile, target, imports] = scriptArgs();
// "preloaded": the modules a hub loads on its first search are imported before the clock
// starts (what is measured is the hub's own work; import time is the startup bench's);
// otherwise they are imported by the first search, inside the measured time.
if (imports === "preloaded") {
  await Promise.all([
    import("../hub/_find.ts"),
    import("../hub/_lazy_calls.ts"),
    import("../hub/_tool_search.ts"),
    import("../hub/_stored.ts"),
    import("../hub/search.ts"),
    import("../transports/_stdio_target.ts"),
  ]);
}
const starts = () => readFileSync(startsFile, "utf8").split("\n").filter((l) => l).length;
const before = starts();
const entries = serverEntries(catalogue, startsFile);

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const lazy = hub({
  servers: entries,
  lazy: true,
  cache: catalogueFile(storePath),
  reconnect: false,
});
const found = await lazy.callTool(SEARCH_TOOLS, { query: "find parking near an address" });
const firstSearchMs = performance.now() - t0;
const used = process.cpuUsage(cpu0);
const firstSearchCpuMs = (used.user + used.system) / 1000;
const spawnedToSearch = starts() - before;
const tools = (found.structuredContent as { tools: { name: string }[] }).tools;
// The up-front listing: a second hub over the same store, before any search.
const fresh = hub({
  servers: entries,
  lazy: true,
  cache: catalogueFile(storePath),
  reconnect: false,
});
const lazyTokens = approxTokens(JSON.stringify(await fresh.listAllTools()));
await fresh.close();
const full = await lazy.listCatalogue();
const fullTokens = approxTokens(JSON.stringify(full.tools));
// Time per search on the warm index.
const searchStart = performance.now();
for (let i = 0; i < 50; i++) await lazy.callTool(SEARCH_TOOLS, { query: `weather forecast ${i}` });
const searchMs = (performance.now() - searchStart) / 50;
const idleRss = rss();

// The first call to a lazy server: its start and the call.
const [server, tool] = target.split("__");
const c0 = performance.now();
await lazy.callTool(CALL_TOOL, { name: target, arguments: {} });
const firstCallMs = performance.now() - c0;
const c1 = performance.now();
await lazy.callTool(CALL_TOOL, { name: target, arguments: {} });
const secondCallMs = performance.now() - c1;
await lazy.close();
// The same server alone: connect() and one call.
const d0 = performance.now();
const alone = await connect(entries[server], { reconnect: false });
await alone.callTool(tool, {});
const aloneMs = performance.now() - d0;
await alone.close();

console.log(JSON.stringify({
  firstSearchMs,
  firstSearchCpuMs,
  spawnedToSearch,
  matches: tools.length,
  lazyTokens,
  fullTokens,
  catalogueTools: full.tools.length,
  searchMs,
  idleRss,
  firstCallMs,
  secondCallMs,
  aloneMs,
}));
exit(0);

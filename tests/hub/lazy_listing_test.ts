// What a lazy hub lists: the two meta-tools, the tools kept loaded (alwaysLoad per server or
// tool, as a hub option, a server entry's key or a tool's _meta["anthropic/alwaysLoad"]),
// then the tools its searches found this session, in the order they were found, so the
// listing only grows at its end (prompt caches stay valid).
import { hub } from "../../hub/hub.ts";
import { anthropicTools } from "../../adapters/anthropic.ts";
import { openAiTools } from "../../adapters/openai.ts";
import { CALL_TOOL, SEARCH_TOOLS } from "../../hub/lazy.ts";
import { mockServer } from "../../testing/mod.ts";
import { assert, assertEquals, assertThrows, test } from "../_harness.ts";
import { toolServer } from "./_helpers.ts";

const names = (tools: { name: string }[]) => tools.map((t) => t.name);

function servers() {
  const b = mockServer({
    tools: [
      { name: "pinned", description: "Always here", _meta: { "anthropic/alwaysLoad": true } },
      { name: "other", description: "Another tool" },
    ],
  });
  const d = mockServer({
    tools: [
      { name: "revenue", description: "Report the quarterly revenue of a company" },
      { name: "headcount", description: "Count the employees of a company" },
    ],
  });
  return {
    a: { transport: toolServer("a", ["x", "y"]).transport(), alwaysLoad: ["x"] },
    b: b.transport(),
    c: toolServer("c", ["c1", "c2"]).transport(),
    d: d.transport(),
  };
}

test("lazy listing: alwaysLoad keeps tools listed; found tools join in the order found", async () => {
  await using lazy = hub({ servers: servers(), lazy: true, alwaysLoad: ["c", "d__headcount"] });
  // Servers named to keep tools loaded are learnt for the listing; b is not known yet.
  assertEquals(names(await lazy.listAllTools()), [
    SEARCH_TOOLS,
    CALL_TOOL,
    "a__x",
    "c__c1",
    "c__c2",
    "d__headcount",
  ]);
  assertEquals(lazy.status().servers.b.state, "stopped");
  await lazy.warm();
  const kept = [SEARCH_TOOLS, CALL_TOOL, "a__x", "b__pinned", "c__c1", "c__c2", "d__headcount"];
  assertEquals(names(await lazy.listAllTools()), kept);
  const found = await lazy.callTool(SEARCH_TOOLS, { query: "quarterly revenue" });
  assertEquals(
    names((found.structuredContent as { tools: { name: string }[] }).tools)[0],
    "d__revenue",
  );
  const afterSearch = names(await lazy.listAllTools());
  assertEquals(afterSearch.slice(0, kept.length), kept, "what was listed stays in place");
  assert(afterSearch.includes("d__revenue"));
  const picked = await lazy.callTool(SEARCH_TOOLS, { query: "select:b__other,a__x" });
  assertEquals(names((picked.structuredContent as { tools: { name: string }[] }).tools), [
    "b__other",
    "a__x",
  ]);
  const afterSelect = names(await lazy.listAllTools());
  assertEquals(afterSelect, [...afterSearch, "b__other"], "a kept tool is not listed twice");
  assertEquals(names(await lazy.listAllTools()), afterSelect, "the same listing again");
  // Each listed tool runs under its hub name.
  assertEquals((await lazy.callTool("c__c2")).content[0].text, "c:c2");
});

test("lazy listing: alwaysLoad: true keeps a server's tools; bad values are TypeErrors", async () => {
  await using lazy = hub({
    servers: { a: { transport: toolServer("a", ["x", "y"]).transport(), alwaysLoad: true } },
    lazy: true,
  });
  assertEquals(names(await lazy.listAllTools()), [SEARCH_TOOLS, CALL_TOOL, "a__x", "a__y"]);
  const a = toolServer("a", ["x"]).transport();
  for (
    const bad of [
      { servers: { a }, alwaysLoad: "a" },
      { servers: { a }, alwaysLoad: [""] },
      { servers: { a: { transport: a, alwaysLoad: "x" } } },
      { servers: { a: { transport: a, start: "later" } } },
      { servers: { a: { transport: a, idleMs: 0 } } },
      { servers: { a }, start: "soon" },
      { servers: { a }, idleMs: -1 },
      { servers: { a }, cache: {} },
    ]
  ) {
    assertThrows(() => hub(bad as never), TypeError);
  }
});

test("lazy listing: the deferral kits send a lazy hub's whole catalogue, kept tools not deferred", async () => {
  await using lazy = hub({ servers: servers(), lazy: true, alwaysLoad: ["c"] });
  const anthropic = await anthropicTools(lazy, { defer: true });
  const deferred = (
    t: { name: string; defer_loading?: boolean },
  ) => [t.name, t.defer_loading === true];
  assertEquals(anthropic.tools.slice(1).map(deferred), [
    ["a__x", false],
    ["a__y", true],
    ["b__pinned", false],
    ["b__other", true],
    ["c__c1", false],
    ["c__c2", false],
    ["d__revenue", true],
    ["d__headcount", true],
  ]);
  const responses = await openAiTools(lazy, { api: "responses", defer: true });
  assertEquals(responses.tools.length, 9);
  assertEquals(responses.tools[0].type, "tool_search");
  const ran = await anthropic.run({ id: "t1", name: "d__revenue", input: {} });
  assertEquals(ran.is_error, undefined);
  // Chat Completions keeps the meta-tools.
  const chat = await openAiTools(lazy);
  assertEquals(chat.tools.map((t) => t.function.name).slice(0, 2), [SEARCH_TOOLS, CALL_TOOL]);
});

// The edge entry's module graph: http.ts must reach nothing that needs Deno, Bun, a
// process, a file system, Deno.Kv or Hono. The walk is text-only (tests/edge/_graph.ts);
// mod.ts's graph is walked too, so the checks are known to be able to fail.
import { execFileSync } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { assert, assertArrayIncludes, assertEquals, test } from "../_harness.ts";
import {
  eagerSpecifiersOf,
  type ModuleGraph,
  relativePath,
  ROOT,
  specifiersOf,
  stripComments,
  walkGraph,
} from "./_graph.ts";

/** Why a module may not be in the edge graph, or `undefined` when it may. */
function forbiddenPath(path: string): string | undefined {
  if (path.startsWith("runtime/")) return "runtime/ (Deno/Bun shims)";
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name === "stdio.ts") return "the stdio transport";
  if (name.startsWith("_stdio")) return "a stdio helper";
  if (name.startsWith("_lines")) return "the stdio line splitter";
  if (path === "oauth/callback.ts") return "the Hono loopback callback";
  if (/(^|\/)deno_kv[^/]*\.ts$/.test(path)) return "a Deno.Kv store";
  return undefined;
}

/** Why an external specifier may not be in the edge graph, or `undefined` when it may. */
function forbiddenSpecifier(specifier: string): string | undefined {
  if (specifier === "hono" || specifier.startsWith("hono/")) return "Hono";
  if (specifier.startsWith("npm:hono") || specifier.startsWith("jsr:@hono/")) return "Hono";
  if (/deno_kv|@deno\/kv/.test(specifier)) return "Deno.Kv";
  if (specifier.startsWith("node:")) return "a Node built-in (not in a plain worker)";
  return undefined;
}

/** Every reason the graph is not edge-safe, one line each. */
function edgeProblems(graph: ModuleGraph): string[] {
  const problems: string[] = [];
  for (const module of graph.modules.values()) {
    const why = forbiddenPath(module.path);
    if (why) problems.push(`${module.path}: ${why}`);
    if (/\bDeno\s*\.\s*(?:Kv\b|openKv\b|AtomicOperation\b)|deno_kv/.test(module.source)) {
      problems.push(`${module.path}: mentions Deno.Kv`);
    }
    if (/^\s*\/\/\/\s*<reference\s+(?:lib|types|path)\s*=/m.test(module.source)) {
      problems.push(`${module.path}: has a triple-slash reference (it could pull in deno.ns)`);
    }
    if (/\bhono\b/i.test(module.code)) problems.push(`${module.path}: mentions hono in code`);
    // Only runtime/ may touch the runtimes' globals (design.md §2).
    const code = module.code.replace(/(["'`])(?:\\.|(?!\1)[^\\\n])*\1/g, '""');
    if (/(?<![\w$])(?:Deno|Bun)\b/.test(code)) {
      problems.push(`${module.path}: refers to the Deno or Bun global`);
    }
  }
  for (const [specifier, importers] of graph.external) {
    const why = forbiddenSpecifier(specifier);
    if (why) problems.push(`${specifier} (from ${importers.join(", ")}): ${why}`);
  }
  return problems;
}

test("edge graph: the walker finds specifiers in code only, across lines and forms", () => {
  const code = stripComments(`
/**
 * @example
 * \`\`\`ts
 * import { nope } from "./in_a_comment.ts";
 * \`\`\`
 */
import { a,
  b } from "./multi.ts";
import type { T } from "./types_only.ts";
import "./side_effect.ts";
export * from "./star.ts";
export { c as d } from "./named.ts";
// import "./line_comment.ts";
const re = /\\/\\/ not a comment/; import { e } from "./after_regex.ts";
const s = "// not a comment either"; import f from "./after_string.ts";
const t = \`\${"/*"}\`; import g from "./after_template.ts";
const lazy = await import("./dynamic.ts");
type U = import("./type_query.ts").U;
`);
  assertEquals(specifiersOf(code).sort(), [
    "./after_regex.ts",
    "./after_string.ts",
    "./after_template.ts",
    "./dynamic.ts",
    "./multi.ts",
    "./named.ts",
    "./side_effect.ts",
    "./star.ts",
    "./type_query.ts",
    "./types_only.ts",
  ]);
});

test("edge graph: http.ts reaches no runtime/, stdio, Deno.Kv, Hono or oauth/callback.ts", () => {
  const graph = walkGraph("http.ts");
  assert(graph.modules.has("transports/streamable_http.ts"), "the walk reaches the HTTP transport");
  assert(graph.modules.has("client/client.ts"), "the walk reaches the client");
  assertEquals(edgeProblems(graph), []);
});

test("edge graph: mod.ts does reach stdio and runtime/, so the checks can fail", () => {
  const graph = walkGraph("mod.ts");
  assert(graph.modules.has("transports/stdio.ts"), "mod.ts reaches transports/stdio.ts");
  const problems = edgeProblems(graph);
  assert(problems.some((p) => p.startsWith("transports/stdio.ts:")), problems.join("\n"));
  assert(problems.some((p) => p.startsWith("runtime/")), problems.join("\n"));
  assert(
    problems.some((p) => p.includes("refers to the Deno or Bun global")),
    "runtime/ files are caught by the global check",
  );
});

test("edge graph: the text walk agrees with deno info on http.ts and mod.ts", () => {
  const deno = fileURLToPath(new URL("node_modules/.bin/deno", ROOT));
  for (const entry of ["http.ts", "mod.ts"]) {
    const info = JSON.parse(
      execFileSync(deno, ["info", "--json", entry], {
        cwd: fileURLToPath(ROOT),
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        maxBuffer: 64 << 20,
      }),
    ) as { modules: { specifier: string }[] };
    const fromDeno = info.modules
      .map((m) => m.specifier)
      .filter((s) => s.startsWith(ROOT.href) && !s.includes("/node_modules/"))
      .map(relativePath)
      .sort();
    const walked = [...walkGraph(entry).modules.keys()].sort();
    assertEquals(walked, fromDeno, `${entry}: local modules`);
  }
  // And the npm packages it names are the ones deno resolved.
  const external = [...walkGraph("http.ts").external.keys()];
  assertArrayIncludes(external, ["oauth4webapi", "jose"]);
});

test("load graph: OAuth libraries, OpenTelemetry, the schema validator and Hono load on first use, not with either entry; event streams need no package", () => {
  const lazy = [
    "@cfworker/json-schema",
    "@opentelemetry/api",
    "jose",
    "oauth4webapi",
  ];
  // The event stream grammar is the library's own: no entry reaches a package for it.
  for (const entry of ["mod.ts", "http.ts"]) {
    assert(
      !walkGraph(entry).external.has("eventsource-parser"),
      `${entry} reaches the SSE package`,
    );
  }
  // The config files' parser: mod.ts only (http.ts has no hub).
  assert(!walkGraph("mod.ts", { eager: true }).external.has("jsonc-parser"), "jsonc at once");
  assert(walkGraph("mod.ts").external.has("jsonc-parser"), "mod.ts reaches jsonc-parser");
  for (const entry of ["mod.ts", "http.ts"]) {
    const eager = walkGraph(entry, { eager: true });
    const loaded = lazy.filter((name) => eager.external.has(name));
    assertEquals(loaded, [], `${entry} loads ${loaded.join(", ")} at once`);
    // The HTTP transport's shell checks its options (`auth` too) at once; its core, with the
    // OAuth middleware's shell, loads when it first opens, the middleware itself with the
    // first request, login or callback.
    assert(eager.modules.has("transports/_http_options.ts"), `${entry} has the auth check`);
    for (const path of ["transports/_http_core.ts", "oauth/lazy_middleware.ts"]) {
      assert(!eager.modules.has(path), `${entry} loads ${path} at once`);
      assert(walkGraph(entry).modules.has(path), `${entry} reaches ${path} on first use`);
    }
    assert(!eager.modules.has("oauth/middleware.ts"), `${entry} loads the OAuth middleware`);
    assert(eager.modules.has("tracing/lazy.ts"), `${entry} still has the tracing hooks`);
    assert(!eager.modules.has("tracing/tracing.ts"), `${entry} loads the tracing at once`);
    // The full graph (dynamic imports included) does reach them: the check can fail.
    const all = walkGraph(entry);
    assertEquals(lazy.filter((name) => all.external.has(name)), lazy);
  }
  // The loopback callback's Hono app is mod.ts's only (http.ts never reaches it).
  assert(!walkGraph("mod.ts", { eager: true }).external.has("hono"), "mod.ts loads hono at once");
  assert(walkGraph("mod.ts").external.has("hono"), "mod.ts reaches hono on first use");
});

test("load graph: the eager walk skips type-only and dynamic imports, keeps the rest", () => {
  const code = [
    'import type { A } from "./a.ts";',
    'import { type B, type C } from "./b.ts";',
    'import { type D, e } from "./d.ts";',
    'export type { F } from "./f.ts";',
    'export { g } from "./g.ts";',
    'import "./side.ts";',
    'const h = await import("./h.ts");',
  ].join("\n");
  assertEquals(eagerSpecifiersOf(code).sort(), ["./d.ts", "./g.ts", "./side.ts"]);
});

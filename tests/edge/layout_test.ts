// The house's shape, read from the source graph `deno info --json` reports (type-only
// imports, `export … from`, `import("…").T` and dynamic imports included): no import cycle
// between files, each folder imports only the folders its row in LAYERS allows, nobody
// imports another folder's private `_` files, and only runtime/ names `Deno` or `Bun`.
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { assert, assertEquals, test } from "../_harness.ts";
import { ROOT, stripComments } from "./_graph.ts";

/**
 * What each top-level source folder may import besides itself. A new folder adds its row
 * here (a folder without a row fails the test). The root entries (`mod.ts`, `http.ts`, …)
 * assemble the package and may import anything. A sub-folder may have its own row too
 * (`"client/connection": ["protocol", "client"]`, where `client` means client/'s own files):
 * a file belongs to the longest row naming a folder it is in.
 */
const LAYERS: Record<string, readonly string[]> = {
  protocol: [],
  // Timers with one clamp (no delay past what setTimeout can hold): below all but protocol/.
  clock: [],
  runtime: ["protocol"],
  // The sandbox of stdio servers (Deno permissions, bubblewrap): its planner is pure, its
  // launcher asks runtime/ about this machine; stdio loads it only for a sandboxed server.
  sandbox: ["protocol", "runtime"],
  // The store contract and the cache's rules: below oauth/, whose token stores build on it.
  cache: ["protocol", "clock"],
  oauth: ["protocol", "clock", "runtime", "cache"],
  transports: ["protocol", "clock", "runtime", "oauth", "cache", "sandbox"],
  // OpenTelemetry spans and metrics (@opentelemetry/api loaded on first use): the client's
  // code calls its hooks, so it sits below client/ and knows only the wire.
  tracing: ["protocol"],
  // Governance (filter, policy, validation, hooks, pinning): over plain tool lists, so a hub
  // can run it too; it names the wire's shapes (protocol/shapes.ts) and the store contract.
  governance: ["protocol", "clock", "cache"],
  // Not runtime/: http.ts (the edge entry) reaches the client, and runtime/ must stay out of it.
  client: [
    "protocol",
    "clock",
    "cache",
    "governance",
    "oauth",
    "transports",
    "tracing",
    "client/handler",
    "client/connection",
    "client/requests",
    "client/tasks",
    "client/changes",
  ],
  // Inside client/ the sub-folders form a line: the root's private base ← handler/ ←
  // connection/ ← requests/ ← tasks/ ← changes/ (and the public face at the root assembles
  // them all).
  "client/handler": ["protocol", "clock", "transports", "client"],
  "client/connection": [
    "protocol",
    "clock",
    "oauth",
    "transports",
    "tracing",
    "client",
    "client/handler",
  ],
  "client/requests": [
    "protocol",
    "clock",
    "tracing",
    "client",
    "client/handler",
    "client/connection",
  ],
  "client/tasks": [
    "protocol",
    "clock",
    "cache",
    "client",
    "client/handler",
    "client/connection",
    "client/requests",
  ],
  "client/changes": [
    "protocol",
    "clock",
    "cache",
    "client",
    "client/handler",
    "client/connection",
    "client/requests",
    "client/tasks",
  ],
  // The mock server and cassettes: the wire, timers, transports and the client's public face.
  testing: ["protocol", "clock", "transports", "client"],
  // Model adapters: a client's or hub's tools in each model API's shape. Structural over
  // their source, so only the wire (its errors and shapes), the client's public face (its
  // option types, FACE_ONLY) and the one shaping of results.
  adapters: ["protocol", "client", "governance"],
  // Many servers behind one object: clients made through the public face, their transports,
  // the notifications fan-out, and runtime/ for reading config files and the environment.
  hub: [
    "protocol",
    "clock",
    "runtime",
    "cache",
    "transports",
    "client",
    "client/changes",
    "governance",
  ],
  // The command-line inspector: only the public entries (".": mod.ts; oauth/mod.ts,
  // testing/mod.ts and hub/mod.ts), the clock for its progress line, protocol/'s nearest-name
  // rule for its suggestions, and runtime/ for its kept sessions (a Unix socket, a background
  // process).
  cli: [".", "clock", "oauth", "testing", "hub", "protocol", "runtime"],
};

/**
 * The client's public face: what the layers in {@linkcode FACE_ONLY} may import of client/
 * (the entries' names), never its private base or its sub-folders.
 */
const CLIENT_FACE = new Set([
  "client/types.ts",
  "client/api.ts",
  "client/options.ts",
  "client/request_options.ts",
  "client/shapes.ts",
  "client/task_api.ts",
  "client/client.ts",
  "client/connect.ts",
  "client/connect_http.ts",
  // The reader of spilled results, which kits load when their source spills.
  "client/read_result.ts",
]);

/** The layers above the wire that reach client/ only through its public face. */
const FACE_ONLY = new Set(["adapters", "governance"]);

/** The only folder that may name the `Deno` or `Bun` globals. */
const RUNTIME_FOLDER = "runtime";

/** Top-level folders that are not part of the package's source. */
const NOT_SOURCE = new Set([
  "bench",
  "conformance",
  "dist", // the published bundles, built from the sources (npm run build)
  "examples",
  "node_modules",
  "out",
  "scripts",
  "tests",
]);

/** One import edge of the graph. */
interface Edge {
  to: string;
  /** `code` (a value import), `type` (erased at run time) or `dynamic` (`import("…")`). */
  kind: "code" | "type" | "dynamic";
}

/** A module graph: repository-relative path → the local modules it imports. */
type Graph = Map<string, Edge[]>;

/** One finding: `key` names it (the files, the edge), `detail` says more. */
interface Violation {
  key: string;
  detail: string;
}

/** The top-level folder of a repository-relative path (`"."` for a root file). */
function topFolder(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? "." : path.slice(0, slash);
}

/** The row of `layers` a path belongs to: its longest folder with a row, else its top folder. */
function layerOf(path: string, layers: Record<string, readonly string[]>): string {
  let best = topFolder(path);
  for (const folder of Object.keys(layers)) {
    if (path.startsWith(`${folder}/`) && folder.length > best.length) best = folder;
  }
  return best;
}

function isPrivate(path: string): boolean {
  return path.slice(path.lastIndexOf("/") + 1).startsWith("_");
}

/** Every `.ts` file under `dir` (repository-relative), recursively. */
function tsFilesUnder(root: string, dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) files.push(...tsFilesUnder(root, rel));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) files.push(rel);
  }
  return files;
}

/** The package's source folders: every top-level folder but NOT_SOURCE and dot-folders. */
function sourceFolders(root: string): string[] {
  return readdirSync(root)
    .filter((name) => !name.startsWith(".") && !NOT_SOURCE.has(name))
    .filter((name) => statSync(join(root, name)).isDirectory())
    .sort();
}

/** The entries (deno.json's exports) and every `.ts` file of the source folders. */
function sourceFiles(root: string): string[] {
  const config = JSON.parse(readFileSync(join(root, "deno.json"), "utf8")) as {
    exports: Record<string, string>;
  };
  const entries = Object.values(config.exports).map((path) => path.replace(/^\.\//, ""));
  const files = sourceFolders(root).flatMap((folder) => tsFilesUnder(root, folder));
  return [...new Set([...entries, ...files])];
}

/**
 * Reads the graph of `files` (paths relative to `root`) with one `deno info --json` over a
 * temporary module that imports them all. Only modules under `root` (outside node_modules/)
 * are kept.
 */
function readGraph(root: string, files: readonly string[]): Graph {
  const rootUrl = pathToFileURL(root.endsWith("/") ? root : `${root}/`).href;
  const dir = mkdtempSync(join(tmpdir(), "conduit-layout-"));
  try {
    const entry = join(dir, "all.ts");
    const lines = files.map((file) => `import ${JSON.stringify(new URL(file, rootUrl).href)};`);
    writeFileSync(entry, lines.join("\n") + "\n");
    const deno = fileURLToPath(new URL("node_modules/.bin/deno", ROOT));
    const args = ["info", "--json", "--config", join(root, "deno.json"), entry];
    const info = JSON.parse(
      execFileSync(deno, args, {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        maxBuffer: 64 << 20,
      }),
    ) as {
      modules: {
        specifier: string;
        error?: string;
        dependencies?: {
          specifier: string;
          isDynamic?: boolean;
          code?: { specifier?: string; error?: string };
          type?: { specifier?: string; error?: string };
        }[];
      }[];
    };
    const local = (url: string | undefined) =>
      url !== undefined && url.startsWith(rootUrl) && !url.includes("/node_modules/")
        ? decodeURIComponent(url.slice(rootUrl.length))
        : undefined;
    const graph: Graph = new Map();
    for (const module of info.modules) {
      const from = local(module.specifier);
      if (from === undefined) continue;
      if (module.error) throw new Error(`deno info: ${from}: ${module.error}`);
      const edges: Edge[] = [];
      for (const dep of module.dependencies ?? []) {
        for (const side of [dep.code, dep.type]) {
          if (side?.error) throw new Error(`deno info: ${from} → ${dep.specifier}: ${side.error}`);
        }
        const code = local(dep.code?.specifier);
        const type = local(dep.type?.specifier);
        // A specifier imported both dynamically and as a type is one edge of each kind.
        if (code !== undefined) edges.push({ to: code, kind: dep.isDynamic ? "dynamic" : "code" });
        if (type !== undefined && (type !== code || dep.isDynamic)) {
          edges.push({ to: type, kind: "type" });
        }
      }
      graph.set(from, edges);
    }
    return graph;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The strongly connected components of more than one file (or a file importing itself). */
function cycles(graph: Graph): Violation[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: Violation[] = [];
  const next = (v: string) => [...new Set((graph.get(v) ?? []).map((e) => e.to))].sort();
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length === 1 && !next(v).includes(v)) return;
    component.sort();
    found.push({
      key: `cycle among ${component.join(", ")}`,
      detail: `for example ${shortestCycle(graph, component).join(" → ")}`,
    });
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * A shortest cycle through the component's first file: each file is followed by the kind of
 * its import of the next one.
 */
function shortestCycle(graph: Graph, component: readonly string[]): string[] {
  const inside = new Set(component);
  const start = component[0];
  const previous = new Map<string, Edge & { from: string }>();
  const queue = [start];
  while (queue.length > 0 && !previous.has(start)) {
    const from = queue.shift()!;
    for (const edge of [...(graph.get(from) ?? [])].sort((a, b) => a.to.localeCompare(b.to))) {
      if (!inside.has(edge.to) || previous.has(edge.to)) continue;
      previous.set(edge.to, { ...edge, from });
      queue.push(edge.to);
    }
  }
  const path = [start];
  let at = start;
  do {
    const step = previous.get(at)!;
    path.unshift(`${step.from} (${step.kind})`);
    at = step.from;
  } while (at !== start);
  return path;
}

/**
 * Each edge that crosses folders against `layers`, or reaches a `_` file of another top-level
 * folder.
 */
function layering(graph: Graph, layers: Record<string, readonly string[]>): Violation[] {
  const found: Violation[] = [];
  const unruled = new Set<string>();
  for (const [from, edges] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const source = layerOf(from, layers);
    if (source === ".") continue;
    const allowed = layers[source];
    if (allowed === undefined) {
      if (!unruled.has(source)) {
        unruled.add(source);
        found.push({ key: `no layering rule for ${source}/`, detail: "add its row to LAYERS" });
      }
      continue;
    }
    for (const to of new Set(edges.map((edge) => edge.to))) {
      const target = layerOf(to, layers);
      if (target === source) continue;
      if (!allowed.includes(target)) {
        const may = allowed.length === 0
          ? "nothing outside itself"
          : allowed.map((f) => `${f}/`).join(", ");
        found.push({
          key: `layering: ${from} imports ${to}`,
          detail: `${source}/ may import ${may}`,
        });
      }
      if (FACE_ONLY.has(source) && topFolder(to) === "client" && !CLIENT_FACE.has(to)) {
        found.push({
          key: `face: ${from} imports ${to}`,
          detail: `${source}/ reaches client/ only through its public face (client/types.ts, …)`,
        });
      }
      if (isPrivate(to) && topFolder(to) !== topFolder(from)) {
        found.push({
          key: `private: ${from} imports ${to}`,
          detail: `${to} is private to ${topFolder(to)}/`,
        });
      }
    }
  }
  return found;
}

/** `code` with string literals (and templates without `${…}`) blanked out. */
function blankStrings(code: string): string {
  return code
    .replace(/(["'])(?:\\.|(?!\1)[^\\\n])*\1/g, '""')
    .replace(/`(?:\\.|[^\\`$]|\$(?!\{))*`/g, "``");
}

/** Each file outside runtime/ whose code (not comments or strings) names `Deno` or `Bun`. */
function runtimeGlobals(root: string, files: readonly string[]): Violation[] {
  const found: Violation[] = [];
  for (const file of files) {
    if (topFolder(file) === RUNTIME_FOLDER) continue;
    const code = blankStrings(stripComments(readFileSync(join(root, file), "utf8")));
    const match = /(?<![\w$])(Deno|Bun)\b/.exec(code);
    if (match) {
      const line = code.slice(0, match.index).split("\n").length;
      found.push({
        key: `global: ${file} names ${match[1]}`,
        detail: `line ${line}; only ${RUNTIME_FOLDER}/ may`,
      });
    }
  }
  return found;
}

/** Every violation of the repository at `root`. */
function violations(root: string): Violation[] {
  const files = sourceFiles(root);
  const graph = readGraph(root, files);
  return [...cycles(graph), ...layering(graph, LAYERS), ...runtimeGlobals(root, files)];
}

/** Writes `files` into a fresh temporary folder, runs `fn` on it, then removes it. */
function withTree<T>(files: Record<string, string>, fn: (root: string) => T): T {
  const root = mkdtempSync(join(tmpdir(), "conduit-layout-tree-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      const slash = path.lastIndexOf("/");
      if (slash !== -1) mkdirSync(join(root, path.slice(0, slash)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return fn(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const repoRoot = fileURLToPath(ROOT);
const describe = (list: readonly Violation[]) =>
  list.map((v) => `  ${v.key}: ${v.detail}`).join("\n");

test("layout: no import cycle, layering or runtime-global violation", () => {
  const found = violations(repoRoot);
  assertEquals(found, [], `layout violations:\n${describe(found)}`);
});

test("layout: the graph covers every source folder and has a row for each", () => {
  const folders = sourceFolders(repoRoot);
  for (const folder of ["client", "oauth", "protocol", "runtime", "transports"]) {
    assert(folders.includes(folder), `${folder}/ is a source folder`);
  }
  assertEquals(folders.filter((folder) => LAYERS[folder] === undefined), []);
  const graph = readGraph(repoRoot, sourceFiles(repoRoot));
  for (const file of ["mod.ts", "http.ts", "oauth/mod.ts", "runtime/detect.ts"]) {
    assert(graph.has(file), `${file} is in the graph`);
  }
  const kinds = new Set([...graph.values()].flat().map((edge) => edge.kind));
  assertEquals([...kinds].sort(), ["code", "dynamic", "type"]);
});

test("layout: a cycle of type-only imports, export…from and import() types is caught", () => {
  const found = withTree({
    "deno.json": '{ "exports": { ".": "./mod.ts" } }',
    "mod.ts": 'export type { A } from "./protocol/a.ts";\n',
    "protocol/a.ts": 'import type { B } from "./b.ts";\nexport type A = B | 1;\n',
    "protocol/b.ts": 'export type B = import("./c.ts").C;\n',
    "protocol/c.ts": 'export type { A as C } from "./a.ts";\n',
    "protocol/d.ts": 'export const d = 1;\nexport const e = () => import("./d.ts");\n',
  }, (root) => cycles(readGraph(root, sourceFiles(root))));
  assertEquals(found.map((v) => v.key), [
    "cycle among protocol/a.ts, protocol/b.ts, protocol/c.ts",
    "cycle among protocol/d.ts",
  ]);
  assertEquals(
    found[0].detail,
    "for example protocol/a.ts (type) → protocol/b.ts (type) → protocol/c.ts (type) → protocol/a.ts",
  );
});

test("layout: a layering edge, a private import and a Deno global are each caught", () => {
  const found = withTree({
    "deno.json": '{ "exports": { ".": "./mod.ts" } }',
    "mod.ts": 'export * from "./transports/_wire.ts";\nexport * from "./client/x.ts";\n',
    "protocol/p.ts": 'import type { X } from "../client/x.ts";\nexport type P = X;\n',
    "runtime/r.ts": "export const pid = (globalThis as any).Deno?.pid;\n",
    "transports/_wire.ts": "export const wire = 1;\n",
    "client/x.ts": [
      'import { wire } from "../transports/_wire.ts";',
      "// Deno in a comment, and in a string:",
      'export const name = "Bun";',
      "export type X = typeof wire;",
      "export const deno = () => Deno.pid;",
    ].join("\n"),
    "apps/c.ts": "export const c = 1;\n",
  }, violations);
  assertEquals(found.map((v) => v.key), [
    "no layering rule for apps/",
    "private: client/x.ts imports transports/_wire.ts",
    "layering: protocol/p.ts imports client/x.ts",
    "global: client/x.ts names Deno",
  ]);
});

test("layout: a sub-folder's row holds its files; client/ means the folder's own files", () => {
  const graph: Graph = new Map([
    ["client/client.ts", [{ to: "client/connection/link.ts", kind: "code" }]],
    ["client/connection/link.ts", [{ to: "client/_json.ts", kind: "code" }]],
    ["client/requests/call.ts", [
      { to: "client/connection/link.ts", kind: "type" },
      { to: "client/_json.ts", kind: "code" },
    ]],
    ["client/_json.ts", [{ to: "client/requests/call.ts", kind: "type" }]],
  ]);
  const layers = {
    client: ["client/connection", "client/requests"],
    "client/connection": ["client"],
    "client/requests": ["client"],
  };
  assertEquals(layering(graph, layers).map((v) => v.key), [
    "layering: client/requests/call.ts imports client/connection/link.ts",
  ]);
});

test("layout: adapters/ and governance/ reach client/ only through its public face", () => {
  const graph: Graph = new Map([
    ["adapters/kit.ts", [
      { to: "client/types.ts", kind: "type" },
      { to: "client/requests/requests.ts", kind: "type" },
      { to: "client/shaping.ts", kind: "code" },
    ]],
    ["governance/shape.ts", [{ to: "protocol/shapes.ts", kind: "type" }]],
  ]);
  const layers = {
    adapters: ["protocol", "client", "client/requests"],
    governance: ["protocol"],
    client: [],
    "client/requests": [],
    protocol: [],
  };
  assertEquals(layering(graph, layers).map((v) => v.key), [
    "face: adapters/kit.ts imports client/requests/requests.ts",
    "face: adapters/kit.ts imports client/shaping.ts",
  ]);
});

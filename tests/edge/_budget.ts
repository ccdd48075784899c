/**
 * What a plain client loads and ships, read without timing anything (the budget tests in
 * `budget_test.ts` and `bench/startup.ts` share it):
 *
 * - {@linkcode staticModules}: the local modules an entry loads with it, from `deno info
 *   --json` (value imports followed; type-only and dynamic imports not);
 * - {@linkcode loadedModules}: the local modules a real process loads while it runs a plain
 *   stdio connect + calls, recorded by a Bun loader plugin (so dynamic imports that ran
 *   count too);
 * - {@linkcode startBundle}: what a plain `http.ts` connect + call ships at start, bundled
 *   with `bun build --minify --splitting --target=browser`: the entry and the chunks it
 *   imports statically (chunks behind a dynamic import load on first use).
 *
 * Each takes the repository root, so a benchmark can read another checkout the same way.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import process from "node:process";
import { gzipSync } from "node:zlib";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ROOT } from "./_graph.ts";

/** This repository's root, as a path ending in `/`. */
export const ROOT_PATH: string = fileURLToPath(ROOT);

const ENV = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };

/** The tools this repository runs (its own `node_modules/.bin`). */
function tool(name: "deno" | "bun"): string {
  return join(ROOT_PATH, "node_modules", ".bin", name);
}

/** `path` (absolute) relative to `root`, or `undefined` when outside it or in node_modules. */
function localTo(root: string, path: string): string | undefined {
  const base = root.endsWith("/") ? root : `${root}/`;
  if (!path.startsWith(base) || path.includes("/node_modules/")) return undefined;
  return path.slice(base.length);
}

interface InfoModule {
  specifier: string;
  dependencies?: {
    specifier: string;
    isDynamic?: boolean;
    code?: { specifier?: string };
  }[];
}

/**
 * The local modules (repository-relative paths, sorted) that loading `entry` loads, read from
 * `deno info --json`: value imports and re-exports followed from the entry, type-only
 * imports not, and dynamic imports only with `dynamic: true` (what it may load in all).
 */
export function staticModules(
  entry: string,
  root: string = ROOT_PATH,
  options: { dynamic?: boolean } = {},
): string[] {
  const info = JSON.parse(
    execFileSync(tool("deno"), ["info", "--json", "--no-lock", entry], {
      cwd: root,
      encoding: "utf8",
      env: ENV,
      maxBuffer: 64 << 20,
    }),
  ) as { roots: string[]; modules: InfoModule[] };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = [...info.roots];
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      const code = dep.code?.specifier;
      const follow = options.dynamic === true || !dep.isDynamic;
      if (code !== undefined && follow && code.startsWith("file:")) queue.push(code);
    }
  }
  return [...seen]
    .map((s) => localTo(root, fileURLToPath(s)))
    .filter((p): p is string => p !== undefined)
    .sort();
}

/** A Bun preload that records every file Bun loads, printed as one JSON line at exit. */
const RECORDER = `
import { readFileSync } from "node:fs";
const seen = [];
Bun.plugin({ name: "record-loads", setup(build) {
  build.onLoad({ filter: /\\.(ts|mts|js|mjs)$/ }, (args) => {
    seen.push(args.path);
    const loader = /\\.m?ts$/.test(args.path) ? "ts" : "js";
    return { contents: readFileSync(args.path, "utf8"), loader };
  });
}});
process.on("exit", () => console.log("LOADED " + JSON.stringify(seen)));
`;

/**
 * What a plain stdio client does in {@linkcode loadedModules}. `http.ts` has no stdio of its
 * own: its client gets the stdio transport as a transport target (from the source folder).
 */
function plainStdioScript(
  root: string,
  entry: string,
  server: { command: string; args: string[] },
): string {
  const url = (path: string) => JSON.stringify(pathToFileURL(join(root, path)).href);
  const target = entry === "http.ts"
    ? `(await import(${url("transports/stdio.ts")})).stdio(${JSON.stringify(server)})`
    : JSON.stringify(server);
  return `
import { connect } from ${url(entry)};
const client = await connect(${target});
await client.listTools();
const result = await client.callTool("echo", { message: "hi" });
if (result.content[0]?.text !== "hi") throw new Error("unexpected result");
await client.readResource("test://resource1");
await client.getPrompt("greeting", { name: "x" });
const off = client.subscribeNotifications(() => {});
off();
await client.close();
`;
}

/**
 * The local modules (repository-relative paths, sorted) a real Bun process loads while it
 * imports `entry` of `root`, connects to the fixture server over stdio, lists and calls a
 * tool, reads a resource, gets a prompt, listens for notifications and closes: what loads
 * with the entry and every dynamic import that ran.
 */
export function loadedModules(entry: string, root: string = ROOT_PATH): string[] {
  const server = {
    command: tool("bun"),
    args: [fileURLToPath(new URL("tests/fixtures/stdio_server.ts", ROOT))],
  };
  return loadedBy(plainStdioScript(root, entry, server), root);
}

/**
 * The local modules (repository-relative paths, sorted) a real Bun process loads while it
 * runs `script` (a module whose imports are absolute file URLs): what it imports and every
 * dynamic import that ran.
 *
 * @param script The module's code.
 * @param root The repository the paths are relative to.
 */
export function loadedBy(script: string, root: string = ROOT_PATH): string[] {
  const dir = mkdtempSync(join(tmpdir(), "conduit-loads-"));
  try {
    const preload = join(dir, "record.ts");
    const main = join(dir, "plain.ts");
    writeFileSync(preload, RECORDER);
    writeFileSync(main, script);
    const out = execFileSync(tool("bun"), ["--preload", preload, main], {
      cwd: dir,
      encoding: "utf8",
      env: ENV,
      maxBuffer: 64 << 20,
    });
    const line = out.split("\n").find((l) => l.startsWith("LOADED "));
    if (line === undefined) throw new Error(`no LOADED line in: ${out}`);
    const paths = JSON.parse(line.slice("LOADED ".length)) as string[];
    return [...new Set(paths.map((p) => localTo(root, p)).filter((p) => p !== undefined))]
      .sort() as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What {@linkcode startBundle} reports. */
export interface BundleSize {
  /** Minified bytes of the entry chunk and the chunks it imports statically. */
  start: number;
  /** The same, each file gzipped on its own, summed (each file is its own response). */
  startGzip: number;
  /** The same files gzipped as one stream: the bytes alone, without the split's cost. */
  startGzipOne: number;
  /** Minified bytes of every output file (the lazy chunks too). */
  all: number;
  /** The output files that load at start. */
  files: string[];
  /** Their code, one after the other. */
  code: string;
}

/** The chunks a bundled file imports statically (`import … from "./chunk-….js"`). */
function staticChunks(code: string): string[] {
  const found = new Set<string>();
  for (
    const match of code.matchAll(/(?:^|[;}\s])(?:import|export)\s*[^;"'()]*?["'](\.\/[^"']+)["']/g)
  ) {
    found.add(match[1].slice(2));
  }
  return [...found];
}

/**
 * Bundles `entryCode` (its imports must be absolute paths or packages `resolveFrom` can
 * resolve) with `bun build --minify --splitting
 * --target=browser` and measures what loads at start.
 *
 * @param resolveFrom A folder of this repository the entry is written into, so package
 *   names resolve (`bench/_startup` by default); the file is removed afterwards.
 * @param flags More `bun build` flags (the benchmark's `--no-module-preload`, to show what
 *   Bun's preloading of the lazy chunks adds).
 */
export function bundleSize(
  entryCode: string,
  resolveFrom = "bench/_startup",
  flags: string[] = [],
): BundleSize {
  const out = mkdtempSync(join(tmpdir(), "conduit-bundle-"));
  const entry = join(ROOT_PATH, resolveFrom, `_bundle_entry_${process.pid}_${Date.now()}.ts`);
  try {
    writeFileSync(entry, entryCode);
    execFileSync(
      tool("bun"),
      [
        "build",
        "--minify",
        "--splitting",
        "--target=browser",
        ...flags,
        "--entry-naming=entry.[ext]",
        "--chunk-naming=chunk-[hash].[ext]",
        "--outdir",
        out,
        entry,
      ],
      { cwd: ROOT_PATH, encoding: "utf8", env: ENV, stdio: ["ignore", "pipe", "pipe"] },
    );
    const outputs = readdirSync(out).filter((name) => name.endsWith(".js"));
    const entryName = "entry.js";
    if (!outputs.includes(entryName)) throw new Error(`no entry among ${outputs.join(", ")}`);
    const files: string[] = [];
    const queue = [entryName];
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (files.includes(name)) continue;
      files.push(name);
      queue.push(...staticChunks(readFileSync(join(out, name), "utf8")));
    }
    const bytes = (name: string) => readFileSync(join(out, name));
    return {
      start: files.reduce((sum, name) => sum + bytes(name).length, 0),
      startGzip: files.reduce((sum, name) => sum + gzipSync(bytes(name)).length, 0),
      startGzipOne: gzipSync(Buffer.concat(files.map(bytes))).length,
      all: outputs.reduce((sum, name) => sum + bytes(name).length, 0),
      files,
      code: files.map((name) => bytes(name).toString("utf8")).join("\n"),
    };
  } finally {
    rmSync(entry, { force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

/** The code of a plain `http.ts` connect + call against `root`'s entry. */
export function plainHttpEntry(root: string = ROOT_PATH): string {
  return [
    `import { connect } from ${JSON.stringify(join(root, "http.ts"))};`,
    `const client = await connect("http://127.0.0.1:1/mcp");`,
    `console.log(await client.callTool("echo", { message: "hi" }));`,
    "",
  ].join("\n");
}

/**
 * What a plain `http.ts` connect + call of `root` ships at start.
 *
 * @param flags More `bun build` flags (none for the budget).
 */
export function startBundle(root: string = ROOT_PATH, flags: string[] = []): BundleSize {
  return bundleSize(plainHttpEntry(root), undefined, flags);
}
